// Organization settings: their defaults, and the `realm` part of the POST /register state.
import type { RealmDoc } from "../models/realm";
import { pushConfigured, type Config } from "../../../shared/config";
import type { GroupGraph } from "../../../shared/group-settings";
import { LIMITS } from "../../../shared/version";
import { OFFLINE_THRESHOLD_SECS, PRESENCE_PING_INTERVAL_SECS } from "../presence/presence-rules";
import { serverThumbnailFormats } from "../../../shared/thumbnail-formats";
import { emojiDataUrl } from "../../../shared/emoji-data";
import { realmImageState } from "./realm-images";

/** The server settings (from the environment) that the register state reports. */
export type ServerSettings = Pick<Config, "jitsiServerUrl" | "webPublicStreams" | "maxFileUploadSizeMib" | "digestIntervalSeconds" | "pushBouncerUrl" | "zulipOrgId" | "zulipOrgKey">;

/** Defaults of the settings an organization can change; the realm document stores overrides. */
export const REALM_SETTING_DEFAULTS: Record<string, unknown> = {
	realm_description: "",
	realm_default_language: "en",
	realm_invite_required: true,
	realm_emails_restricted_to_domains: false,
	realm_disallow_disposable_email_addresses: true,
	realm_email_changes_disabled: false,
	realm_name_changes_disabled: false,
	realm_avatar_changes_disabled: false,
	realm_inline_image_preview: true,
	realm_inline_url_embed_preview: false,
	realm_mandatory_topics: false,
	realm_message_retention_days: -1,
	realm_send_welcome_emails: true,
	realm_message_content_allowed_in_email_notifications: true,
	realm_enable_spectator_access: false,
	realm_want_advertise_in_communities_directory: false,
	realm_video_chat_provider: 1,
	realm_giphy_rating: 2,
	realm_waiting_period_threshold: 0,
	realm_default_code_block_language: "",
	realm_message_content_delete_limit_seconds: 600,
	realm_message_content_edit_limit_seconds: 600,
	realm_move_messages_within_stream_limit_seconds: 604800,
	realm_move_messages_between_streams_limit_seconds: 604800,
	realm_allow_message_editing: true,
	realm_allow_edit_history: true,
	realm_message_edit_history_visibility_policy: "all",
	realm_enable_read_receipts: true,
	realm_digest_emails_enabled: false,
	realm_digest_weekday: 1,
	realm_org_type: 0,
	realm_plan_type: 1,
	realm_enable_guest_user_indicator: true,
	realm_presence_disabled: false,
	realm_jitsi_server_url: null,
	realm_empty_topic_display_name: "general chat",
	realm_topics_policy: "allow_empty_topic",
	realm_moderation_request_channel_id: -1,
	realm_new_stream_announcements_stream_id: -1,
	realm_signup_announcements_stream_id: -1,
	realm_zulip_update_announcements_stream_id: -1,
	realm_enable_read_receipts_for_bots: false,
	realm_require_unique_names: false,
	realm_upload_quota_mib: null,
	// Welcome Bot's custom message to new users ("" for none); an invitation may override it.
	realm_welcome_message_custom_text: "",
};

/**
 * Organization-level permissions, as group settings. Defaults name system groups; the realm
 * document may store another value (a group ID or an anonymous group).
 */
export const REALM_GROUP_SETTING_DEFAULTS: Record<string, string> = {
	can_create_public_channel_group: "role:members",
	can_create_private_channel_group: "role:members",
	can_create_web_public_channel_group: "role:owners",
	can_add_subscribers_group: "role:members",
	can_invite_users_group: "role:members",
	can_delete_any_message_group: "role:administrators",
	can_delete_own_message_group: "role:everyone",
	can_move_messages_between_channels_group: "role:members",
	can_move_messages_between_topics_group: "role:everyone",
	can_manage_all_groups: "role:administrators",
	can_create_groups: "role:members",
	can_mention_many_users_group: "role:administrators",
	// Who may create reusable invitation links (Zulip's default).
	create_multiuse_invite_group: "role:administrators",
	// Who may create bots of any kind, and who only incoming webhook bots (Zulip's defaults).
	can_create_bots_group: "role:members",
	can_create_write_only_bots_group: "role:members",
	// Who may add custom emoji (Zulip's default).
	can_add_custom_emoji_group: "role:members",
};

export function realmSetting<T = unknown>(realm: RealmDoc, key: string): T {
	// A stored null is a value ("unlimited" time limits), not a missing setting.
	const settings = realm.settings ?? {};
	return (Object.hasOwn(settings, key) ? settings[key] : REALM_SETTING_DEFAULTS[key]) as T;
}

export function realmHost(realm: RealmDoc): string {
	return new URL(realm.url).host;
}

/** The domain of bots' addresses (`<short>-bot@<domain>`): the organization's host without a port, which no address may hold. */
export function botDomain(realm: RealmDoc): string {
	return new URL(realm.url).hostname;
}

