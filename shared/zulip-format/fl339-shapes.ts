// Feature level 339's row shapes (Zulip 10.0; the sample test/fixtures/zulip-export-fl339.tar.gz
// is the reference) for the tables whose rows this server builds from its own settings:
// zerver_realm, zerver_userprofile, zerver_stream, zerver_realmuserdefault. Zulip's import makes
// each row into its model (`Stream(**row)`): a field it does not know fails the whole import,
// and one it converts or remaps (a date, a foreign key) must be there. So each row gets exactly the fields of that
// feature level:
//   - a field this server keeps no value for gets Zulip's default (FILLERS);
//   - a field newer than that feature level (a setting Zulip added since, which this server
//     keeps) is moved to the table NEWER_FIELDS_TABLE ({table, id, fields}), which Zulip's import
//     does not read and this server's importer merges back (mergeNewerFields) before any of its
//     phases reads the rows, so the round trip keeps them.
import { randomBytes, randomUUID } from "node:crypto";
import { REALM_IMAGE_FIELDS } from "./realm-table";
import type { Rec, TableFile } from "./records";
import type { Row, Tables } from "./tables";
import { ZULIP_UPDATE_ANNOUNCEMENTS_LEVEL } from "./zulip-import-tables";

export const NEWER_FIELDS_TABLE = "chat_fields_newer_than_fl339";

/** The personal settings, in both a user's row and the organization's defaults for new users. */
const USER_SETTINGS = [
	"enter_sends", "left_side_userlist", "default_language", "web_home_view", "web_escape_navigates_to_home_view",
	"fluid_layout_width", "high_contrast_mode", "translate_emoticons", "display_emoji_reaction_users", "twenty_four_hour_time", "starred_message_counts",
	"web_suggest_update_timezone", "color_scheme", "dense_mode", "web_font_size_px", "web_line_height_percent", "web_animate_image_previews",
	"demote_inactive_streams", "web_mark_read_on_scroll_policy", "web_channel_default_view", "emojiset", "user_list_style",
	"web_stream_unreads_count_display_policy", "web_navigate_to_sent_message", "email_notifications_batching_period_seconds",
	"enable_stream_desktop_notifications", "enable_stream_email_notifications", "enable_stream_push_notifications",
	"enable_stream_audible_notifications", "notification_sound", "wildcard_mentions_notify", "enable_followed_topic_desktop_notifications",
	"enable_followed_topic_email_notifications", "enable_followed_topic_push_notifications", "enable_followed_topic_audible_notifications",
	"enable_followed_topic_wildcard_mentions_notify", "enable_desktop_notifications", "pm_content_in_desktop_notifications", "enable_sounds",
	"enable_offline_email_notifications", "message_content_in_email_notifications", "enable_offline_push_notifications",
	"enable_online_push_notifications", "desktop_icon_count_display", "enable_digest_emails", "enable_login_emails", "enable_marketing_emails",
	"presence_enabled", "realm_name_in_email_notifications_policy", "automatically_follow_topics_policy",
	"automatically_unmute_topics_in_muted_streams_policy", "automatically_follow_topics_where_mentioned", "enable_drafts_synchronization",
	"send_stream_typing_notifications", "send_private_typing_notifications", "send_read_receipts", "allow_private_data_export",
	"receives_typing_notifications", "email_address_visibility",
];

/** The fields of each table's rows at feature level 339, in the sample's order. */
const FIELDS: Record<string, string[]> = {
	zerver_realm: [
		"id", "name", "description", "string_id", "uuid", "uuid_owner_secret", "push_notifications_enabled", "push_notifications_enabled_end_timestamp",
		"date_created", "scheduled_deletion_date", "demo_organization_scheduled_deletion_date", "deactivated", "deactivated_redirect",
		"emails_restricted_to_domains", "invite_required", "_max_invites", "disallow_disposable_email_addresses", "enable_spectator_access",
		"want_advertise_in_communities_directory", "inline_image_preview", "inline_url_embed_preview", "digest_emails_enabled", "digest_weekday",
		"send_welcome_emails", "message_content_allowed_in_email_notifications", "mandatory_topics", "require_unique_names", "name_changes_disabled",
		"email_changes_disabled", "avatar_changes_disabled", "move_messages_within_stream_limit_seconds", "move_messages_between_streams_limit_seconds",
		"can_add_custom_emoji_group", "can_create_public_channel_group", "can_create_private_channel_group", "can_create_web_public_channel_group",
		"can_delete_any_message_group", "can_delete_own_message_group", "can_move_messages_between_topics_group", "can_invite_users_group",
		"create_multiuse_invite_group", "direct_message_initiator_group", "direct_message_permission_group", "can_access_all_users_group",
		"can_create_groups", "can_manage_all_groups", "invite_to_stream_policy", "can_move_messages_between_channels_group", "wildcard_mention_policy",
		"waiting_period_threshold", "message_content_delete_limit_seconds", "allow_message_editing", "message_content_edit_limit_seconds",
		"allow_edit_history", "default_language", "moderation_request_channel", "new_stream_announcements_stream", "signup_announcements_stream",
		"zulip_update_announcements_stream", "zulip_update_announcements_level", "message_retention_days", "message_visibility_limit",
		"first_visible_message_id", "org_type", "plan_type", "bot_creation_policy", "custom_upload_quota_gb", "video_chat_provider", "jitsi_server_url",
		"giphy_rating", "default_code_block_language", "enable_read_receipts", "enable_guest_user_indicator", ...REALM_IMAGE_FIELDS,
	],
	zerver_userprofile: [
		"id", "last_login", "is_superuser", ...USER_SETTINGS, "delivery_email", "email", "realm", "recipient", "full_name", "date_joined",
		"tos_version", "is_staff", "is_active", "is_billing_admin", "is_bot", "bot_type", "bot_owner", "role", "long_term_idle",
		"last_active_message_id", "is_mirror_dummy", "can_forge_sender", "can_create_users", "can_change_user_emails", "last_reminder", "rate_limits",
		"default_sending_stream", "default_events_register_stream", "default_all_public_streams", "timezone", "avatar_source", "avatar_version",
		"avatar_hash", "zoom_token", "groups", "user_permissions",
	],
	zerver_stream: [
		"id", "name", "realm", "date_created", "creator", "deactivated", "description", "rendered_description", "recipient", "invite_only",
		"history_public_to_subscribers", "is_web_public", "is_in_zephyr_realm", "message_retention_days", "can_administer_channel_group",
		"can_remove_subscribers_group", "can_send_message_group", "first_message_id", "is_recently_active",
	],
	zerver_realmuserdefault: [
		"id", ...USER_SETTINGS, "realm",
	],
};

