// What the notifications service asks of the messages service when missed-message batches are due
// (Zulip's handle_missedmessage_emails query), for every user of a sweep at once: of the messages
// named, each once as the API shows it (with its Markdown, without a user's flags), and which of
// them each user still has unread; the caller keeps, per user, those it was to tell them about.
// With `context_for` (each user's messages to be told of), also the earlier messages each user's
// emails quote beside a channel topic's missed ones (../missed-context.ts), shown the same way.
import { p, params } from "../../../shared/params";
import { missedContext } from "../missed-context";
import type { MessageDoc } from "../models/message";
import type { GetParams, Ctx, ServiceDeps } from "./deps";

/** The most messages, and users, one call names. */
const MAX_IDS = 10_000;

interface Params {
	user_ids: number[];
	message_ids: number[];
	context_for?: Array<{ user_id: number; message_ids: number[] }>;
}

export function notificationSupportActions({ db, views }: ServiceDeps) {
	return {
		unreadForNotices: {
			visibility: "public",
			params: params({
				user_ids: p.intList({ max: MAX_IDS }),
				message_ids: p.intList({ max: MAX_IDS }),
				context_for: p.list(p.object({ user_id: p.int(), message_ids: p.intList({ max: MAX_IDS }) }), { optional: true, max: MAX_IDS }),
			}),
			async handler(ctx: Ctx<Params>) {
				const { user_ids, message_ids, context_for } = ctx.params;
				const rows = await db.UserMessage.find({ user_id: { $in: user_ids }, message_id: { $in: message_ids } }, { user_id: 1, message_id: 1, flags: 1 }).lean();
				const unread: Record<string, number[]> = {};
				for (const r of rows) if (!r.flags.includes("read")) (unread[String(r.user_id)] ??= []).push(r.message_id);
				const ids = [...new Set(Object.values(unread).flat())];
				if (!ids.length) return { messages: [], unread, context: {} };
				const docs = await db.Message.find({ _id: { $in: ids } }).lean();
				const byId = new Map(docs.map((m) => [m._id, m]));
				// Each user's messages to be told of that are still there and unread.
				const told = new Map(
					(context_for ?? []).map((c) => {
						const theirs = new Set(unread[String(c.user_id)] ?? []);
						return [c.user_id, c.message_ids.flatMap((id) => (theirs.has(id) && byId.has(id) ? [byId.get(id)!] : []))] as [number, MessageDoc[]];
					}),
				);
				const context = await missedContext(db, told);
				const more = [...new Set([...context.values()].flat())].filter((id) => !byId.has(id));
				if (more.length) for (const m of await db.Message.find({ _id: { $in: more } }).lean()) byId.set(m._id, m);
				const all = [...byId.values()].sort((a, b) => a._id - b._id);
				const shown = await views(ctx, all, new Map(), { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false } as GetParams);
				return { messages: shown.map((m, i) => ({ ...m, content_markdown: all[i].content })), unread, context: Object.fromEntries([...context].map(([u, c]) => [String(u), c])) };
			},
		},
	};
}
