// Per-user topic visibility (mute, unmute, follow): POST /user_topics and the older
// PATCH /users/me/subscriptions/muted_topics, with the empty-topic naming rules.
import { topicForClient as showTopic, topicFromClient as readTopic } from "../../shared/topics";
import { badRequest } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import { clock } from "../../shared/clock";
import { LIMITS } from "../../shared/version";
import type { ChannelsDb } from "./db";
import { userTopicKey } from "./models/user-topic";
import { upsertRetrying } from "../../shared/db";
import type { UserTopicChanged } from "../../shared/org-events";

/** A topic from a client, with the empty topic's names read as "" (shared/topics.ts). */
export function topicFromClient(graph: GroupGraph, raw: string): string {
	const t = readTopic(raw, graph.emptyTopicDisplayName);
	if (t.length > LIMITS.max_topic_length) throw badRequest(`Topic too long (limit: ${LIMITS.max_topic_length} characters)`);
	return t;
}

/** What a client that does not handle the empty topic sees in its place. */
export function topicForClient(graph: GroupGraph, topic: string, allowEmpty: boolean): string {
	return showTopic(topic, allowEmpty, graph.emptyTopicDisplayName);
}

/**
 * Sets a policy; 0 (none) removes the row. Idempotent: setting the same policy again succeeds.
 * Returns the change as the `user_topic` event tells it (the topic as stored).
 */
export async function setVisibility(db: ChannelsDb, userId: number, channelId: number, topic: string, policy: number): Promise<UserTopicChanged> {
	const _id = userTopicKey(userId, channelId, topic);
	const last_updated = clock.now();
	const change = { user_id: userId, channel_id: channelId, topic, visibility_policy: policy, last_updated };
	if (policy === 0) {
		await db.UserTopic.deleteOne({ _id });
		return change;
	}
	await upsertRetrying(() =>
		db.UserTopic.updateOne({ _id }, { $set: { user_id: userId, channel_id: channelId, topic, visibility_policy: policy, last_updated } }, { upsert: true }),
	);
	return change;
}

