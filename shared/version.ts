// What this server tells clients about itself, and the size limits clients read from
// POST /register. One place, so every service validates against the same numbers.

/**
 * The feature level whose behaviour this server implements, and no higher: the spec's 370 ("(no
 * topic)" read as the empty topic in sends), 371 (Zulip 10.0's release, no change) and 372
 * (Zulip 10.1: "(no topic)" read as the empty topic in POST /typing). 373-376 are reserved; 377
 * (peer_remove on deactivation) is not claimed. Clients gate features on this number: the
 * official mobile app warns of an unsupported server below 371.
 */
export const ZULIP_FEATURE_LEVEL = 372;
export const ZULIP_VERSION = "10.1";
export const ZULIP_MERGE_BASE = "10.1";

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
