// POST and DELETE /realm/playgrounds (administrators), each change announced with the whole list
// (Zulip's `realm_playgrounds` event) to every active user.
import { requireUser, type Ctx } from "../../../shared/actions";
import { adminRequired } from "../../../shared/errors";
import type { PlaygroundsChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { isAdmin } from "../../../shared/roles";
import type { UsersDb } from "../db";
import { addPlayground, listPlaygrounds, removePlayground } from "../playground-rules";

export function playgroundActions(db: UsersDb) {
	const requireAdmin = (ctx: Ctx<unknown>) => {
		if (!isAdmin(requireUser(ctx).role)) throw adminRequired();
	};
	async function announce(ctx: Ctx<unknown>) {
		const [realm_playgrounds, active] = await Promise.all([listPlaygrounds(db), db.User.find({ realm_id: db.realm._id, is_active: true }, { _id: 1 }).lean()]);
		await ctx.broadcast("users.playgroundsChanged", { user_ids: active.map((u) => u._id), realm_playgrounds } satisfies PlaygroundsChanged);
	}

	return {
		addPlayground: {
			params: params({ name: p.string(), pygments_language: p.string(), url_template: p.string() }),
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
