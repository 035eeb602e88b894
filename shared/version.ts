// What this server tells clients about itself, and the size limits clients read from
// POST /register. One place, so every service validates against the same numbers.

/**
 * The highest feature level whose behaviour the spec describes (370: "(no topic)" read as the
 * empty topic). Clients gate features on this number.
 */
export const ZULIP_FEATURE_LEVEL = 370;
export const ZULIP_VERSION = "11.0-dev";
export const ZULIP_MERGE_BASE = "11.0-dev";

export const LIMITS = {
	max_message_length: 10_000,
	max_topic_length: 60,
	max_stream_name_length: 60,
	max_stream_description_length: 1024,
	max_full_name_length: 100,
	max_email_length: 254,
	password_min_length: 6,
	password_max_length: 100,
} as const;
