// Zulip's notification decision (services/notifications/missed/notification-data.ts): triggers in
// Zulip's order, the offline settings, channel and topic settings under muting, bots, muted
// senders, and idleness for email against online push.
import { decide, decideEdit, notificationData, emailTrigger, pushTrigger, Visibility, type NotificationSettings, type RecipientFacts } from "../../services/notifications/missed/notification-data";

const SETTINGS: NotificationSettings = {
	enable_offline_email_notifications: true,
	enable_offline_push_notifications: true,
	enable_online_push_notifications: true,
	enable_stream_email_notifications: false,
	enable_stream_push_notifications: false,
	wildcard_mentions_notify: true,
	enable_followed_topic_email_notifications: true,
	enable_followed_topic_push_notifications: true,
	enable_followed_topic_wildcard_mentions_notify: true,
};
const SUB = { is_muted: false, email_notifications: null, push_notifications: null, wildcard_mentions_notify: null };
const channel = { sender_id: 1, direct: false };
const dm = { sender_id: 1, direct: true };

const r = (o: Partial<Omit<RecipientFacts, "settings">> & { settings?: Partial<NotificationSettings> } = {}): RecipientFacts => ({
	user_id: 2,
	is_bot: false,
	flags: [],
	subscription: SUB,
	visibility_policy: Visibility.INHERIT,
	sender_muted: false,
	...o,
	settings: { ...SETTINGS, ...o.settings },
});
const email = (m: typeof channel, x: RecipientFacts, idle = true) => emailTrigger(notificationData(m, x), m.sender_id, idle);
const push = (m: typeof channel, x: RecipientFacts, idle = true) => pushTrigger(notificationData(m, x), m.sender_id, idle);

test("direct messages and mentions, for idle recipients, unless the offline setting is off", () => {
	expect(email(dm, r({ subscription: null }))).toBe("private_message");
	expect(email(dm, r({ subscription: null }), false)).toBeNull();
	expect(email(dm, r({ subscription: null, settings: { enable_offline_email_notifications: false } }))).toBeNull();
	expect(email(channel, r({ flags: ["mentioned"] }))).toBe("mentioned");
	expect(push(channel, r({ flags: ["mentioned"], settings: { enable_offline_push_notifications: false } }))).toBeNull();
	// A personal mention notifies in a muted topic, as Zulip's.
	expect(email(channel, r({ flags: ["mentioned"], visibility_policy: Visibility.MUTED }))).toBe("mentioned");
});

test("push reaches a recipient who is not idle when online push is on; email never does", () => {
	expect(push(channel, r({ flags: ["mentioned"] }), false)).toBe("mentioned");
	expect(push(channel, r({ flags: ["mentioned"], settings: { enable_online_push_notifications: false } }), false)).toBeNull();
	expect(email(channel, r({ flags: ["mentioned"] }), false)).toBeNull();
});

test("wildcard mentions obey wildcard_mentions_notify, the subscription's first, and muting", () => {
	const wild = { flags: ["stream_wildcard_mentioned"] };
	expect(email(channel, r(wild))).toBe("stream_wildcard_mentioned");
	expect(email(channel, r({ ...wild, settings: { wildcard_mentions_notify: false } }))).toBeNull();
	expect(email(channel, r({ ...wild, settings: { wildcard_mentions_notify: false }, subscription: { ...SUB, wildcard_mentions_notify: true } }))).toBe("stream_wildcard_mentioned");
	expect(email(channel, r({ ...wild, subscription: { ...SUB, is_muted: true } }))).toBeNull();
	expect(email(channel, r({ ...wild, subscription: { ...SUB, is_muted: true }, visibility_policy: Visibility.UNMUTED }))).toBe("stream_wildcard_mentioned");
	expect(email(channel, r({ flags: ["topic_wildcard_mentioned"], visibility_policy: Visibility.FOLLOWED }))).toBe("topic_wildcard_mentioned_in_followed_topic");
});

test("channel and followed-topic settings: the subscription's value, else the user's; muted topics and channels silence", () => {
	expect(email(channel, r())).toBeNull();
	expect(email(channel, r({ settings: { enable_stream_email_notifications: true } }))).toBe("stream_email_notify");
	expect(email(channel, r({ settings: { enable_stream_email_notifications: true }, subscription: { ...SUB, email_notifications: false } }))).toBeNull();
	expect(email(channel, r({ subscription: { ...SUB, email_notifications: true } }))).toBe("stream_email_notify");
	expect(push(channel, r({ subscription: { ...SUB, push_notifications: true } }))).toBe("stream_push_notify");
	expect(email(channel, r({ subscription: { ...SUB, email_notifications: true }, visibility_policy: Visibility.MUTED }))).toBeNull();
	expect(email(channel, r({ subscription: { ...SUB, email_notifications: true, is_muted: true } }))).toBeNull();
	expect(email(channel, r({ visibility_policy: Visibility.FOLLOWED }))).toBe("followed_topic_email_notify");
	expect(push(channel, r({ visibility_policy: Visibility.FOLLOWED, settings: { enable_followed_topic_push_notifications: false } }))).toBeNull();
	// Not subscribed: no channel-level trigger.
	expect(email(channel, r({ subscription: null, settings: { enable_stream_email_notifications: true } }))).toBeNull();
});

test("never the sender, a bot, or from a muted sender; decide asks idleness only of the notifiable", () => {
	expect(email(dm, r({ user_id: 1 }))).toBeNull();
	expect(email(dm, r({ is_bot: true }))).toBeNull();
	expect(email(dm, r({ sender_muted: true }))).toBeNull();
	const asked: number[] = [];
	const out = decide(channel, [r({ user_id: 2, flags: ["mentioned"] }), r({ user_id: 3 }), r({ user_id: 4, flags: ["mentioned"] })], (u) => (asked.push(u), u === 2));
	expect(asked).toEqual([2, 4]);
	expect([...out]).toEqual([
		[2, { email: "mentioned", push: "mentioned" }],
		[4, { email: null, push: "mentioned" }],
	]);
});

test("an edit's new mentions: Zulip's rules for message updates", () => {
	const idle = () => true;
	const mentioned = r({ flags: ["mentioned"] });
	expect(decideEdit(channel, [mentioned], idle).get(2)).toEqual({ email: "mentioned", push: "mentioned" });
	// Never for a direct message: the original notified already.
	expect(decideEdit(dm, [r({ flags: ["mentioned"], subscription: null })], idle).size).toBe(0);
	// Never for one whose channel or followed-topic settings notify of every message.
	expect(decideEdit(channel, [r({ flags: ["mentioned"], subscription: { ...SUB, email_notifications: true } })], idle).size).toBe(0);
	expect(decideEdit(channel, [r({ flags: ["mentioned"], visibility_policy: Visibility.FOLLOWED })], idle).size).toBe(0);
	// A muted sender, the editor themself, a user not idle: as for a new message.
	expect(decideEdit(channel, [r({ flags: ["mentioned"], sender_muted: true })], idle).size).toBe(0);
	expect(decideEdit(channel, [r({ user_id: 1, flags: ["mentioned"] })], idle).size).toBe(0);
	expect(decideEdit(channel, [r({ flags: ["mentioned"], settings: { enable_online_push_notifications: false } })], () => false).size).toBe(0);
	// A wildcard mention where the settings allow it.
	expect(decideEdit(channel, [r({ flags: ["stream_wildcard_mentioned"] })], idle).get(2)?.email).toBe("stream_wildcard_mentioned");
});
