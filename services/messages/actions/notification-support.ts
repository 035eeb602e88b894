// What the notifications service asks of the messages service when missed-message batches are due
// (Zulip's handle_missedmessage_emails query), for every user of a sweep at once: of the messages
// named, each once as the API shows it (with its Markdown, without a user's flags), and which of
// them each user still has unread; the caller keeps, per user, those it was to tell them about.
import { p, params } from "../../../shared/params";
import type { GetParams, Ctx, ServiceDeps } from "./deps";

/** The most messages, and users, one call names. */
const MAX_IDS = 10_000;

export function notificationSupportActions({ db, views }: ServiceDeps) {
	return {
		unreadForNotices: {
			visibility: "public",
			params: params({ user_ids: p.intList({ max: MAX_IDS }), message_ids: p.intList({ max: MAX_IDS }) }),
			async handler(ctx: Ctx<{ user_ids: number[]; message_ids: number[] }>) {
				const { user_ids, message_ids } = ctx.params;
				const rows = await db.UserMessage.find({ user_id: { $in: user_ids }, message_id: { $in: message_ids } }, { user_id: 1, message_id: 1, flags: 1 }).lean();
				const unread: Record<string, number[]> = {};
				for (const r of rows) if (!r.flags.includes("read")) (unread[String(r.user_id)] ??= []).push(r.message_id);
				const ids = [...new Set(Object.values(unread).flat())];
				if (!ids.length) return { messages: [], unread };
				const docs = await db.Message.find({ _id: { $in: ids } }).sort({ _id: 1 }).lean();
				const shown = await views(ctx, docs, new Map(), { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false } as GetParams);
				return { messages: shown.map((m, i) => ({ ...m, content_markdown: docs[i].content })), unread };
			},
		},
	};
}