/**
 * Zulip's value for a field this server keeps none of. `everyone`: the role:everyone group's ID,
 * for the group settings this server does not have.
 */
function fillers(table: string, everyone: number): Row {
	if (table === "zerver_realm") {
		return {
			uuid: randomUUID(),
			uuid_owner_secret: `zuliprealm_${randomBytes(24).toString("base64url").slice(0, 32)}`,
			push_notifications_enabled: false,
			push_notifications_enabled_end_timestamp: null,
			scheduled_deletion_date: null,
			demo_organization_scheduled_deletion_date: null,
			deactivated_redirect: null,
			_max_invites: null,
			direct_message_initiator_group: everyone,
			direct_message_permission_group: everyone,
			can_access_all_users_group: everyone,
			invite_to_stream_policy: 1,
			wildcard_mention_policy: 5,
			zulip_update_announcements_level: ZULIP_UPDATE_ANNOUNCEMENTS_LEVEL,
			message_visibility_limit: null,
			first_visible_message_id: 0,
			bot_creation_policy: 1,
			custom_upload_quota_gb: null,
			icon_source: "G",
			icon_version: 1,
			logo_source: "D",
			logo_version: 1,
			night_logo_source: "D",
			night_logo_version: 1,
		};
	}
	if (table === "zerver_userprofile") {
		return {
			is_superuser: false,
			is_staff: false,
			tos_version: "-1",
			long_term_idle: false,
			last_active_message_id: null,
			can_forge_sender: false,
			can_create_users: false,
			can_change_user_emails: false,
			rate_limits: "",
			default_sending_stream: null,
			default_events_register_stream: null,
			default_all_public_streams: false,
			avatar_hash: null,
			zoom_token: null,
			groups: [],
			user_permissions: [],
			web_navigate_to_sent_message: true,
		};
	}
	if (table === "zerver_stream") return { is_recently_active: true };
	if (table === "zerver_realmuserdefault") return { web_navigate_to_sent_message: true };
	return {};
}

/**
 * The tables in feature level 339's shapes, and NEWER_FIELDS_TABLE with what did not fit.
 * `everyone`: the role:everyone group's ID.
 */
export function inFl339Shapes(tables: Tables, everyone: number): Tables {
	const out: Tables = { ...tables };
	const newer: Row[] = [];
	for (const [table, fields] of Object.entries(FIELDS)) {
		if (!tables[table]) continue;
		const known = new Set(fields);
		const fill = fillers(table, everyone);
		out[table] = tables[table].map((row) => {
			const shaped: Row = {};
			for (const f of fields) if (Object.hasOwn(row, f) || Object.hasOwn(fill, f)) shaped[f] = Object.hasOwn(row, f) ? row[f] : fill[f];
			const extra = Object.fromEntries(Object.entries(row).filter(([f]) => !known.has(f)));
			if (Object.keys(extra).length) newer.push({ table, id: row.id, fields: extra });
			return shaped;
		});
	}
	out[NEWER_FIELDS_TABLE] = newer;
	return out;
}

/** The other way (the importer): NEWER_FIELDS_TABLE's fields put back into the rows of realm.json they came from. */
export function mergeNewerFields(realm: TableFile): void {
	const byTable = new Map<string, Map<number, Rec>>();
	for (const r of realm.records(NEWER_FIELDS_TABLE)) {
		const name = r.str("table");
		let index = byTable.get(name);
		if (!index) byTable.set(name, (index = new Map(realm.records(name).map((x) => [x.int("id"), x]))));
		const target = index.get(r.int("id"));
		if (!target) return r.fail(`names ${name} row ${r.int("id")}, which the export does not hold`);
		const fields = r.raw.fields;
		if (!fields || typeof fields !== "object" || Array.isArray(fields)) return r.fail(`"fields" must be an object`);
		Object.assign(target.raw, fields);
	}
}
