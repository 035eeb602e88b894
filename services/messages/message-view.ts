// How a message looks in the API (GET /messages, GET /messages/{id}).
import { topicForClient } from "../../shared/topics";
import type { ApiUser } from "../../shared/actions";
import type { MessageDoc } from "./models/message";
import type { ReactionDoc } from "./models/reaction";
import { reactionView } from "./reaction-rules";
import type { SubmessageDoc } from "./models/submessage";
import { submessageView } from "./submessages";
import { topicLinks } from "../../shared/markdown/topic-links";

export interface ViewContext {
	users: Map<number, ApiUser>;
	channelNames: Map<number, string>;
	applyMarkdown: boolean;
	allowEmptyTopicName: boolean;
	emptyTopicName: string;
	/** The organization's edit history visibility: "all", "moves" or "none". */
	editHistoryVisibility: string;
	/** The reactions on the messages shown, oldest first. */
	reactions: Map<number, ReactionDoc[]>;
	/** The submessages of the messages shown, oldest first. */
	submessages: Map<number, SubmessageDoc[]>;
}

/**
 * The fields a message object (and search highlighting) is made from: what reads for
 * messageView project to. The search stems, the largest part of a stored message, stay behind.
 */
export const VIEW_FIELDS = Object.fromEntries(
	[
		"_id", "sender_id", "type", "recipient_id", "channel_id", "topic", "dm_user_ids", "content", "rendered_content", "timestamp", "client",
		"is_me_message", "edit_history", "last_edit_timestamp", "last_moved_timestamp", "has_submessages", "no_reactions",
	].map((f) => [f, 1]),
) as Record<string, 1>;

/** A user's flags as the API shows them: the deprecated wildcard_mentioned stands for either kind of wildcard mention. */
export function apiFlags(flags: string[]): string[] {
	return flags.some((f) => f === "stream_wildcard_mentioned" || f === "topic_wildcard_mentioned") ? [...flags, "wildcard_mentioned"] : flags;
}

export function messageView(m: MessageDoc, flags: string[], v: ViewContext): Record<string, unknown> {
	const sender = v.users.get(m.sender_id);
	const shown = (t: string) => topicForClient(t, v.allowEmptyTopicName, v.emptyTopicName);
	const topic = m.type === "stream" ? shown(m.topic) : m.topic;
	const out: Record<string, unknown> = {
		id: m._id,
		sender_id: m.sender_id,
		sender_full_name: sender?.full_name ?? "",
		sender_email: sender?.email ?? "",
		sender_realm_str: "",
		avatar_url: sender ? sender.avatar_url : null,
		client: m.client,
		content: v.applyMarkdown ? m.rendered_content : m.content,
		content_type: v.applyMarkdown ? "text/html" : "text/x-markdown",
		timestamp: m.timestamp,
		recipient_id: m.recipient_id,
		type: m.type,
		subject: topic,
		topic_links: m.type === "stream" ? topicLinks(m.topic) : [],
		is_me_message: m.is_me_message,
		reactions: (v.reactions.get(m._id) ?? []).map((r) => reactionView(r, v.users.get(r.user_id))),
		submessages: (v.submessages.get(m._id) ?? []).map(submessageView),
		flags: apiFlags(flags),
	};
	// With "moves", as Zulip: content edits are left out, and a record that also moved the
	// message shows the move only.
	const all = v.editHistoryVisibility === "all";
	const history = (m.edit_history ?? []).filter((e) => all || (v.editHistoryVisibility === "moves" && (e.prev_content === undefined || e.prev_topic !== undefined)));
	if (history.length && v.editHistoryVisibility !== "none") {
		out.edit_history = [...history].reverse().map((e) => {
			const h: Record<string, unknown> = { user_id: e.user_id, timestamp: e.timestamp };
			if (all && e.prev_content !== undefined) Object.assign(h, { prev_content: e.prev_content, prev_rendered_content: e.prev_rendered_content });
			if (e.prev_topic !== undefined) Object.assign(h, { prev_topic: shown(e.prev_topic), topic: shown(e.topic ?? "") });
			if (e.prev_stream !== undefined) Object.assign(h, { prev_stream: e.prev_stream, stream: e.stream });
			return h;
		});
	}
	if (m.last_edit_timestamp) out.last_edit_timestamp = m.last_edit_timestamp;
	if (m.last_moved_timestamp) out.last_moved_timestamp = m.last_moved_timestamp;
	if (m.type === "stream") {
		out.stream_id = m.channel_id;
		out.display_recipient = v.channelNames.get(m.channel_id!) ?? "";
	} else {
		out.display_recipient = m.dm_user_ids.map((id) => {
			const u = v.users.get(id);
			return { id, email: u?.email ?? "", full_name: u?.full_name ?? "", is_mirror_dummy: false };
		});
	}
	return out;
}
