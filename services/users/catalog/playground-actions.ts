// POST and DELETE /realm/playgrounds (administrators), each change announced with the whole list
// (Zulip's `realm_playgrounds` event) to every active user.
import type { Ctx } from "../../../shared/actions";
import type { PlaygroundsChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { activeUserIds } from "../db";
import { addPlayground, listPlaygrounds, MAX_PLAYGROUND_NAME_LENGTH, MAX_URL_TEMPLATE_LENGTH, removePlayground } from "./playground-rules";
import { requireAdmin, type ServiceDeps } from "../deps";

export function playgroundActions({ db }: ServiceDeps) {
	async function announce(ctx: Ctx<unknown>) {
		const [realm_playgrounds, user_ids] = await Promise.all([listPlaygrounds(db), activeUserIds(db)]);
		await ctx.broadcast("users.playgroundsChanged", { user_ids, realm_playgrounds } satisfies PlaygroundsChanged);
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
