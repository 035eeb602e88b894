// The facts the decision needs about a sent message's recipients, read in one call per service
// (users: settings, presence, mutes; channels: subscriptions and topic policies), and who is idle.
//
// Idle, decided from Zulip's code: Zulip calls a recipient idle when no event queue of theirs
// takes messages (receiver_is_off_zulip) or presence shows them not active within
// OFFLINE_THRESHOLD_SECS (get_active_presence_idle_user_ids). Queues here live in the memory of
// whichever events replica made them, so the first test would cost a call to every events
// replica per message; presence alone decides: a client with a queue reports presence every
// minute, active only while in use, so "not active within OFFLINE_THRESHOLD_SECS" covers both a
// closed client and one left in the background. The difference: a client closed less than
// OFFLINE_THRESHOLD_SECS ago counts as active (Zulip would call it off Zulip).
import type { Caller } from "../../../shared/actions";
import { call } from "../../../shared/actions";
import type { NotificationFacts } from "../../../shared/notification-facts";
import { NOTIFICATION_SETTINGS, Visibility, type NotificationSettings, type RecipientFacts } from "./notification-data";
import type { SentMessage } from "./sent-message";

export interface Recipients {
	facts: RecipientFacts[];
	users: NotificationFacts;
	idle(userId: number): boolean;
}

/** Also read per recipient: the batching period, for the batch time. */
const NAMES = [...NOTIFICATION_SETTINGS, "email_notifications_batching_period_seconds"];

export async function readRecipients(bus: Caller, sent: SentMessage): Promise<Recipients | null> {
	const others = [...new Set(sent.user_ids)].filter((u) => u !== sent.sender_id);
	if (!others.length) return null;
	const direct = sent.channel_id === undefined;
	const [users, channel] = await Promise.all([
		call(bus, "users.notificationFacts", { user_ids: others, names: NAMES, sender_id: sent.sender_id }),
		direct ? null : call(bus, "channels.notificationFacts", { channel_id: sent.channel_id!, topic: sent.topic ?? "", user_ids: others }),
	]);
	const muters = new Set(users.muters);
	const flags = sent.event?.flags ?? {};
	const facts: RecipientFacts[] = [];
	for (const id of others) {
		const u = users.users[String(id)];
		if (!u?.is_active) continue;
		facts.push({
			user_id: id,
			is_bot: u.identity.is_bot,
			flags: flags[String(id)] ?? [],
			settings: u.settings as NotificationSettings,
			subscription: channel?.subscriptions[String(id)] ?? null,
			visibility_policy: channel?.policies[String(id)] ?? Visibility.INHERIT,
			sender_muted: muters.has(id),
		});
	}
	return { facts, users, idle: (id) => !users.users[String(id)]?.present };
}
