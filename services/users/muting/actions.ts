// POST and DELETE /users/me/muted_users/{muted_user_id}, as Zulip's zerver/views/muted_users.py,
// announced as users.mutesChanged (the muter's `muted_users` event, and the messages service's
// cache of who muted a sender); muting also marks the muted user's messages read for the muter.
// For the messages service: who muted a sender, and whose read receipts a user sees. The rules
// live in mute-rules.ts.
import { call, requireUser } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import type { MutesChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { addMute, muteTarget, mutersOf, mutesOf, receiptReaders, removeMute } from "./mute-rules";
import type { Ctx, ServiceDeps } from "../deps";

export function mutedUserActions({ db }: ServiceDeps) {
	async function announce(ctx: Ctx<any>, userId: number, mutedUserId: number) {
		await ctx.broadcast("users.mutesChanged", { user_id: userId, muted_user_id: mutedUserId, muted_users: await mutesOf(db, userId) } satisfies MutesChanged);
	}

	return {
		muteUser: {
			params: params({ muted_user_id: p.int() }),
			async handler(ctx: Ctx<{ muted_user_id: number }>) {
				const actor = requireUser(ctx);
				const target = ctx.params.muted_user_id;
				if (target === actor.user_id) throw badRequest("Cannot mute self");
				await muteTarget(db, target);
				await addMute(db, actor.user_id, target, clock.now());
				await announce(ctx, actor.user_id, target);
				// As Zulip's do_mute_user: what the muted user sent is now read for the muter.
				await call(ctx, "messages.markSenderRead", { sender_id: target });
				return {};
			},
		},

		unmuteUser: {
			params: params({ muted_user_id: p.int() }),
			async handler(ctx: Ctx<{ muted_user_id: number }>) {
				const actor = requireUser(ctx);
				const target = await muteTarget(db, ctx.params.muted_user_id);
				await removeMute(db, actor.user_id, target);
				await announce(ctx, actor.user_id, target);
				return {};
			},
		},

		mutersOf: {
			visibility: "public",
			params: params({ user_id: p.int() }),
			async handler(ctx: Ctx<{ user_id: number }>) {
				return { user_ids: await mutersOf(db, ctx.params.user_id) };
			},
		},

		receiptReaders: {
			visibility: "public",
			params: params({ user_ids: p.list({ type: "number" }) }),
			async handler(ctx: Ctx<{ user_ids: number[] }>) {
				return { user_ids: await receiptReaders(db, requireUser(ctx).user_id, ctx.params.user_ids) };
			},
		},
	};
}
