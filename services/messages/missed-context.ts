// The earlier messages a missed-message email quotes beside a channel topic's missed ones (Zulip's
// get_context_for_message, as handle_missedmessage_emails uses it): for each channel topic among
// the messages a user is told of, the earliest one's context is the same channel and topic (case
// aside), earlier IDs, sent less than 15 minutes before it, the newest 10, of those the user may
// read. For a sweep's users at once: one query per distinct earliest message (many users share
// them), served by the { channel_id, topic_key, _id } index, and one query for the users' rows.
//
// Decision: "may read" is "received it" (a row), where Zulip's bulk_access_messages also lets in
// messages a subscriber could read through the channel's shared history without having received
// them (subscribed within the quarter hour): asking about every user's channel access here would
// cost a channels call per sweep for a case that rarely has anything to show.
import type { MessagesDb } from "./db";
import type { MessageDoc } from "./models/message";

/** Zulip's window (date_sent within 15 minutes before) and count (the newest 10). */
export const CONTEXT_SECONDS = 15 * 60;
export const CONTEXT_MAX = 10;
/** Context queries in flight at once. */
const PARALLEL = 10;

/** The earliest message of each channel topic among these (by ID: IDs increase in send order). */
function earliestPerTopic(messages: MessageDoc[]): MessageDoc[] {
	const earliest = new Map<string, MessageDoc>();
	for (const m of messages) {
		if (m.channel_id === null) continue;
		const key = `${m.channel_id}:${m.topic_key}`;
		const seen = earliest.get(key);
		if (!seen || m._id < seen._id) earliest.set(key, m);
	}
	return [...earliest.values()];
}

/** Of each user's missed messages (`told`), the context message IDs their emails quote (ascending). */
export async function missedContext(db: MessagesDb, told: Map<number, MessageDoc[]>): Promise<Map<number, number[]>> {
	const anchorsOf = new Map([...told].map(([userId, messages]) => [userId, earliestPerTopic(messages)]));
	const anchors = new Map([...anchorsOf.values()].flat().map((m) => [m._id, m]));
	const before = new Map<number, number[]>();
	const list = [...anchors.values()];
	for (let i = 0; i < list.length; i += PARALLEL) {
		await Promise.all(
			list.slice(i, i + PARALLEL).map(async (a) => {
				const found = await db.Message.find({ channel_id: a.channel_id, topic_key: a.topic_key, _id: { $lt: a._id }, timestamp: { $gt: a.timestamp - CONTEXT_SECONDS } }, { _id: 1 })
					.sort({ _id: -1 })
					.limit(CONTEXT_MAX)
					.lean();
				before.set(a._id, found.map((m) => m._id));
			}),
		);
	}
	const wanted = [...new Set([...before.values()].flat())];
	if (!wanted.length) return new Map();
	const rows = await db.UserMessage.find({ user_id: { $in: [...told.keys()] }, message_id: { $in: wanted } }, { user_id: 1, message_id: 1 }).lean();
	const received = new Set(rows.map((r) => `${r.user_id}:${r.message_id}`));
	const out = new Map<number, number[]>();
	for (const [userId, theirs] of anchorsOf) {
		const ids = [...new Set(theirs.flatMap((a) => before.get(a._id) ?? []))].filter((id) => received.has(`${userId}:${id}`)).sort((x, y) => x - y);
		if (ids.length) out.set(userId, ids);
	}
	return out;
}
