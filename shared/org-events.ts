// The organization changes the users and channels services broadcast, in the form the events
// service turns into Zulip's events (services/events/org-changes.ts). Each payload carries what
// the events need: the new values and who may see them, so the events service never calls back.

/** A channel as GET /streams shows it, and the users a `stream` event about it goes to. */
export interface StreamAudience {
	stream: Record<string, unknown>;
	user_ids: number[];
}

/** `channels.created`: the new channels, each to those who may know about it. */
export interface ChannelsCreated {
	channel_ids: number[];
	streams?: StreamAudience[];
}

/** `channels.archived`: each archived channel (as it is now), to those who could see it. */
export interface ChannelsArchived {
	channel_ids: number[];
	streams?: StreamAudience[];
}

/** Who joined or left one channel, and who is told (peer_add, peer_remove). */
export interface PeerChange {
	stream_id: number;
	user_ids: number[];
	audience: number[];
}

/** `channels.subscriptionsChanged`. */
export interface SubscriptionsChanged {
	user_ids: number[];
	op?: "add" | "remove";
	/** op add: each user's new subscriptions, as GET /users/me/subscriptions shows them. */
	added?: Array<{ user_id: number; subscriptions: Array<Record<string, unknown>> }>;
	/** op remove: each user's channels left. */
	removed?: Array<{ user_id: number; subscriptions: Array<{ stream_id: number; name: string }> }>;
	peers?: PeerChange[];
	/** Channels that became visible (add: `stream` create) or hidden (remove: `stream` delete) to some users. */
	streams?: StreamAudience[];
}

/** `channels.updated`. */
export interface ChannelUpdated {
	channel_id: number;
	/** The fields written, as stored (group settings as `settings.<name>`). */
	changes: Record<string, unknown>;
	/** The channel after the change, as GET /streams shows it. */
	stream?: Record<string, unknown>;
	old_name?: string;
	/** Who may know about the channel after the change. */
	audience?: number[];
	/**
	 * Who could not see it before (they get `stream` create) and who no longer can (delete), for
	 * queues without the archived_channels capability, to which an archived channel does not exist.
	 */
	gained?: number[];
	lost?: number[];
	/** The same for queues with archived_channels, which see archived channels too. */
	gained_with_archived?: number[];
	lost_with_archived?: number[];
	/** The channel as it was, for the delete events of those who lost it. */
	before?: Record<string, unknown>;
}

/**
 * `channels.accessChanged`: after a user's role change, the channels it now sees (stream create,
 * then peer_add with each one's subscribers) and those it no longer sees (stream delete), to it alone.
 */
export interface ChannelAccessChanged {
	user_id: number;
	created: Array<Record<string, unknown>>;
	peers: Array<{ stream_id: number; user_ids: number[] }>;
	deleted: Array<Record<string, unknown>>;
}

/** channels.userRoleChanged and channels.userActivityChanged (called by the users service): what becomes stream and peer events. */
export interface UserRoleChanged {
	user_id: number;
	role: number;
	/** The channels the user could see before the change. */
	channel_ids: number[];
}

export interface UserActivityChanged {
	user_id: number;
	is_active: boolean;
}

/**
 * `channels.firstMessageChanged`: deleting messages took the channel's first message (Zulip's
 * check_update_first_message_id); `user_ids` are those told of the deletion.
 */
export interface ChannelFirstMessageChanged {
	channel_id: number;
	name: string;
	first_message_id: number | null;
	user_ids: number[];
}

/** `channels.subscriptionPropertiesChanged`: the values as stored. */
export interface SubscriptionPropertiesChanged {
	user_id: number;
	changes: Array<{ stream_id: number; property: string; value: unknown }>;
}

/** `channels.userTopicChanged`. */
export interface UserTopicChanged {
	user_id: number;
	channel_id: number;
	/** As stored ("" for the empty topic). */
	topic: string;
	visibility_policy?: number;
	last_updated?: number;
	/** The organization's name for the empty topic. */
	empty_topic_display_name?: string;
}

