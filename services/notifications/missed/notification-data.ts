// Who a sent message notifies, and why: Zulip's UserMessageNotificationsData
// (zerver/lib/notification_data.py) with the user-ID sets get_recipient_info builds for it
// (zerver/actions/message_send.py), as pure functions. No I/O: the caller reads the facts (one
// call per service per message) and says who is idle.
//
// API, for email and push alike:
//   notificationData(message, recipient)    -> the per-recipient booleans (Zulip's dataclass)
//   emailTrigger(data, senderId, idle)       -> Zulip's get_email_notification_trigger, or null
//   pushTrigger(data, senderId, idle)        -> Zulip's get_push_notification_trigger, or null
//   isNotifiable(data, senderId)             -> would notify if idle (who needs a presence check)
//   decide(message, recipients, idle)        -> per recipient { email, push } (null: none)
//   decideEdit(message, recipients, idle)    -> the same for users an edit newly mentions
// Idle (decided in missed/recipients.ts, written down in docs/email.md): no active presence within
// OFFLINE_THRESHOLD_SECS. Email needs idle; push needs idle or enable_online_push_notifications.

/** Zulip's NotificationTriggers values, most salient first as Zulip orders them. */
export type NotificationTrigger =
	| "private_message"
	| "mentioned"
	| "topic_wildcard_mentioned_in_followed_topic"
	| "stream_wildcard_mentioned_in_followed_topic"
	| "topic_wildcard_mentioned"
	| "stream_wildcard_mentioned"
	| "followed_topic_email_notify"
	| "followed_topic_push_notify"
	| "stream_email_notify"
	| "stream_push_notify";

/** The personal settings the decision reads (users service names, defaults filled in). */
export const NOTIFICATION_SETTINGS = [
	"enable_offline_email_notifications",
	"enable_offline_push_notifications",
	"enable_online_push_notifications",
	"enable_stream_email_notifications",
	"enable_stream_push_notifications",
	"wildcard_mentions_notify",
	"enable_followed_topic_email_notifications",
	"enable_followed_topic_push_notifications",
	"enable_followed_topic_wildcard_mentions_notify",
] as const;

export type NotificationSettings = Record<(typeof NOTIFICATION_SETTINGS)[number], boolean>;

/** A subscription's notification properties (null: the user's global setting). */
export interface SubscriptionNotify {
	is_muted: boolean;
	email_notifications: boolean | null;
	push_notifications: boolean | null;
	wildcard_mentions_notify: boolean | null;
}

/** Zulip's UserTopic visibility policies. */
export const Visibility = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export interface MessageFacts {
	sender_id: number;
	/** A direct message (one-on-one or group): Zulip's private_message. */
	direct: boolean;
}

export interface RecipientFacts {
	user_id: number;
	is_bot: boolean;
	/** The recipient's flags on the message (mentioned, stream_wildcard_mentioned, ...). */
	flags: readonly string[];
	settings: NotificationSettings;
	/** Channel messages: the recipient's subscription, null when none (not subscribed). */
	subscription: SubscriptionNotify | null;
	/** Channel messages: the recipient's policy for the topic (Visibility). */
	visibility_policy: number;
	/** The recipient muted the sender. */
	sender_muted: boolean;
}

/** Zulip's UserMessageNotificationsData, field for field (disable_external_notifications is never set here). */
export interface NotificationData {
	user_id: number;
	online_push_enabled: boolean;
	dm_email_notify: boolean;
	dm_push_notify: boolean;
	mention_email_notify: boolean;
	mention_push_notify: boolean;
	topic_wildcard_mention_email_notify: boolean;
	topic_wildcard_mention_push_notify: boolean;
	stream_wildcard_mention_email_notify: boolean;
	stream_wildcard_mention_push_notify: boolean;
	stream_push_notify: boolean;
	stream_email_notify: boolean;
	followed_topic_push_notify: boolean;
	followed_topic_email_notify: boolean;
	topic_wildcard_mention_in_followed_topic_push_notify: boolean;
	topic_wildcard_mention_in_followed_topic_email_notify: boolean;
	stream_wildcard_mention_in_followed_topic_push_notify: boolean;
	stream_wildcard_mention_in_followed_topic_email_notify: boolean;
	sender_is_muted: boolean;
}

