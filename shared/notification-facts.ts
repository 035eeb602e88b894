// What the notifications service reads about a sent message's recipients, once per message from
// each service that owns a part (users: who they are, settings, presence, mutes; channels: their
// subscriptions and topic policies), to decide Zulip's missed-message notifications.
import type { Identity } from "./identity";

export interface RecipientUser {
	identity: Identity;
	is_active: boolean;
	/** The settings asked for, defaults filled in. */
	settings: Record<string, unknown>;
	/** Presence says active within OFFLINE_THRESHOLD_SECS. */
	present: boolean;
}

export interface NotificationFacts {
	/** By user ID; unknown IDs are left out. */
	users: Record<string, RecipientUser>;
	/** Those of the users who muted the sender. */
	muters: number[];
	realm: { name: string; url: string; message_content_allowed_in_email_notifications: boolean };
}

export interface ChannelNotifyFacts {
	/** The active subscriptions among the users, by user ID (null settings: the user's global one). */
	subscriptions: Record<string, { is_muted: boolean; email_notifications: boolean | null; push_notifications: boolean | null; wildcard_mentions_notify: boolean | null }>;
	/** The users' visibility policies for the topic, where they have one (1 muted, 2 unmuted, 3 followed). */
	policies: Record<string, number>;
}
