// The users service's part of POST /register: realm settings, users, the user's own settings.
import type { RegisterState, RegisterStateParams } from "../../../shared/actions";
import { isAdmin, isGuest, isModerator, isOwner } from "../../../shared/roles";
import type { RealmDoc } from "../models/realm";
import type { UserDoc } from "../models/user";
import type { ProfileFieldDoc } from "../profile-fields/profile-field-model";
import { DEFAULT_EXTERNAL_ACCOUNTS, FIELD_TYPES, fieldView } from "../profile-fields/profile-fields";
import { realmHost, realmState, type ServerSettings } from "../realm/realm-settings";
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, USER_SETTINGS, userSettings } from "../settings/user-settings";
import { avatarUrl, toApiUser } from "../user-view";
import { realmBotView, type ChannelNames } from "../bots/bot-rules";

/** Settings that older clients (without the user_settings_object capability) read at top level. */
const LEGACY_DISPLAY = [
	"color_scheme",
	"default_language",
	"demote_inactive_streams",
	"dense_mode",
	"emojiset",
	"enable_drafts_synchronization",
	"fluid_layout_width",
	"high_contrast_mode",
	"left_side_userlist",
	"starred_message_counts",
	"timezone",
	"translate_emoticons",
	"twenty_four_hour_time",
	"enter_sends",
];
/** Zulip's notification_settings_legacy, exactly (newer settings are only in user_settings). */
const LEGACY_NOTIFICATIONS = [
	"desktop_icon_count_display",
	"email_notifications_batching_period_seconds",
	"enable_desktop_notifications",
	"enable_digest_emails",
	"enable_login_emails",
	"enable_marketing_emails",
	"enable_offline_email_notifications",
	"enable_offline_push_notifications",
	"enable_online_push_notifications",
	"enable_sounds",
	"enable_stream_audible_notifications",
	"enable_stream_desktop_notifications",
	"enable_stream_email_notifications",
	"enable_stream_push_notifications",
	"message_content_in_email_notifications",
	"notification_sound",
	"pm_content_in_desktop_notifications",
	"presence_enabled",
	"realm_name_in_email_notifications_policy",
	"wildcard_mentions_notify",
];

export function registerState(input: {
	realm: RealmDoc;
	user: UserDoc;
	all: UserDoc[];
	systemBots: UserDoc[];
	fields: ProfileFieldDoc[];
	server: ServerSettings;
	params: RegisterStateParams;
	/** The names of the channels bots name as defaults (realm_bots). */
	channelNames?: ChannelNames;
}): RegisterState {
	const { realm, user, all, systemBots, fields, server, params } = input;
	const wants = (type: string) => params.event_types === null || params.event_types.includes(type);
	const viewer = { user_id: user._id, role: user.role };
	const host = realmHost(realm);
	const out: RegisterState = {};

	if (wants("realm")) Object.assign(out, realmState(realm, server), { realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS });

	if (wants("realm_user")) {
		const opts = {
			clientGravatar: params.client_gravatar,
			includeCustomProfileFields: true,
			realmHost: host,
			fields: new Map(fields.map((f) => [f._id, f])),
		};
		const view = (u: UserDoc) => {
			const v: Record<string, unknown> = { ...toApiUser(u, viewer, opts) };
			if (params.user_avatar_url_field_optional) delete v.avatar_url;
			return v;
		};
		Object.assign(out, {
			realm_users: all.filter((u) => u.is_active).map(view),
			realm_non_active_users: all.filter((u) => !u.is_active).map(view),
			cross_realm_bots: systemBots.map((u) => ({ ...view(u), is_system_bot: true })),
			avatar_source: user.avatar_source,
			avatar_url: avatarUrl(user),
			avatar_url_medium: avatarUrl(user, true),
			can_create_streams: !isGuest(user.role),
			can_create_public_streams: !isGuest(user.role),
			can_create_private_streams: !isGuest(user.role),
			can_create_web_public_streams: false,
			can_subscribe_other_users: !isGuest(user.role),
			can_invite_others_to_realm: !isGuest(user.role),
			is_admin: isAdmin(user.role),
			is_owner: isOwner(user.role),
			is_billing_admin: user.is_billing_admin,
			is_moderator: isModerator(user.role),
			is_guest: isGuest(user.role),
			user_id: user._id,
			email: toApiUser(user, viewer, opts).email,
			delivery_email: user.delivery_email,
			full_name: user.full_name,
		});
	}

	const settings = userSettings(user);
	if (wants("user_settings")) out.user_settings = settings;
	if (!params.client_capabilities.user_settings_object) {
		if (wants("update_display_settings")) {
			for (const k of LEGACY_DISPLAY) out[k] = settings[k];
			out.emojiset_choices = EMOJISET_CHOICES;
		}
		if (wants("update_global_notifications")) {
			for (const k of LEGACY_NOTIFICATIONS) out[k] = settings[k];
			out.available_notification_sounds = AVAILABLE_NOTIFICATION_SOUNDS;
		}
	}

	if (wants("realm_user_settings_defaults")) {
		const defaults: Record<string, unknown> = {};
		for (const [k, def] of Object.entries(USER_SETTINGS)) if (k !== "timezone") defaults[k] = def.default;
		out.realm_user_settings_defaults = { ...defaults, available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS, emojiset_choices: EMOJISET_CHOICES };
	}

	if (wants("realm_bot")) {
		const bots = all.filter((u) => u.is_bot && (isAdmin(user.role) || u.bot_owner_id === user._id));
		out.realm_bots = bots.map((b) => realmBotView(b, input.channelNames ?? {}));
	}

	if (wants("custom_profile_fields")) {
		out.custom_profile_fields = fields.map(fieldView);
		out.custom_profile_field_types = FIELD_TYPES;
	}

	// State the users service owns but whose features come later: present, and empty.
	const empty: Record<string, () => unknown> = {
		realm_domains: () => ({ realm_domains: [] }),
		realm_filters: () => ({ realm_filters: [] }),
		realm_embedded_bots: () => ({ realm_embedded_bots: [] }),
		realm_incoming_webhook_bots: () => ({ realm_incoming_webhook_bots: [] }),
		onboarding_steps: () => ({ onboarding_steps: [] }),
		video_calls: () => ({ has_zoom_token: false }),
		giphy: () => ({ giphy_api_key: "" }),
	};
	for (const [type, make] of Object.entries(empty)) if (wants(type)) Object.assign(out, make());

	return out;
}
