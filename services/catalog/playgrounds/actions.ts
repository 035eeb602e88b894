// POST and DELETE /realm/playgrounds (administrators), each change announced with the whole list
// (Zulip's `realm_playgrounds` event) to every active user.
import { requireAdmin } from "../../../shared/actions";
import type { PlaygroundsChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { addPlayground, listPlaygrounds, MAX_PLAYGROUND_NAME_LENGTH, MAX_URL_TEMPLATE_LENGTH, removePlayground } from "./playground-rules";
import { activeUserIds, type Ctx, type ServiceDeps } from "../deps";

export function playgroundActions(deps: ServiceDeps) {
	const { db } = deps;
	async function announce(ctx: Ctx<unknown>) {
		const [realm_playgrounds, user_ids] = await Promise.all([listPlaygrounds(db), activeUserIds(deps)]);
		await ctx.broadcast("catalog.playgroundsChanged", { user_ids, realm_playgrounds } satisfies PlaygroundsChanged);
	}

	return {
		addPlayground: {
			params: params({ name: p.string({ max: MAX_PLAYGROUND_NAME_LENGTH }), pygments_language: p.string(), url_template: p.string({ max: MAX_URL_TEMPLATE_LENGTH }) }),
			async handler(ctx: Ctx<{ name: string; pygments_language: string; url_template: string }>) {
				requireAdmin(ctx);
				const id = await addPlayground(db, ctx.params);
				await announce(ctx);
				return { id };
			},
		},

		removePlayground: {
			params: params({ playground_id: p.int() }),
			async handler(ctx: Ctx<{ playground_id: number }>) {
				requireAdmin(ctx);
				await removePlayground(db, ctx.params.playground_id);
				await announce(ctx);
				return {};
			},
		},
	};
}