/**
 * Zulip's user_allows_notifications_in_StreamTopic: a muted channel silences unless the topic is
 * unmuted, a muted topic silences, then the subscription's own setting, then the user's.
 */
export function allowsInTopic(channelMuted: boolean, policy: number, channelSetting: boolean | null, globalSetting: boolean): boolean {
	if (channelMuted && policy !== Visibility.UNMUTED) return false;
	if (policy === Visibility.MUTED) return false;
	return channelSetting ?? globalSetting;
}

const NOTHING: Omit<NotificationData, "user_id"> = {
	online_push_enabled: false,
	dm_email_notify: false,
	dm_push_notify: false,
	mention_email_notify: false,
	mention_push_notify: false,
	topic_wildcard_mention_email_notify: false,
	topic_wildcard_mention_push_notify: false,
	stream_wildcard_mention_email_notify: false,
	stream_wildcard_mention_push_notify: false,
	stream_push_notify: false,
	stream_email_notify: false,
	followed_topic_push_notify: false,
	followed_topic_email_notify: false,
	topic_wildcard_mention_in_followed_topic_push_notify: false,
	topic_wildcard_mention_in_followed_topic_email_notify: false,
	stream_wildcard_mention_in_followed_topic_push_notify: false,
	stream_wildcard_mention_in_followed_topic_email_notify: false,
	sender_is_muted: false,
};

/** Zulip's from_user_id_sets, with each set's membership worked out from the recipient's facts. */
export function notificationData(message: MessageFacts, r: RecipientFacts): NotificationData {
	// Bots are never notified.
	if (r.is_bot) return { user_id: r.user_id, ...NOTHING };
	const s = r.settings;
	const has = (flag: string) => r.flags.includes(flag);
	const sub = message.direct ? null : r.subscription;
	const policy = r.visibility_policy;
	const followed = !message.direct && policy === Visibility.FOLLOWED;
	// The channel-level sets: only for a subscriber of the channel.
	const inTopic = (channelSetting: keyof Omit<SubscriptionNotify, "is_muted">, global: boolean) => !!sub && allowsInTopic(sub.is_muted, policy, sub[channelSetting], global);
	const wildcardOk = inTopic("wildcard_mentions_notify", s.wildcard_mentions_notify);
	const followedWildcardOk = followed && s.enable_followed_topic_wildcard_mentions_notify;
	// Direct messages and mentions obey the offline settings (Zulip's dm_mention_*_disabled_user_ids).
	const email = s.enable_offline_email_notifications;
	const push = s.enable_offline_push_notifications;
	const topicWild = has("topic_wildcard_mentioned");
	const streamWild = has("stream_wildcard_mentioned");
	return {
		user_id: r.user_id,
		online_push_enabled: s.enable_online_push_notifications,
		dm_email_notify: email && message.direct,
		dm_push_notify: push && message.direct,
		mention_email_notify: email && has("mentioned"),
		mention_push_notify: push && has("mentioned"),
		topic_wildcard_mention_email_notify: wildcardOk && email && topicWild,
		topic_wildcard_mention_push_notify: wildcardOk && push && topicWild,
		stream_wildcard_mention_email_notify: wildcardOk && email && streamWild,
		stream_wildcard_mention_push_notify: wildcardOk && push && streamWild,
		stream_push_notify: inTopic("push_notifications", s.enable_stream_push_notifications),
		stream_email_notify: inTopic("email_notifications", s.enable_stream_email_notifications),
		followed_topic_push_notify: followed && s.enable_followed_topic_push_notifications,
		followed_topic_email_notify: followed && s.enable_followed_topic_email_notifications,
		topic_wildcard_mention_in_followed_topic_push_notify: followedWildcardOk && push && topicWild,
		topic_wildcard_mention_in_followed_topic_email_notify: followedWildcardOk && email && topicWild,
		stream_wildcard_mention_in_followed_topic_push_notify: followedWildcardOk && push && streamWild,
		stream_wildcard_mention_in_followed_topic_email_notify: followedWildcardOk && email && streamWild,
		sender_is_muted: r.sender_muted,
	};
}

/** Zulip's trivially_should_not_notify: never the sender, never from a muted sender. */
const triviallyNot = (d: NotificationData, senderId: number) => d.user_id === senderId || d.sender_is_muted;

