// What each service answers the uploads service for an organization export (Zulip's data
// export): its own data in its own terms, read in bulk (a page of up to EXPORT_PAGE rows a call,
// never one call per user or message). The export's writer (shared/zulip-format/write-export.ts,
// run by the uploads service's export job and by the management CLI) turns them into Zulip's
// export tables; no service's own code knows the export format.
import type { GroupSettingValue } from "./group-settings";

/** The most rows one export call answers (Zulip's message files hold 1,000 messages each). */
export const EXPORT_PAGE = 1000;
/** The most channels one `channels.exportSubscriptions` call takes. */
export const EXPORT_CHANNEL_BATCH = 100;

/** `users.exportRealm`: the organization, and who may start and hear of exports. */
export interface ExportRealm {
	id: number;
	string_id: string;
	name: string;
	description: string;
	url: string;
	/** UNIX seconds. */
	date_created: number;
	deactivated: boolean;
	/** Every organization setting (stored or default), by its name without the `realm_` prefix. */
	settings: Record<string, unknown>;
	/** Zulip's check_public_export_is_usable: an active owner whose address administrators may see. */
	public_export_usable: boolean;
	/** Zulip's check_export_with_consent_is_usable: an active owner who allows private data export. */
	consent_export_usable: boolean;
	/** The active human administrators (owners included): who hears of exports (Zulip's get_human_admin_users). */
	admin_user_ids: number[];
	/** The server's system bots (Notification Bot, Welcome Bot, ...), Zulip's cross-realm bots. */
	cross_realm_bots: Array<{ id: number; email: string }>;
	/** The custom profile fields, in their order. */
	profile_fields: ExportProfileField[];
	/** Every personal setting's default, by its API name: where every new user starts (fixed here). */
	user_defaults: Record<string, unknown>;
}

/** A custom profile field (every member sees them). */
export interface ExportProfileField {
	id: number;
	name: string;
	hint: string;
	field_type: number;
	/** JSON text (a choice field's choices, an external account's subtype), else "". */
	field_data: string;
	order: number;
	display_in_profile_summary: boolean;
	required: boolean;
	editable_by_user: boolean;
}

/** `users.exportUsers`: one user, its public fields (no credentials, no personal settings). */
export interface ExportUser {
	id: number;
	/** The address the API shows as `email` (a dummy one when the real one is hidden). */
	email: string;
	delivery_email: string;
	full_name: string;
	role: number;
	is_active: boolean;
	is_bot: boolean;
	bot_type: number | null;
	bot_owner_id: number | null;
	is_billing_admin: boolean;
	/** UNIX seconds. */
	date_joined: number;
	timezone: string;
	default_language: string;
	avatar_source: string;
	avatar_version: number;
	email_address_visibility: number;
	allow_private_data_export: boolean;
	/** The operator's grant: may create users through POST /users. */
	can_create_users: boolean;
	/** Custom profile field values by field ID, as the API shows them. */
	profile_data: Record<string, string>;
	/** A full export only: what only the user, their administrators and the server see. */
	private?: ExportUserPrivate;
}

/** A user's private data, which a full export holds (Zulip's `manage.py export`). */
export interface ExportUserPrivate {
	/** Every personal setting (stored or default), by its API name. */
	settings: Record<string, unknown>;
	can_change_user_emails: boolean;
	default_sending_stream_id: number | null;
	default_events_register_stream_id: number | null;
	default_all_public_streams: boolean;
	/** A bot's outgoing service and configuration. */
	bot_service: { name: string; base_url: string; interface: number; token: string } | null;
	bot_config: Record<string, string> | null;
}

/** A full export only: one user's flags on one message (this server's flag names). */
export interface ExportUserMessage {
	user_id: number;
	message_id: number;
	flags: string[];
}

/** `channels.exportChannels`: one channel. */
export interface ExportChannel {
	id: number;
	name: string;
	description: string;
	rendered_description: string;
	invite_only: boolean;
	is_web_public: boolean;
	history_public_to_subscribers: boolean;
	is_archived: boolean;
	/** UNIX seconds. */
	date_created: number;
	creator_id: number | null;
	message_retention_days: number | null;
	first_message_id: number | null;
	/** The channel's group settings (can_send_message_group, ...), as stored. */
	settings: Record<string, GroupSettingValue>;
}

/** A subscription's notification settings, Zulip's names here and in its export (null: the user's default). */
export const SUBSCRIPTION_NOTIFICATION_SETTINGS = ["desktop_notifications", "audible_notifications", "push_notifications", "email_notifications", "wildcard_mentions_notify"] as const;
export type SubscriptionNotifications = Record<(typeof SUBSCRIPTION_NOTIFICATION_SETTINGS)[number], boolean | null>;

/** A subscription's own settings, Zulip's names here and in its export. */
export interface SubscriptionSettings extends SubscriptionNotifications {
	is_muted: boolean;
	color: string;
	pin_to_top: boolean;
}

/** The settings of a subscription (or of anything that holds them), in the order Zulip's rows hold them. */
export const subscriptionSettings = (s: SubscriptionSettings): SubscriptionSettings => ({
	is_muted: s.is_muted,
	color: s.color,
	pin_to_top: s.pin_to_top,
	...(Object.fromEntries(SUBSCRIPTION_NOTIFICATION_SETTINGS.map((name) => [name, s[name]])) as SubscriptionNotifications),
});

/** `channels.exportSubscriptions`: one user's subscription to a channel. */
export interface ExportSubscription extends SubscriptionSettings {
	user_id: number;
	channel_id: number;
	active: boolean;
}

/** `messages.exportMessages`: one reaction to a message of the page. */
export interface ExportReaction {
	id: number;
	message_id: number;
	user_id: number;
	emoji_name: string;
	emoji_code: string;
	reaction_type: string;
}

/** `messages.exportMessages`: one message (a direct one only in a full export). */
export interface ExportMessage {
	id: number;
	sender_id: number;
	/** Null for a direct message. */
	channel_id: number | null;
	/** A direct message's participants, the sender included, sorted; empty for a channel message. */
	dm_user_ids: number[];
	topic: string;
	content: string;
	rendered_content: string;
	/** UNIX seconds, with their fraction where the message keeps it (Zulip's date_sent is a float). */
	timestamp: number;
	/** The sending client's name. */
	client: string;
	/** The same for the last content edit. */
	last_edit_timestamp: number | null;
	/** Zulip's edit history, oldest first, as stored; null when never edited or moved. */
	edit_history: Array<Record<string, unknown>> | null;
	has_link: boolean;
	has_image: boolean;
	has_attachment: boolean;
	is_resolve_notice: boolean;
}
