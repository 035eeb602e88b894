// POST /streams/{stream_id}/delete_topic: deleting a channel topic's messages, newest first, a
// bounded batch per request, as Zulip's delete_in_topic (which answers `complete: false` when
// its time runs out and the client repeats the request).
//
// Who: organization administrators (Zulip's require_realm_admin; the route's `admin` flag), with
// content access to the channel, which must not be archived (access_stream_by_id), else "Invalid
// channel ID". Which messages: the topic's (case aside, as Zulip's subject__iexact) that the
// caller may read: all of them where the history is open to subscribers, else only those the
// caller received (Zulip's bulk_access_stream_messages_query). Once the topic is done (`complete`),
// the users' policies for it (muted, followed...) go, as in Zulip's delete_in_topic: where the
// history is protected, only of those who no longer have any of its messages.
import type { Identity } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import { topicForClient } from "../../shared/topics";
import type { MessagesDb } from "./db";
import { deleteMessages, holdersOf } from "./edit-rules";

/**
 * Decision: one request deletes at most 1,000 messages (Zulip deletes batches of 100 for up to
 * 50 s). A fixed count bounds each request's work and its one delete_message event whatever the
 * machine's speed, and the answer is the same on every machine: `complete` is false exactly when
 * more of the topic remain after the batch.
 */
export const DELETE_TOPIC_BATCH = 1000;

export interface TopicChannel {
	channel_id: number;
	content_access: boolean;
	is_archived: boolean;
	history_public_to_subscribers: boolean;
}

/** The channel as delete_topic may use it: content access, not archived. */
export function checkTopicChannel(channel: TopicChannel | null): TopicChannel {
	if (!channel || !channel.content_access || channel.is_archived) throw badRequest("Invalid channel ID");
	return channel;
}

/** The topic's newest messages the caller may delete (one batch), and whether more remain. */
async function nextBatch(db: MessagesDb, actor: Identity, channel: TopicChannel, topicKey: string): Promise<{ ids: number[]; more: boolean }> {
	const limit = DELETE_TOPIC_BATCH + 1;
	const ids = channel.history_public_to_subscribers
		? (await db.Message.find({ channel_id: channel.channel_id, topic_key: topicKey }, { _id: 1 }).sort({ _id: -1 }).limit(limit).lean()).map((m) => m._id)
		: (await db.UserMessage.find({ user_id: actor.user_id, channel_id: channel.channel_id, topic_key: topicKey }, { message_id: 1 }).sort({ message_id: -1 }).limit(limit).lean()).map((r) => r.message_id);
	return { ids: ids.slice(0, DELETE_TOPIC_BATCH), more: ids.length > DELETE_TOPIC_BATCH };
}

/**
 * Deletes one batch of the topic (newest first) and answers what `messages.deleted` carries for
 * it (null when the topic had nothing left to delete) and whether the topic is now gone.
 */
export async function deleteTopicBatch(db: MessagesDb, actor: Identity, channel: TopicChannel, topic: string, emptyTopicName: string) {
	const { ids, more } = await nextBatch(db, actor, channel, topic.toLowerCase());
	if (!ids.length) return { deleted: null, complete: true };
	// The topic as the newest message spells it (Zulip's sample message of the batch).
	const sample = await db.Message.findOne({ _id: ids[0] }, { topic: 1 }).lean();
	// Everyone who had any of them hears of it, and the deleting user always (as a single delete).
	const holders = new Set(await holdersOf(db, ids));
	holders.add(actor.user_id);
	await deleteMessages(db, ids);
	const deleted = {
		message_ids: ids.sort((a, b) => a - b),
		channel_id: channel.channel_id,
		message_type: "stream",
		stream_id: channel.channel_id,
		topic: topicForClient(sample?.topic ?? topic, false, emptyTopicName),
		user_ids: [...holders].sort((a, b) => a - b),
	};
	return { deleted, complete: !more };
}

/**
 * Of the users with a policy for the deleted topic, those whose policy goes: all of them, but where
 * the history is protected, not those who still have some of the topic's messages (the deleting
 * administrator could not read them all), as Zulip's delete_in_topic.
 */
export async function stalePolicyUsers(db: MessagesDb, channel: TopicChannel, topic: string, userIds: number[]): Promise<number[]> {
	if (channel.history_public_to_subscribers || !userIds.length) return userIds;
	const holding = new Set(await db.UserMessage.distinct("user_id", { user_id: { $in: userIds }, channel_id: channel.channel_id, topic_key: topic.toLowerCase() }));
	return userIds.filter((u) => !holding.has(u));
}