/** Who hears about a change to one user. */
export interface UserAudience {
	/** Active users of the organization. */
	active: number[];
	/** Those of them who may see the user's real address. */
	email_viewers: number[];
	/** Active administrators (with the bot's owner, the audience of `realm_bot`). */
	admins: number[];
}

/** `users.changed`. */
export interface UsersChanged {
	user_ids: number[];
	changes?: Record<string, unknown>;
	/** For a change to one user: that user's ID, its audience and how it looks now. */
	user_id?: number;
	audience?: UserAudience;
	/** The API email (`email`) and the real address now. */
	email?: string;
	delivery_email?: string;
	/** Whether the avatar is a gravatar (clients registered with client_gravatar compute it). */
	gravatar?: boolean;
	/** On creation: the user as realm_users shows it to one who may see the real address. */
	person?: Record<string, unknown>;
	/** On a bot's creation: the bot as realm_bots shows it. */
	bot?: Record<string, unknown>;
	bot_owner_id?: number | null;
	/** A bot's changes as `realm_bot` update events, one per entry (its owner and the administrators hear them). */
	bot_updates?: Array<Record<string, unknown>>;
	/** A bot's new owner (Zulip's do_change_bot_owner): the owners before and now, whether each is an administrator, and the bot as realm_bots shows it. */
	bot_owner_change?: { previous_owner_id: number | null; previous_owner_is_admin: boolean; owner_is_admin: boolean; bot: Record<string, unknown> };
}

/** `users.settingsChanged`. */
export interface SettingsChanged {
	user_id: number;
	changes: Record<string, unknown>;
	/** With a default_language change: that language's name. */
	language_name?: string;
}

/** `users.groupsChanged`: with a change to groups, Zulip's `user_group` events and who gets them. */
export interface GroupsChanged {
	realm_id: number;
	/** The events' fields (op and the rest), in order; to every active user. */
	events?: Array<Record<string, unknown>>;
	user_ids?: number[];
}

/** `users.profileFieldsChanged`: the organization's fields now, as GET /realm/profile_fields lists them. */
export interface ProfileFieldsChanged {
	realm_id: number;
	fields?: Array<Record<string, unknown>>;
	user_ids?: number[];
}

/** `users.realmChanged`: organization settings changed (names as register shows them, `realm_` dropped). */
export interface RealmChanged {
	realm_id: number;
	changes?: Record<string, unknown>;
	/** All the changes in one `update_dict` event (Zulip's form when archiving a channel clears settings). */
	as_dict?: boolean;
	/** With as_dict: the event's property (Zulip's "icon", "logo", "night_logo"); "default" if absent. */
	property?: string;
	user_ids?: number[];
}

/** `channels.defaultsChanged`: the default channels now, to the active non-guest users. */
export interface DefaultChannelsChanged {
	default_streams: Array<Record<string, unknown>>;
	user_ids: number[];
}

/** `messages.alertWordsChanged`: a user's alert words now. */
export interface AlertWordsChanged {
	user_id: number;
	alert_words: string[];
}

/** `users.mutesChanged`: a user muted or unmuted another; their mutes now (the `muted_users` event). */
export interface MutesChanged {
	user_id: number;
	muted_user_id: number;
	muted_users: Array<{ id: number; timestamp: number }>;
}

/** `scheduling.changed`: Zulip's `scheduled_messages` event fields, for one user. */
export type SchedulingChanged = Record<string, unknown> & { user_id: number; op: string };

/** A data export as the API shows it (Zulip's RealmExport, get_realm_exports_serialized). */
export interface RealmExportView {
	id: number;
	/** UNIX seconds. */
	export_time: number;
	acting_user_id: number;
	export_url: string | null;
	deleted_timestamp: number | null;
	failed_timestamp: number | null;
	pending: boolean;
	/** 1 public, 2 standard (full with member consent). */
	export_type: number;
}

