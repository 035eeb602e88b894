// What the notifications service reads of a channel message's recipients, once per message: their
// subscriptions' notification settings and their policies for the topic (Zulip's
// get_recipient_info reads the same from Subscription and UserTopic).
import type { ChannelNotifyFacts } from "../../shared/notification-facts";
import type { ChannelsDb } from "./db";
import { userTopicKey } from "./models/user-topic";

export async function channelNotifyFacts(db: ChannelsDb, channelId: number, topic: string, userIds: number[]): Promise<ChannelNotifyFacts> {
	const ids = [...new Set(userIds)];
	const [subs, topics] = await Promise.all([
		db.Subscription.find({ channel_id: channelId, active: true, user_id: { $in: ids } }, { user_id: 1, is_muted: 1, email_notifications: 1, push_notifications: 1, wildcard_mentions_notify: 1 }).lean(),
		db.UserTopic.find({ _id: { $in: ids.map((u) => userTopicKey(u, channelId, topic)) } }, { user_id: 1, visibility_policy: 1 }).lean(),
	]);
	return {
		subscriptions: Object.fromEntries(
			subs.map((s) => [
				String(s.user_id),
				{ is_muted: s.is_muted, email_notifications: s.email_notifications ?? null, push_notifications: s.push_notifications ?? null, wildcard_mentions_notify: s.wildcard_mentions_notify ?? null },
			]),
		),
		policies: Object.fromEntries(topics.map((t) => [String(t.user_id), t.visibility_policy])),
	};
}
