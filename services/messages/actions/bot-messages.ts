// Notification Bot's messages for other services: a direct message to one user (the scheduling
// service tells a sender their scheduled message failed, as Zulip does; the idempotency key makes a
// repeated call answer the message the first one stored), direct messages to several users at once
// (the channels service tells users someone subscribed them), and a notice in a channel topic (the
// moderation service's reports, the channels service's channel events).
import { call } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { isDuplicateKey } from "../../../shared/db";
import { recipientsOf, storeMessage } from "../send-rules";
import type { Ctx, ServiceDeps } from "./deps";

export function botMessageActions({ db, flagsForContent, announceSent, postNotice }: ServiceDeps) {
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

		/**
		 * One direct message to each user, in the order given; a user not found is skipped. Each
		 * distinct content is rendered once.
		 */
		notifyUsers: {
			visibility: "public",
			params: params({ messages: p.list(p.object({ user_id: p.int(), content: p.string({ min: 1 }) })) }),
			async handler(ctx: Ctx<{ messages: Array<{ user_id: number; content: string }> }>) {
				const { messages } = ctx.params;
				if (!messages.length) return { ids: [] };
				const bot = await call(ctx, "users.notificationBot", {});
				const { users } = await call(ctx, "users.resolvePrincipals", { principals: [...new Set(messages.map((m) => m.user_id))] });
				const byId = new Map(users.map((u) => [u.user_id, u]));
				const renders = new Map<string, Awaited<ReturnType<typeof flagsForContent>>>();
				for (const content of new Set(messages.map((m) => m.content))) {
					const recipients = messages.filter((m) => m.content === content && byId.has(m.user_id)).map((m) => m.user_id);
					renders.set(content, await flagsForContent(ctx, bot, content, [...recipients, bot.user_id], null, ""));
				}
				const ids: number[] = [];
				for (const m of messages) {
					const user = byId.get(m.user_id);
					if (!user) continue;
					const { rendered, flagsFor } = renders.get(m.content)!;
					const sent = await storeMessage(db, bot, { participants: [user] }, m.content, rendered, flagsFor, true, "Internal");
					await announceSent(ctx, sent);
					ids.push(sent.message._id);
				}
				return { ids };
			},
		},

		/**
		 * Posts as Notification Bot; the caller has chosen the channel and topic and checked them.
		 * Unread for every recipient but those in `mark_as_read`, and, when `limit_unread_user_ids`
		 * is given, only for those in it (Zulip's do_send_messages options).
		 */
		sendNotice: {
			visibility: "public",
			params: params({
				channel_id: p.int(),
				topic: p.string(),
				content: p.string(),
				mark_as_read: p.intList({ optional: true }),
				limit_unread_user_ids: p.intList({ optional: true }),
			}),
			async handler(ctx: Ctx<{ channel_id: number; topic: string; content: string; mark_as_read?: number[]; limit_unread_user_ids?: number[] }>) {
				const { channel_id, topic, content } = ctx.params;
				const read = new Set(ctx.params.mark_as_read ?? []);
				const unreadOnly = ctx.params.limit_unread_user_ids && new Set(ctx.params.limit_unread_user_ids);
				const isRead = (u: number) => read.has(u) || (!!unreadOnly && !unreadOnly.has(u));
				return { id: await postNotice(ctx, channel_id, topic, content, { isRead }) };
			},
		},
	};
}