/** `uploads.realmExportsChanged`: the organization's data exports now (Zulip's `realm_export` event), to its administrators. */
export interface RealmExportsChanged {
	user_ids: number[];
	exports: RealmExportView[];
}

/** `users.exportConsentChanged`: a user's allow_private_data_export changed (Zulip's `realm_export_consent`), to the administrators. */
export interface ExportConsentChanged {
	user_ids: number[];
	user_id: number;
	consented: boolean;
}

/** `invites.changed`: the set of invitations changed; Zulip's `invites_changed` to these users (the organization's administrators and the invitation's creator). */
export interface InvitesChanged {
	user_ids: number[];
}

/** `users.navigationViewChanged`: Zulip's `navigation_view` event (add, update, remove), to the user. */
export interface NavigationViewChanged {
	user_id: number;
	event: Record<string, unknown>;
}

/** `catalog.playgroundsChanged`: the organization's code playgrounds now, to every active user. */
export interface PlaygroundsChanged {
	user_ids: number[];
	realm_playgrounds: Array<{ id: number; name: string; pygments_language: string; url_template: string }>;
}

/** A linkifier as the API shows it. */
export interface Linkifier {
	pattern: string;
	url_template: string;
	id: number;
}

/** `catalog.linkifiersChanged`: the organization's linkifiers now (in order), to every active user; the messages service renders with them. */
export interface LinkifiersChanged {
	realm_id: number;
	user_ids: number[];
	realm_linkifiers: Linkifier[];
}

/**
 * `users.presenceChanged`: a user came online (or switched presence_enabled), to every active
 * user; queues get Zulip's legacy `presence` event, or its modern form with simplified_presence_events.
 */
export interface PresenceChanged {
	user_id: number;
	/** The user's API email. */
	email: string;
	server_timestamp: number;
	/** The legacy form, by client name (always "website"). */
	presence: Record<string, { client: string; status: string; timestamp: number; pushable: boolean }>;
	modern: { active_timestamp: number; idle_timestamp: number };
	user_ids: number[];
}

/**
 * `users.statusChanged`: a user set a status (POST /users/me/status), to every active user; queues
 * get Zulip's `user_status` event with what the request named, as do_update_user_status sends it.
 */
export interface UserStatusChanged {
	user_id: number;
	/** `away` and `status_text` when given; the emoji's three fields when emoji_name was. */
	status: { away?: boolean; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string };
	user_ids: number[];
}

/** A file as GET /attachments and `attachment` events show it (Zulip's Attachment.to_dict). */
export interface ApiAttachment {
	id: number;
	name: string;
	path_id: string;
	size: number;
	/** UNIX milliseconds. */
	create_time: number;
	/** The messages that link it; `date_sent` in UNIX milliseconds. */
	messages: Array<{ id: number; date_sent: number }>;
}

/**
 * `uploads.attachmentsChanged`: files uploaded (add), claimed or unclaimed by messages (update),
 * deleted (remove, with the ID alone); each owner's queues get Zulip's `attachment` event with the
 * organization's `upload_space_used` after the change.
 */
export interface AttachmentsChanged {
	changes: Array<{ user_id: number; op: "add" | "update" | "remove"; attachment: ApiAttachment | { id: number } }>;
	upload_space_used: number;
}

/** A custom emoji as GET /realm/emoji and realm_emoji events show it. */
export interface RealmEmoji {
	id: string;
	name: string;
	source_url: string;
	still_url: string | null;
	deactivated: boolean;
	author_id: number | null;
}

/** `catalog.realmEmojiChanged`: the organization's custom emoji now, by ID, for every active user. */
export interface RealmEmojiChanged {
	realm_id: number;
	user_ids: number[];
	realm_emoji: Record<string, RealmEmoji>;
}
