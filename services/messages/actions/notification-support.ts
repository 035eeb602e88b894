// What the notifications service asks of the messages service when a batch of missed-message
// emails is due (Zulip's handle_missedmessage_emails query): of the messages a user was to be told
// about, those still there and still unread for them, as the API shows them, with their Markdown.
import { p, params } from "../../../shared/params";
import type { GetParams, Ctx, ServiceDeps } from "./deps";

/** The most messages one batch names. */
const MAX_IDS = 10_000;

export function notificationSupportActions({ db, views }: ServiceDeps) {
	return {
		unreadForNotice: {
			visibility: "public",
			params: params({ user_id: p.int({ min: 1 }), message_ids: p.intList({ max: MAX_IDS }) }),
			async handler(ctx: Ctx<{ user_id: number; message_ids: number[] }>) {
				const { user_id, message_ids } = ctx.params;
				const rows = await db.UserMessage.find({ user_id, message_id: { $in: message_ids } }, { message_id: 1, flags: 1 }).lean();
				const unread = rows.filter((r) => !r.flags.includes("read"));
				if (!unread.length) return { messages: [] };
				const docs = await db.Message.find({ _id: { $in: unread.map((r) => r.message_id) } }).sort({ _id: 1 }).lean();
				const flags = new Map(unread.map((r) => [r.message_id, r.flags]));
				const shown = await views(ctx, docs, flags, { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false } as GetParams);
				return { messages: shown.map((m, i) => ({ ...m, content_markdown: docs[i].content })) };
			},
		},
	};
}
