// The unread_msgs part of POST /register: the caller's newest unread messages (at most
// MAX_UNREADS, as Zulip's MAX_UNREAD_MESSAGES, with old_unreads_missing set when there are more),
// grouped by channel and topic, by one-to-one and by group direct conversation, and the unread
// mentions.
//
// Bounded, indexed queries, whatever the history: the user's unread rows newest first
// ({ user_id, message_id }), which carry the conversation (channel, topic key, recipient) and the
// flags, so no message is read for them; then one name per topic (the topic as its oldest unread
// message spells it, as Zulip shows it) by _id, and the participants of each direct conversation
// by recipient _id. Neither of those grows with the number of unread messages, only with the
// number of conversations they are in.
import type { MessagesDb } from "./db";

export const MAX_UNREADS = 50_000;
const MENTION_FLAGS = new Set(["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"]);

interface UnreadRow {
	message_id: number;
	flags: string[];
	channel_id: number | null;
	topic_key: string;
	recipient_id: number;
}

export async function unreadMessages(db: MessagesDb, userId: number, showTopic: (t: string) => string): Promise<Record<string, unknown>> {
	const newestFirst = (await db.UserMessage.find({ user_id: userId, flags: { $ne: "read" } }, { _id: 0, message_id: 1, flags: 1, channel_id: 1, topic_key: 1, recipient_id: 1 })
		.sort({ message_id: -1 })
		.limit(MAX_UNREADS + 1)
		.lean()) as UnreadRow[];
	const missing = newestFirst.length > MAX_UNREADS;
	const rows = newestFirst.slice(0, MAX_UNREADS).reverse();

	const topics = new Map<string, { first: number; stream_id: number; unread_message_ids: number[] }>();
	const conversations = new Map<number, number[]>(); // direct conversation's recipient -> its unread IDs
	const mentions: number[] = [];
	for (const r of rows) {
		if (r.flags.some((f) => MENTION_FLAGS.has(f))) mentions.push(r.message_id);
		if (r.channel_id !== null) {
			const key = `${r.channel_id}\n${r.topic_key}`;
			let entry = topics.get(key);
			if (!entry) topics.set(key, (entry = { first: r.message_id, stream_id: r.channel_id, unread_message_ids: [] }));
			entry.unread_message_ids.push(r.message_id);
		} else {
			let ids = conversations.get(r.recipient_id);
			if (!ids) conversations.set(r.recipient_id, (ids = []));
			ids.push(r.message_id);
		}
	}

	const [names, participants] = await Promise.all([
		topics.size ? db.Message.find({ _id: { $in: [...topics.values()].map((t) => t.first) } }, { topic: 1 }).lean() : [],
		conversations.size ? db.Recipient.find({ _id: { $in: [...conversations.keys()] } }, { user_ids: 1 }).lean() : [],
	]);
	const topicOf = new Map(names.map((m) => [m._id, m.topic]));
	const usersOf = new Map(participants.map((r) => [r._id, r.user_ids]));

	const streams = [...topics.values()]
		.filter((t) => topicOf.has(t.first))
		.map((t) => ({ topic: showTopic(topicOf.get(t.first)!), stream_id: t.stream_id, unread_message_ids: t.unread_message_ids }));
	const pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }> = [];
	const huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }> = [];
	for (const [recipient, ids] of conversations) {
		const users = usersOf.get(recipient);
		if (!users) continue;
		if (users.length <= 2) {
			const other = users.find((u) => u !== userId) ?? userId;
			pms.push({ other_user_id: other, sender_id: other, unread_message_ids: ids });
		} else {
			huddles.push({ user_ids_string: [...users].sort((a, b) => a - b).join(","), unread_message_ids: ids });
		}
	}
	return {
		count: rows.length,
		pms,
		streams,
		huddles,
		mentions,
		old_unreads_missing: missing,
	};
}
