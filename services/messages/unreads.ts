// The unread_msgs part of POST /register: the caller's newest unread messages (at most
// MAX_UNREADS, as Zulip's MAX_UNREAD_MESSAGES, with old_unreads_missing set when there are more),
// grouped by channel and topic, by one-to-one and by group direct conversation, and the unread
// mentions.
//
// Bounded, indexed queries, whatever the history: the user's unread rows newest first
// ({ user_id, message_id }), grouped by the store by conversation (channel and topic key, or
// recipient), so what crosses to this service is an ID list per conversation, not a document per
// message; the unread mentions among them ({ user_id, flags, message_id }); then one name per
// topic (the topic as its oldest unread message spells it, as Zulip shows it) by _id, and the
// participants of each direct conversation by recipient _id. Those two grow with the number of
// conversations, not of messages.
import type { MessagesDb } from "./db";

export const MAX_UNREADS = 50_000;
const MENTION_FLAGS = ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"];

interface Conversation {
	_id: { c: number | null; t: string; r: number };
	ids: number[];
}

export async function unreadMessages(db: MessagesDb, userId: number, showTopic: (t: string) => string): Promise<Record<string, unknown>> {
	const groups: Conversation[] = await db.UserMessage.aggregate([
		{ $match: { user_id: userId, flags: { $ne: "read" } } },
		{ $sort: { message_id: -1 } },
		{ $limit: MAX_UNREADS + 1 },
		{ $group: { _id: { c: "$channel_id", t: "$topic_key", r: "$recipient_id" }, ids: { $push: "$message_id" } } },
	]);
	for (const g of groups) g.ids.sort((a, b) => a - b);
	let count = groups.reduce((n, g) => n + g.ids.length, 0);
	const missing = count > MAX_UNREADS;
	if (missing) {
		// One more than the cap was read to know there are more: the oldest goes.
		const oldest = groups.reduce((o, g) => (g.ids[0] < o.ids[0] ? g : o));
		oldest.ids.shift();
		count--;
	}
	// Conversations in the order of their oldest unread message, as Zulip lists them.
	const kept = groups.filter((g) => g.ids.length).sort((a, b) => a.ids[0] - b.ids[0]);
	const oldestKept = kept.length ? kept[0].ids[0] : 0;
	const mentions = kept.length
		? (await db.UserMessage.find({ user_id: userId, flags: { $in: MENTION_FLAGS, $ne: "read" }, message_id: { $gte: oldestKept } }, { _id: 0, message_id: 1 }).sort({ message_id: 1 }).lean()).map((r) => r.message_id)
		: [];

	const topics = kept.filter((g) => g._id.c !== null).map((g) => ({ first: g.ids[0], stream_id: g._id.c!, unread_message_ids: g.ids }));
	const conversations = new Map(kept.filter((g) => g._id.c === null).map((g) => [g._id.r, g.ids]));
	const [names, participants] = await Promise.all([
		topics.length ? db.Message.find({ _id: { $in: topics.map((t) => t.first) } }, { topic: 1 }).lean() : [],
		conversations.size ? db.Recipient.find({ _id: { $in: [...conversations.keys()] } }, { user_ids: 1 }).lean() : [],
	]);
	const topicOf = new Map(names.map((m) => [m._id, m.topic]));
	const usersOf = new Map(participants.map((r) => [r._id, r.user_ids]));

	const streams = topics
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
		count,
		pms,
		streams,
		huddles,
		mentions,
		old_unreads_missing: missing,
	};
}
