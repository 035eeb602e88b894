// What a weekly digest says of channel traffic (Zulip's get_recent_topics): every topic of the
// given channels with messages since the cutoff, with its messages counted by sender, and the
// first messages of the topics a digest shows. Bounded by the period, not the history: the first
// message after the cutoff is found by a binary search over IDs (they increase in send order),
// then one aggregation over { channel_id, _id } groups the period's messages by topic and sender.
import type { DigestSample, DigestTopicRef, DigestTopicStats } from "../../shared/digest";
import type { MessagesDb } from "./db";

/** Zulip's sample_messages: the first two messages of a topic in the period. */
export const SAMPLE_MESSAGES = 2;

/** The smallest message ID sent after `cutoff` (UNIX seconds), or null when none was. */
async function firstIdAfter(db: MessagesDb, cutoff: number): Promise<number | null> {
	const last = await db.Message.findOne({ _id: { $gt: 0 } }, { timestamp: 1 }).sort({ _id: -1 }).lean();
	if (!last || last.timestamp <= cutoff) return null;
	// The first message at or after `id` was sent after the cutoff: true from some ID on.
	const after = async (id: number) => (await db.Message.findOne({ _id: { $gte: id } }, { timestamp: 1 }).sort({ _id: 1 }).lean())!.timestamp > cutoff;
	let lo = 1;
	let hi = last._id;
	while (lo < hi) {
		const mid = Math.floor((lo + hi) / 2);
		if (await after(mid)) hi = mid;
		else lo = mid + 1;
	}
	return lo;
}

/** The period's topics in these channels, oldest first. */
export async function digestTopics(db: MessagesDb, channelIds: number[], cutoff: number): Promise<DigestTopicStats[]> {
	if (!channelIds.length) return [];
	const from = await firstIdAfter(db, cutoff);
	if (from === null) return [];
	const rows: Array<{ _id: { c: number; t: string; s: number }; n: number; first: number }> = await db.Message.aggregate([
		{ $match: { channel_id: { $in: channelIds }, _id: { $gte: from }, timestamp: { $gt: cutoff } } },
		{ $group: { _id: { c: "$channel_id", t: "$topic_key", s: "$sender_id" }, n: { $sum: 1 }, first: { $min: "$_id" } } },
	]);
	const topics = new Map<string, DigestTopicStats>();
	for (const r of rows) {
		const key = JSON.stringify([r._id.c, r._id.t]);
		const t = topics.get(key) ?? { channel_id: r._id.c, topic_key: r._id.t, first_id: r.first, senders: [] };
		t.first_id = Math.min(t.first_id, r.first);
		t.senders.push([r._id.s, r.n]);
		topics.set(key, t);
	}
	return [...topics.values()].sort((a, b) => a.first_id - b.first_id);
}

/** The first messages of each topic from its `first_id` on. */
export async function digestSamples(db: MessagesDb, topics: DigestTopicRef[]): Promise<DigestSample[]> {
	return Promise.all(
		topics.map(async (t) => {
			const docs = await db.Message.find({ channel_id: t.channel_id, topic_key: t.topic_key, _id: { $gte: t.first_id } }, { sender_id: 1, topic: 1, content: 1, rendered_content: 1 })
				.sort({ _id: 1 })
				.limit(SAMPLE_MESSAGES)
				.lean();
			return {
				channel_id: t.channel_id,
				topic_key: t.topic_key,
				topic: docs[0]?.topic ?? "",
				messages: docs.map((m) => ({ id: m._id, sender_id: m.sender_id, content: m.content, rendered_content: m.rendered_content })),
			};
		}),
	);
}