type Flag = Exclude<keyof NotificationData, "user_id">;

/** Zulip's order of salience: [email field, push field, email trigger, push trigger]. */
const LADDER: Array<[Flag, Flag, NotificationTrigger, NotificationTrigger]> = [
	["dm_email_notify", "dm_push_notify", "private_message", "private_message"],
	["mention_email_notify", "mention_push_notify", "mentioned", "mentioned"],
	["topic_wildcard_mention_in_followed_topic_email_notify", "topic_wildcard_mention_in_followed_topic_push_notify", "topic_wildcard_mentioned_in_followed_topic", "topic_wildcard_mentioned_in_followed_topic"],
	["stream_wildcard_mention_in_followed_topic_email_notify", "stream_wildcard_mention_in_followed_topic_push_notify", "stream_wildcard_mentioned_in_followed_topic", "stream_wildcard_mentioned_in_followed_topic"],
	["topic_wildcard_mention_email_notify", "topic_wildcard_mention_push_notify", "topic_wildcard_mentioned", "topic_wildcard_mentioned"],
	["stream_wildcard_mention_email_notify", "stream_wildcard_mention_push_notify", "stream_wildcard_mentioned", "stream_wildcard_mentioned"],
	["followed_topic_email_notify", "followed_topic_push_notify", "followed_topic_email_notify", "followed_topic_push_notify"],
	["stream_email_notify", "stream_push_notify", "stream_email_notify", "stream_push_notify"],
];

/** Zulip's get_email_notification_trigger: only for an idle recipient. */
export function emailTrigger(d: NotificationData, senderId: number, idle: boolean): NotificationTrigger | null {
	if (!idle || triviallyNot(d, senderId)) return null;
	return LADDER.find(([email]) => d[email])?.[2] ?? null;
}

/** Zulip's get_push_notification_trigger: for an idle recipient, or any with online push on. */
export function pushTrigger(d: NotificationData, senderId: number, idle: boolean): NotificationTrigger | null {
	if ((!idle && !d.online_push_enabled) || triviallyNot(d, senderId)) return null;
	return LADDER.find(([, push]) => d[push])?.[3] ?? null;
}

/** Zulip's is_notifiable(idle=True): whether the recipient's idleness matters at all. */
export const isNotifiable = (d: NotificationData, senderId: number) => emailTrigger(d, senderId, true) !== null || pushTrigger(d, senderId, true) !== null;

export interface Decision {
	email: NotificationTrigger | null;
	push: NotificationTrigger | null;
}

export type Decide = (message: MessageFacts, recipients: RecipientFacts[], idle: (userId: number) => boolean) => Map<number, Decision>;

/**
 * The decision for every recipient (those with neither trigger left out). `idle(user_id)` is
 * asked only for recipients the message would notify if they were idle, as Zulip's
 * get_active_presence_idle_user_ids asks presence only about those.
 */
export const decide: Decide = (message, recipients, idle) => {
	const out = new Map<number, Decision>();
	for (const r of recipients) {
		const d = notificationData(message, r);
		if (!isNotifiable(d, message.sender_id)) continue;
		const away = idle(r.user_id);
		const decision = { email: emailTrigger(d, message.sender_id, away), push: pushTrigger(d, message.sender_id, away) };
		if (decision.email || decision.push) out.set(r.user_id, decision);
	}
	return out;
};

/**
 * The decision for users a content edit newly mentions (the caller leaves out those mentioned
 * before it: Zulip's prior_mention_user_ids): Zulip's maybe_enqueue_notifications_for_message_update.
 * Never for a direct message (the original notified already); never for a user whose channel or
 * followed-topic settings notify of every message (assumed notified of the original); then as for
 * a new message (a muted sender, the editor, bots: nothing).
 */
export const decideEdit: Decide = (message, recipients, idle) => {
	if (message.direct) return new Map();
	const notifiedBefore = (d: NotificationData) => d.stream_push_notify || d.stream_email_notify || d.followed_topic_push_notify || d.followed_topic_email_notify;
	return decide(
		message,
		recipients.filter((r) => !notifiedBefore(notificationData(message, r))),
		idle,
	);
};
