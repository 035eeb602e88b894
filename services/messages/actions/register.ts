// The messages service's part of POST /register (alert words, drafts, saved snippets, starred
// messages, recent direct conversations, unread messages), and the newest message ID for
// GET /users/me.
import { requireUser, type RegisterStateParams } from "../../../shared/actions";
import { params } from "../../../shared/params";
import { topicForClient } from "../../../shared/topics";
import { alertWordsOf } from "../alert-words";
import { recentConversations } from "../recent-conversations";
import { unreadMessages } from "../unreads";
import { draftsState } from "./drafts";
import { savedSnippetsState } from "./saved-snippets";
import type { Ctx, ServiceDeps } from "./deps";

export function registerActions({ db, graphs, maxMessageIdOf, maxIds }: ServiceDeps) {
	return {
		/** For GET /users/me: the newest message ID the caller has (-1 for none), kept per replica. */
		maxMessageId: {
			visibility: "public",
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = requireUser(ctx);
				return { max_message_id: await maxIds.get(actor.user_id) };
			},
		},

		registerState: {
			visibility: "public",
			async handler(ctx: Ctx<RegisterStateParams>) {
				const actor = requireUser(ctx);
				const wants = (t: string) => ctx.params.event_types === null || ctx.params.event_types.includes(t);
				const out: Record<string, unknown> = {};
				if (wants("alert_words")) out.alert_words = await alertWordsOf(db, actor.user_id);
				if (wants("drafts")) out.drafts = await draftsState(db, ctx, actor.user_id);
				if (wants("saved_snippets")) out.saved_snippets = await savedSnippetsState(db, actor.user_id);
				if (wants("starred_messages")) {
					const starred = await db.UserMessage.find({ user_id: actor.user_id, flags: "starred" }, { message_id: 1 }).sort({ message_id: 1 }).lean();
					out.starred_messages = starred.map((r) => r.message_id);
				}
				if (wants("recent_private_conversations")) out.recent_private_conversations = await recentConversations(db, actor.user_id);
				// Keyword search drops no stop words (search.ts). scheduled_messages come from the scheduling service.
				if (wants("stop_words")) out.stop_words = [];
				if (wants("message")) out.max_message_id = await maxMessageIdOf(actor.user_id);
				if (wants("message") && wants("update_message_flags")) {
					const graph = await graphs().get();
					const allowEmpty = !!ctx.params.client_capabilities.empty_topic_name;
					out.unread_msgs = await unreadMessages(db, actor.user_id, (t) => topicForClient(t, allowEmpty, graph.emptyTopicDisplayName));
				}
				return out;
			},
		},
	};
}