/** Server-wide facts that do not depend on the organization. */
export function serverState(server: ServerSettings): Record<string, unknown> {
	return {
		...LIMITS,
		server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECS,
		server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECS,
		server_typing_started_expiry_period_milliseconds: 15000,
		server_typing_stopped_wait_period_milliseconds: 5000,
		server_typing_started_wait_period_milliseconds: 10000,
		server_inline_image_preview: true,
		server_inline_url_embed_preview: true,
		server_thumbnail_formats: serverThumbnailFormats(),
		server_avatar_changes_disabled: false,
		server_name_changes_disabled: false,
		server_needs_upgrade: false,
		server_web_public_streams_enabled: server.webPublicStreams,
		server_jitsi_server_url: server.jitsiServerUrl,
		server_generation: SERVER_GENERATION,
		event_queue_longpoll_timeout_seconds: 90,
		development_environment: false,
		password_min_length: LIMITS.password_min_length,
		password_min_guesses: 10000,
		max_file_upload_size_mib: server.maxFileUploadSizeMib,
		max_avatar_file_size_mib: 5,
		max_icon_file_size_mib: 5,
		max_logo_file_size_mib: 5,
		// Zulip's SEND_DIGEST_EMAILS: the notifications service runs digest passes.
		settings_send_digest_emails: server.digestIntervalSeconds > 0,
		giphy_rating_options: {
			disabled: { name: "GIPHY integration disabled", id: 0 },
			y: { name: "Allow GIPHY content rated Y", id: 1 },
			g: { name: "Allow GIPHY content rated G", id: 2 },
			pg: { name: "Allow GIPHY content rated PG", id: 3 },
			"pg-13": { name: "Allow GIPHY content rated PG-13", id: 4 },
			r: { name: "Allow GIPHY content rated R", id: 5 },
		},
	};
}

const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/** The `realm` part of POST /register. */
export function realmState(realm: RealmDoc, server: ServerSettings): Record<string, unknown> {
	const settings: Record<string, unknown> = {};
	for (const key of Object.keys(REALM_SETTING_DEFAULTS)) settings[key] = realmSetting(realm, key);
	return {
		...serverState(server),
		...settings,
		realm_name: realm.name,
		realm_description: realm.description,
		realm_uri: realm.url,
		realm_url: realm.url,
		server_emoji_data_url: emojiDataUrl(realm.url),
		realm_date_created: realm.date_created,
		realm_bot_domain: botDomain(realm),
		realm_is_zephyr_mirror_realm: false,
		realm_email_auth_enabled: true,
		realm_password_auth_enabled: true,
		// Zulip's realm.push_notifications_enabled: on with a configured bouncer (docs/push.md).
		realm_push_notifications_enabled: pushConfigured(server),
		realm_authentication_methods: { Email: { enabled: true, available: true } },
		...realmImageState(realm),
		realm_available_video_chat_providers: {
			disabled: { name: "None", id: 0 },
			jitsi_meet: { name: "Jitsi Meet", id: 1 },
		},
		// Deprecated (feature level 212): the organization's Jitsi server, else the server's.
		jitsi_server_url: (settings.realm_jitsi_server_url as string | null) ?? server.jitsiServerUrl,
		realm_push_notifications_enabled_end_timestamp: null,
		zulip_plan_is_not_limited: true,
		upgrade_text_for_wide_organization_logo: "",
	};
}

/** System group names and the older policy values standing for them (Zulip's enums). */
const COMMON_POLICY: Record<string, number> = { "role:members": 1, "role:administrators": 2, "role:fullmembers": 3, "role:moderators": 4 };
const WEB_PUBLIC_POLICY: Record<string, number> = { "role:administrators": 2, "role:moderators": 4, "role:nobody": 6, "role:owners": 7 };
const WILDCARD_MENTION_POLICY: Record<string, number> = {
	"role:everyone": 1,
	"role:members": 2,
	"role:fullmembers": 3,
	"role:administrators": 5,
	"role:nobody": 6,
	"role:moderators": 7,
};

/**
 * The deprecated policy settings Zulip still sends beside their group settings (clients such
 * as the mobile app require realm_wildcard_mention_policy): the policy naming the same system
 * group, else the one Zulip gives for any other group. `realm_invite_to_realm_policy` is not
 * among them: Zulip removed it with `can_invite_users_group` (feature level 321).
 */
export function legacyPolicies(graph: GroupGraph): Record<string, number> {
	const policy = (setting: string, values: Record<string, number>, otherwise: number) => {
		const value = graph.realm[setting];
		const name = typeof value === "number" ? graph.get(value)?.name : undefined;
		return (name !== undefined && Object.hasOwn(values, name) ? values[name] : undefined) ?? otherwise;
	};
	return {
		realm_create_public_stream_policy: policy("can_create_public_channel_group", COMMON_POLICY, 1),
		realm_create_private_stream_policy: policy("can_create_private_channel_group", COMMON_POLICY, 1),
		realm_create_web_public_stream_policy: policy("can_create_web_public_channel_group", WEB_PUBLIC_POLICY, 4),
		realm_wildcard_mention_policy: policy("can_mention_many_users_group", WILDCARD_MENTION_POLICY, 1),
	};
}
