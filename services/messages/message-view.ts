// How a message looks in the API (GET /messages, GET /messages/{id}).
import type { ApiUser } from "../../shared/actions";
import type { MessageDoc } from "./models/message";

export interface ViewContext {
	users: Map<number, ApiUser>;
	channelNames: Map<number, string>;
	applyMarkdown: boolean;
	allowEmptyTopicName: boolean;
	emptyTopicName: string;
}

export function messageView(m: MessageDoc, flags: string[], v: ViewContext): Record<string, unknown> {
	const sender = v.users.get(m.sender_id);
	const topic = m.topic === "" && !v.allowEmptyTopicName && m.type === "stream" ? v.emptyTopicName : m.topic;
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
		topic_links: [],
		is_me_message: m.is_me_message,
		reactions: [],
		submessages: [],
		// The deprecated wildcard_mentioned stands for either kind of wildcard mention.
		flags: flags.some((f) => f === "stream_wildcard_mentioned" || f === "topic_wildcard_mentioned") ? [...flags, "wildcard_mentioned"] : flags,
	};
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
