// `message_details` of an update_message_flags event that marks messages unread: per message,
// what a client needs to put it back into its unread_msgs without fetching it (Zulip's
// format_unread_message_details). The official mobile app requires it: without it the whole
// event batch fails to decode and the app reloads.
//
// Per message: `type`; `mentioned: true` when the user is mentioned (personally or by a group,
// or by a wildcard in a message that is not muted for them); for a channel message
// `stream_id`, `topic` and `unmuted_stream_msg`; for a direct message `user_ids`, the other
// participants (sorted, the user left out: empty for a message to oneself).
//
// Three indexed reads, whatever the number of messages: the messages by _id, the user's rows
// for them, and the caller's topic policies (one call, only when a channel message is among them).
import type { TopicPolicies } from "../../shared/actions";
import { topicForClient } from "../../shared/topics";
import type { MessagesDb } from "./db";

export interface UnreadDetail {
	type: "stream" | "private";
	mentioned?: true;
	user_ids?: number[];
	stream_id?: number;
	topic?: string;
	unmuted_stream_msg?: boolean;
}

const MUTED = 1;
const UNMUTED = 2;
const FOLLOWED = 3;
const WILDCARD_FLAGS = ["stream_wildcard_mentioned", "topic_wildcard_mentioned"];

/** Whether a channel message counts as not muted for the user (Zulip's is_row_muted, negated). */
export function isUnmutedForUser(policies: TopicPolicies, channelId: number, topicKey: string): boolean {
	const topic = policies.topics.find((t) => t.channel_id === channelId && t.topic_key === topicKey);
	if (policies.muted_channel_ids.includes(channelId)) return topic?.visibility_policy === UNMUTED || topic?.visibility_policy === FOLLOWED;
	return topic?.visibility_policy !== MUTED;
}

export async function unreadDetails(
	db: MessagesDb,
	userId: number,
	ids: number[],
	lookups: { topicPolicies(): Promise<TopicPolicies>; emptyTopicName(): Promise<string> },
): Promise<Record<string, UnreadDetail>> {
	if (!ids.length) return {};
	const [messages, rows] = await Promise.all([
		db.Message.find({ _id: { $in: ids } }, { type: 1, channel_id: 1, topic: 1, topic_key: 1, dm_user_ids: 1 }).lean(),
		db.UserMessage.find({ user_id: userId, message_id: { $in: ids } }, { _id: 0, message_id: 1, flags: 1 }).lean(),
	]);
	const flagsOf = new Map(rows.map((r) => [r.message_id, r.flags]));
	const inChannels = messages.some((m) => m.channel_id !== null);
	const [policies, emptyName] = inChannels ? await Promise.all([lookups.topicPolicies(), lookups.emptyTopicName()]) : [undefined, ""];

	const details: Record<string, UnreadDetail> = {};
	for (const m of messages.sort((a, b) => a._id - b._id)) {
		const flags = flagsOf.get(m._id) ?? [];
		let detail: UnreadDetail;
		let mentioned = flags.includes("mentioned");
		if (m.channel_id !== null && policies) {
			const unmuted = isUnmutedForUser(policies, m.channel_id, m.topic_key);
			mentioned ||= unmuted && flags.some((f) => WILDCARD_FLAGS.includes(f));
			detail = { type: "stream", stream_id: m.channel_id, topic: topicForClient(m.topic, false, emptyName), unmuted_stream_msg: unmuted };
		} else {
			detail = { type: "private", user_ids: m.dm_user_ids.filter((u) => u !== userId).sort((a, b) => a - b) };
		}
		if (mentioned) detail.mentioned = true;
		details[String(m._id)] = detail;
	}
	return details;
}
