// Where an export's data comes from. The writer (write-export.ts) reads through an ExportSource
// and knows nothing of where it reads:
//   - busSource: the organization's public data, through the services' export actions
//     (POST /export/realm, run by the uploads service's export job: Zulip's public export);
//   - the management CLI's direct reads of every service's database (deploy/export/), which add
//     `full`: everything else the server keeps (Zulip's `manage.py export`).
// Both answer in the services' own terms (shared/export-rows.ts); the table modules turn them
// into Zulip's tables.
import { call, type Caller } from "../actions";
import type { ExportChannel, ExportMessage, ExportReaction, ExportSubscription, ExportUser, ExportUserMessage } from "../export-rows";
import type { GroupGraphData, GroupSettingValue } from "../group-settings";
import type { RealmImageKind } from "./realm-table";
import type { FileFolder } from "./tables";

export interface ExportSource {
	/** The users after `afterId` in ID order, at most `limit`. */
	users(afterId: number, limit: number): Promise<ExportUser[]>;
	/** The channels the export holds (public ones, or all in a full export) and the default ones. */
	channels(): Promise<{ channels: ExportChannel[]; default_channel_ids: number[] }>;
	subscriptions(channelIds: number[]): Promise<ExportSubscription[]>;
	/**
	 * The messages after `afterId` in ID order, at most `limit`, of these channels (a full source:
	 * every message, direct ones too), with their reactions.
	 */
	messages(channelIds: number[], afterId: number, limit: number): Promise<{ messages: ExportMessage[]; reactions: ExportReaction[] }>;
	groupGraph(): Promise<GroupGraphData>;
	/** Only a full export's source. */
	full?: FullSource;
}

/** What a full export holds beyond the public one. */
export interface FullSource {
	/** Each user's flags on these messages. */
	userMessages(messageIds: number[]): Promise<ExportUserMessage[]>;
	/** The named groups' own fields, by group ID. */
	groupDetails(): Promise<Map<number, GroupDetails>>;
	extras(): Promise<FullExtras>;
	/** The stored files, one at a time: uploads, custom emoji, avatars, the organization's icon and logos. */
	files(): AsyncIterable<ExportFile>;
}

export interface GroupDetails {
	description: string;
	creator_id: number | null;
	/** UNIX seconds. */
	date_created: number | null;
	settings: Record<string, GroupSettingValue>;
}

/** The small tables of a full export, in the services' terms. Times are UNIX seconds. */
export interface FullExtras {
	user_topics: Array<{ user_id: number; channel_id: number; topic: string; visibility_policy: number; last_updated: number }>;
	muted_users: Array<{ user_id: number; muted_user_id: number; date_muted: number }>;
	alert_words: Array<{ user_id: number; words: string[] }>;
	user_statuses: Array<{ user_id: number; status_text: string; emoji_name: string; emoji_code: string; reaction_type: string; timestamp: number }>;
	bot_storage: Array<{ bot_id: number; key: string; value: string }>;
	linkifiers: Array<{ id: number; pattern: string; url_template: string; order: number }>;
	playgrounds: Array<{ id: number; name: string; pygments_language: string; url_template: string }>;
	emoji: Array<{ id: number; name: string; author_id: number | null; file_name: string; is_animated: boolean; deactivated: boolean }>;
	scheduled: ExportScheduled[];
	attachments: ExportAttachment[];
	/** The organization's uploaded icon and logos: each one's version. */
	realm_images: Partial<Record<RealmImageKind, { version: number }>>;
}


export interface ExportScheduled {
	id: number;
	sender_id: number;
	/** A channel ID, or a direct message's other users. */
	to: number | number[];
	topic: string;
	content: string;
	rendered_content: string;
	scheduled_timestamp: number;
	read_by_sender: boolean;
	state: "scheduled" | "delivered" | "failed";
	failure_message: string | null;
	delivered_message_id: number | null;
}

export interface ExportAttachment {
	id: number;
	path_id: string;
	file_name: string;
	size: number;
	content_type: string;
	owner_id: number;
	create_time: number;
	message_ids: number[];
	is_realm_public: boolean;
	is_web_public: boolean;
}

/**
 * A stored file and where it goes: `folder/path` in the export (Zulip's layout: uploads/ by
 * path_id, emoji/ and avatars/ by the organization's ID, realm_icons/ as `<realm>/realm/icon.png`).
 */
export interface ExportFile {
	folder: FileFolder;
	path: string;
	bytes: Buffer;
	content_type: string;
	/** UNIX seconds. */
	last_modified: number;
	/** Whose file it is (uploads, avatars) or who added it (emoji). */
	user_id: number | null;
	/** A custom emoji's image: the emoji. */
	emoji?: { name: string; file_name: string; deactivated: boolean };
}

/** The public data, read from the other services in bulk (a page or a batch a call). */
export function busSource(bus: Caller): ExportSource {
	return {
		users: async (after_id, limit) => (await call(bus, "users.exportUsers", { after_id, limit })).users,
		channels: () => call(bus, "channels.exportChannels", {}),
		subscriptions: async (channel_ids) => (await call(bus, "channels.exportSubscriptions", { channel_ids })).subscriptions,
		messages: (channel_ids, after_id, limit) => call(bus, "messages.exportMessages", { channel_ids, after_id, limit }),
		groupGraph: () => call(bus, "users.groupGraph", {}),
	};
}
