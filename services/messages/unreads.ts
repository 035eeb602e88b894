// The unread_msgs part of POST /register: the caller's newest unread messages, grouped by
// channel and topic, by one-to-one and by group direct conversation, and the unread mentions.
import type { MessagesDb } from "./db";

export const MAX_UNREADS = 50_000;
const MENTION_FLAGS = new Set(["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"]);

export async function unreadMessages(db: MessagesDb, userId: number, showTopic: (t: string) => string): Promise<Record<string, unknown>> {
	const rows = await db.UserMessage.find({ user_id: userId, flags: { $ne: "read" } }, { message_id: 1, flags: 1 })
		.sort({ message_id: -1 })
		.limit(MAX_UNREADS + 1)
		.lean();
	const missing = rows.length > MAX_UNREADS;
	const kept = rows.slice(0, MAX_UNREADS).reverse();
	const messages = new Map(
		(await db.Message.find({ _id: { $in: kept.map((r) => r.message_id) } }, { channel_id: 1, topic: 1, dm_user_ids: 1, sender_id: 1 }).lean()).map((m) => [m._id, m]),
	);
	const streams = new Map<string, { topic: string; stream_id: number; unread_message_ids: number[] }>();
	const pms = new Map<number, { other_user_id: number; sender_id: number; unread_message_ids: number[] }>();
	const huddles = new Map<string, { user_ids_string: string; unread_message_ids: number[] }>();
	const mentions: number[] = [];
	for (const r of kept) {
		const m = messages.get(r.message_id);
		if (!m) continue;
		if (r.flags.some((f) => MENTION_FLAGS.has(f))) mentions.push(m._id);
		if (m.channel_id !== null) {
			const key = `${m.channel_id}\n${m.topic.toLowerCase()}`;
			const entry = streams.get(key) ?? { topic: showTopic(m.topic), stream_id: m.channel_id, unread_message_ids: [] };
			entry.unread_message_ids.push(m._id);
			streams.set(key, entry);
		} else if (m.dm_user_ids.length <= 2) {
			const other = m.dm_user_ids.find((u) => u !== userId) ?? userId;
			const entry = pms.get(other) ?? { other_user_id: other, sender_id: other, unread_message_ids: [] };
			entry.unread_message_ids.push(m._id);
			pms.set(other, entry);
		} else {
			const key = m.dm_user_ids.join(",");
			const entry = huddles.get(key) ?? { user_ids_string: key, unread_message_ids: [] };
			entry.unread_message_ids.push(m._id);
			huddles.set(key, entry);
		}
	}
	return {
		count: kept.length,
		pms: [...pms.values()],
		streams: [...streams.values()],
		huddles: [...huddles.values()],
		mentions,
		old_unreads_missing: missing,
	};
}
