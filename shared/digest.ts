// The weekly digest's bus contract (services/notifications/digest/): what the users, channels and
// messages services answer, one batched call each per digest pass.
import type { Identity } from "./identity";

/** users.digestRecipients: the organization's digest settings and who may get a digest. */
export interface DigestRecipients {
	realm: { name: string; url: string; digest_emails_enabled: boolean; digest_weekday: number };
	/** Active humans with enable_digest_emails on, inactive since the cutoff; empty while the organization's digests are off. `guest`: sees only web-public new channels. */
	users: Array<{ user: Identity; guest: boolean }>;
}

/** channels.digestChannels: each user's channels for the digest, and the new channels. */
export interface DigestChannels {
	/** Channel IDs by user ID (as a string). */
	subscriptions: Record<string, number[]>;
	/** The names of those channels, by ID (as a string). */
	names: Record<string, string>;
	/** Channels created since the cutoff and not archived, by name. */
	new_channels: Array<{ id: number; name: string; invite_only: boolean; is_web_public: boolean }>;
}

/** messages.digestTopics: one topic's traffic in the period. */
export interface DigestTopicStats {
	channel_id: number;
	topic_key: string;
	/** The topic's first message in the period. */
	first_id: number;
	/** [sender ID, messages sent in the period]. */
	senders: Array<[number, number]>;
}

/** messages.digestSamples: a topic's first messages in the period. */
export interface DigestSample {
	channel_id: number;
	topic_key: string;
	/** The topic as its first message in the period spells it. */
	topic: string;
	messages: Array<{ id: number; sender_id: number; content: string; rendered_content: string }>;
}

export type DigestTopicRef = Pick<DigestTopicStats, "channel_id" | "topic_key" | "first_id">;
