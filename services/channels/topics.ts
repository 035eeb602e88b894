// Per-user topic visibility (mute, unmute, follow): POST /user_topics and the older
// PATCH /users/me/subscriptions/muted_topics, with the empty-topic naming rules; the automatic
// follow and unmute the messages service asks for.
import { topicForClient as showTopic, topicFromClient as readTopic } from "../../shared/topics";
import { badRequest } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import { clock } from "../../shared/clock";
import { LIMITS } from "../../shared/version";
import type { ChannelsDb } from "./db";
import { userTopicKey, VisibilityPolicy } from "./models/user-topic";
import { subscriptionKey } from "./models/subscription";
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

/** The `user_topic` event's payload, with the organization's name for the empty topic. */
export const topicChange = (graph: GroupGraph, change: UserTopicChanged): UserTopicChanged => ({ ...change, empty_topic_display_name: graph.emptyTopicDisplayName });

/**
 * Follows `followIds` and unmutes `unmuteIds` in a topic, as their settings asked. Zulip's rules:
 * following replaces any other policy; unmuting applies only in a channel the user muted, to a
 * topic neither followed nor unmuted. Returns the policies that changed.
 */
export async function autoVisibility(db: ChannelsDb, channelId: number, topic: string, followIds: number[], unmuteIds: number[]): Promise<UserTopicChanged[]> {
	const follow = new Set(followIds);
	const userIds = [...new Set([...follow, ...unmuteIds])];
	const [topics, mutedSubs] = await Promise.all([
		db.UserTopic.find({ _id: { $in: userIds.map((u) => userTopicKey(u, channelId, topic)) } }, { user_id: 1, visibility_policy: 1 }).lean(),
		db.Subscription.find({ _id: { $in: unmuteIds.map((u) => subscriptionKey(u, channelId)) }, is_muted: true }, { user_id: 1 }).lean(),
	]);
	const current = new Map(topics.map((t) => [t.user_id, t.visibility_policy]));
	const muted = new Set(mutedSubs.map((s) => s.user_id));
	const changed: UserTopicChanged[] = [];
	for (const userId of userIds) {
		const now = current.get(userId) ?? VisibilityPolicy.NONE;
		let next: number | undefined;
		if (follow.has(userId)) next = VisibilityPolicy.FOLLOWED;
		else if (muted.has(userId) && now !== VisibilityPolicy.FOLLOWED) next = VisibilityPolicy.UNMUTED;
		if (next === undefined || next === now) continue;
		changed.push(await setVisibility(db, userId, channelId, topic, next));
	}
	return changed;
}

/** The users with a policy for a topic of a channel (the topic's case aside), as Zulip's get_users_with_user_topic_visibility_policy. */
export async function topicPolicyUsers(db: ChannelsDb, channelId: number, topic: string): Promise<number[]> {
	const key = topic.toLowerCase();
	const rows = await db.UserTopic.find({ channel_id: channelId }, { user_id: 1, topic: 1 }).lean();
	return rows.filter((r) => r.topic.toLowerCase() === key).map((r) => r.user_id);
}

/**
 * Removes these users' policies for a topic (back to inheriting the channel's), as Zulip's
 * bulk_do_set_user_topic_visibility_policy with INHERIT: one time for all, and a change only for
 * those who had a row, with the topic as the caller named it.
 */
export async function clearTopicPolicies(db: ChannelsDb, channelId: number, topic: string, userIds: number[]): Promise<UserTopicChanged[]> {
	const ids = userIds.map((u) => userTopicKey(u, channelId, topic));
	const rows = await db.UserTopic.find({ _id: { $in: ids } }, { user_id: 1 }).lean();
	if (!rows.length) return [];
	await db.UserTopic.deleteMany({ _id: { $in: rows.map((r) => r._id) } });
	const last_updated = clock.now();
	return rows
		.map((r) => r.user_id)
		.sort((a, b) => a - b)
		.map((user_id) => ({ user_id, channel_id: channelId, topic, visibility_policy: VisibilityPolicy.NONE, last_updated }));
}
