// Notification Bot's messages for other services: a direct message to one user (the scheduling
// service tells a sender their scheduled message failed, as Zulip does; the idempotency key makes a
// repeated call answer the message the first one stored), and a notice in a channel topic (the
// moderation service's reports).
import { call } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { isDuplicateKey } from "../../../shared/db";
import { recipientsOf, storeMessage } from "../send-rules";
import type { Ctx, ServiceDeps } from "./deps";

export function botMessageActions({ db, flagsForContent, announceSent, noticeDeps }: ServiceDeps) {
	return {
		notifyUser: {
			visibility: "public",
			params: params({ user_id: p.int(), content: p.string({ min: 1 }), idempotency_key: p.string({ min: 1 }) }),
			async handler(ctx: Ctx<{ user_id: number; content: string; idempotency_key: string }>) {
				const { user_id, content, idempotency_key } = ctx.params;
				const first = () => db.Message.findOne({ idempotency_key }, { _id: 1 }).lean();
				const existing = await first();
				if (existing) return { id: existing._id, repeated: true };
				const bot = await call(ctx, "users.notificationBot", {});
				const { users } = await call(ctx, "users.resolvePrincipals", { principals: [user_id] });
				const target = { participants: users };
				const { rendered, flagsFor } = await flagsForContent(ctx, bot, content, recipientsOf(bot, target), null, "");
				try {
					const sent = await storeMessage(db, bot, target, content, rendered, flagsFor, true, "Internal", false, idempotency_key);
					await announceSent(ctx, sent);
					return { id: sent.message._id, repeated: false };
				} catch (err) {
					// A call that raced this one stored it first.
					const stored = isDuplicateKey(err) ? await first() : null;
					if (!stored) throw err;
					return { id: stored._id, repeated: true };
				}
			},
		},

		/** Posts as Notification Bot; the caller has chosen the channel and topic and checked them. */
		sendNotice: {
			visibility: "public",
			params: params({ channel_id: p.int(), topic: p.string(), content: p.string() }),
			async handler(ctx: Ctx<{ channel_id: number; topic: string; content: string }>) {
				const { channel_id, topic, content } = ctx.params;
				return { id: await noticeDeps(ctx).post(channel_id, topic, content) };
			},
		},
	};
}
