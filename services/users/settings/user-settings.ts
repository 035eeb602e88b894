// Personal settings: every setting a user has, its type, allowed values and default. The user
// document stores only the values that differ from these defaults.
import type { UserDoc } from "../models/user";
import { LANGUAGE_CODES } from "./languages";

export type SettingType = "bool" | "int" | "string";

export interface SettingDef {
	type: SettingType;
	default: boolean | number | string;
	/** Allowed values, where the setting is an enumeration. */
	values?: readonly (number | string)[];
	/** Allowed range, for integers that are not enumerations. */
	min?: number;
	max?: number;
	/** A check beyond type and values (time zones, languages); returns false to refuse. */
	check?: (value: string) => boolean;
	/** The message for an integer out of min..max, where Zulip words it its own way. */
	outOfRange?: (value: number) => string;
	/**
	 * Other spellings accepted as input, each mapped to the value stored and answered; a stored
	 * alias (written before the alias existed) reads as its value too.
	 */
	aliases?: Readonly<Record<string, string>>;
}

const bool = (d: boolean): SettingDef => ({ type: "bool", default: d });
const int = (d: number, values?: number[]): SettingDef => ({ type: "int", default: d, values });
const range = (d: number, min: number, max: number): SettingDef => ({ type: "int", default: d, min, max });
const str = (d: string, values?: string[]): SettingDef => ({ type: "string", default: d, values });

/** Whether `tz` is an IANA time zone name this runtime knows ("" means unset). */
export function isTimeZone(tz: string): boolean {
	if (tz === "") return true;
	try {
		new Intl.DateTimeFormat("en", { timeZone: tz });
		return true;
	} catch {
		return false;
	}
}

export const USER_SETTINGS: Record<string, SettingDef> = {
	// Display
	twenty_four_hour_time: bool(false),
	dense_mode: bool(true),
	web_mark_read_on_scroll_policy: int(1, [1, 2, 3]),
	// The spec's stated constraint lists 1, 2, 4 but describes 3 (list of topics) too; all four
	// are accepted, since each has a described meaning.
	web_channel_default_view: int(1, [1, 2, 3, 4]),
	starred_message_counts: bool(true),
	receives_typing_notifications: bool(true),
	web_suggest_update_timezone: bool(true),
	fluid_layout_width: bool(false),
	high_contrast_mode: bool(false),
	web_font_size_px: range(16, 12, 20),
	web_line_height_percent: range(140, 122, 158),
	color_scheme: int(1, [1, 2, 3]),
	enable_drafts_synchronization: bool(true),
	translate_emoticons: bool(false),
	display_emoji_reaction_users: bool(true),
	default_language: { type: "string", default: "en", check: (v) => LANGUAGE_CODES.has(v) },
	web_home_view: str("inbox", ["recent_topics", "inbox", "all_messages"]),
	web_escape_navigates_to_home_view: bool(true),
	left_side_userlist: bool(false),
	// Zulip's values. The API description's neutral stand-ins for the two brand-named sets are
	// accepted as aliases, and values stored under them before read as Zulip's.
	emojiset: { ...str("google", ["google", "google-blob", "twitter", "text"]), aliases: { emoji_set_a: "google", emoji_set_b: "twitter" } },
	demote_inactive_streams: int(1, [1, 2, 3]),
	user_list_style: int(2, [1, 2, 3]),
	web_animate_image_previews: str("on_hover", ["always", "on_hover", "never"]),
	web_stream_unreads_count_display_policy: int(2, [1, 2, 3]),
	hide_ai_features: bool(false),
	web_left_sidebar_show_channel_folders: bool(true),
	web_left_sidebar_unreads_count_summary: bool(true),
	timezone: { type: "string", default: "", check: isTimeZone },
	enter_sends: bool(false),
	// Notifications
	enable_stream_desktop_notifications: bool(false),
	enable_stream_email_notifications: bool(false),
	enable_stream_push_notifications: bool(false),
	enable_stream_audible_notifications: bool(false),
	notification_sound: str("zulip", ["chime", "ding", "zulip", "none"]),
	enable_desktop_notifications: bool(true),
	enable_sounds: bool(true),
	// Zulip's bounds: more than zero, at most a week.
	email_notifications_batching_period_seconds: { ...range(120, 1, 7 * 24 * 3600), outOfRange: (v) => `Invalid email batching period: ${v} seconds` },
	enable_offline_email_notifications: bool(true),
	enable_offline_push_notifications: bool(true),
	enable_online_push_notifications: bool(true),
	enable_followed_topic_desktop_notifications: bool(true),
	enable_followed_topic_email_notifications: bool(true),
	enable_followed_topic_push_notifications: bool(true),
	enable_followed_topic_audible_notifications: bool(true),
	enable_digest_emails: bool(true),
	enable_marketing_emails: bool(true),
	enable_login_emails: bool(true),
	message_content_in_email_notifications: bool(true),
	pm_content_in_desktop_notifications: bool(true),
	wildcard_mentions_notify: bool(true),
	enable_followed_topic_wildcard_mentions_notify: bool(true),
	desktop_icon_count_display: int(1, [1, 2, 3]),
	realm_name_in_email_notifications_policy: int(1, [1, 2, 3]),
	automatically_follow_topics_policy: int(3, [1, 2, 3, 4]),
	automatically_unmute_topics_in_muted_streams_policy: int(2, [1, 2, 3, 4]),
	automatically_follow_topics_where_mentioned: bool(true),
	presence_enabled: bool(true),
	send_private_typing_notifications: bool(true),
	send_stream_typing_notifications: bool(true),
	send_read_receipts: bool(true),
	allow_private_data_export: bool(false),
	email_address_visibility: int(1, [1, 2, 3, 4, 5]),
};

export const AVAILABLE_NOTIFICATION_SOUNDS = ["chime", "ding", "zulip"];
/** Zulip's UserBaseSettings.emojiset_choices(), in its order. */
export const EMOJISET_CHOICES = [
	{ key: "google", text: "Google" },
	{ key: "twitter", text: "Twitter" },
	{ key: "text", text: "Plain text" },
	{ key: "google-blob", text: "Google blobs" },
];

/** A setting's value as stored or sent, with an alias read as the value it stands for. */
export function canonicalSetting(def: SettingDef, value: unknown): unknown {
	return typeof value === "string" && def.aliases && Object.hasOwn(def.aliases, value) ? def.aliases[value] : value;
}

/** The user's complete settings: stored values over the defaults. */
export function userSettings(user: Pick<UserDoc, "settings" | "timezone" | "email_address_visibility">): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [name, def] of Object.entries(USER_SETTINGS)) out[name] = canonicalSetting(def, user.settings?.[name] ?? def.default);
	out.timezone = user.timezone;
	out.email_address_visibility = user.email_address_visibility;
	out.available_notification_sounds = AVAILABLE_NOTIFICATION_SOUNDS;
	out.emojiset_choices = EMOJISET_CHOICES;
	return out;
}
