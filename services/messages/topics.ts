// GET /users/me/{stream_id}/topics: a channel's topics, each with the ID of its newest message the
// caller may see, newest first. Where the channel's whole history is open to the caller, every
// message counts; otherwise only those the caller received (as Zulip's topic history).
//
// No message is loaded beyond one per topic: the topics are walked down their index, each step
// one query for the next lower topic key's newest entry. Queries:
//   whole history   -> messages { channel_id, topic_key, _id }, sorted by both descending
//   received only   -> user_messages { user_id, channel_id, topic_key, message_id }, likewise
//   the topic names -> messages by _id (the name is the newest message's spelling, as in Zulip)
import type { MessagesDb } from "./db";

export interface ChannelTopic {
	/** As stored: the empty topic is "". */
	topic: string;
	max_id: number;
}

interface TopicIndex {
	find(filter: object, projection: object): { sort(s: object): { limit(n: number): { lean(): Promise<Array<Record<string, unknown>>> } } };
}

/** The newest entry of each topic key under `base`, from the highest key down. */
async function newestPerTopic(model: unknown, base: Record<string, unknown>, idField: string): Promise<number[]> {
	const index = model as TopicIndex;
	const ids: number[] = [];
	let below: string | undefined;
	for (;;) {
		const filter = below === undefined ? base : { ...base, topic_key: { $lt: below } };
		const [doc] = await index
			.find(filter, { topic_key: 1, [idField]: 1 })
			.sort({ topic_key: -1, [idField]: -1 })
			.limit(1)
			.lean();
		if (!doc) return ids;
		ids.push(doc[idField] as number);
		below = doc.topic_key as string;
		// The empty topic's key sorts first: nothing is below it.
		if (below === "") return ids;
	}
}

export async function channelTopics(db: MessagesDb, userId: number, channelId: number, wholeHistory: boolean): Promise<ChannelTopic[]> {
	const ids = wholeHistory
		? await newestPerTopic(db.Message, { channel_id: channelId }, "_id")
		: await newestPerTopic(db.UserMessage, { user_id: userId, channel_id: channelId }, "message_id");
	if (!ids.length) return [];
	const messages = await db.Message.find({ _id: { $in: ids } }, { topic: 1 }).lean();
	return messages.map((m) => ({ topic: m.topic, max_id: m._id })).sort((a, b) => b.max_id - a.max_id);
}
