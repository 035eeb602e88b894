// POST /register's recent_private_conversations: the direct conversations of the user's newest
// direct messages, newest first, as Zulip reads them (its 1,000 most recent direct messages).
// Queries: the user's direct-message rows, newest first -> { user_id, channel_id, topic_key,
// message_id } (direct messages have no channel and the empty topic key); their conversations'
// participants -> Recipient by _id.
import type { MessagesDb } from "./db";

/** How many of the user's newest direct messages are read (Zulip's RECENT_CONVERSATIONS_LIMIT). */
export const RECENT_CONVERSATIONS_LIMIT = 1000;

export interface RecentConversation {
	/** The other participants, sorted; empty for the user's conversation with themself. */
	user_ids: number[];
	max_message_id: number;
}

export async function recentConversations(db: MessagesDb, userId: number): Promise<RecentConversation[]> {
	const rows = await db.UserMessage.find({ user_id: userId, channel_id: null, topic_key: "" }, { message_id: 1, recipient_id: 1 })
		.sort({ message_id: -1 })
		.limit(RECENT_CONVERSATIONS_LIMIT)
		.lean();
	// Newest first, so each conversation's first row holds its newest message.
	const newest = new Map<number, number>();
	for (const r of rows) if (!newest.has(r.recipient_id)) newest.set(r.recipient_id, r.message_id);
	if (!newest.size) return [];
	const recipients = await db.Recipient.find({ _id: { $in: [...newest.keys()] } }, { user_ids: 1 }).lean();
	const participants = new Map(recipients.map((r) => [r._id, r.user_ids]));
	return [...newest]
		.filter(([recipient]) => participants.has(recipient))
		.map(([recipient, max]) => ({
			user_ids: participants
				.get(recipient)!
				.filter((u) => u !== userId)
				.sort((a, b) => a - b),
			max_message_id: max,
		}));
}
