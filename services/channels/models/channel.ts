// Channels. Query shapes and their indexes:
//   by id                                  -> _id
//   by name in a realm (case-insensitive)  -> { realm_id, name_key } unique
//   all channels of a realm                -> { realm_id, name_key } (prefix)
//   default channels of a realm            -> { realm_id, is_default }
import { Connection, Schema } from "mongoose";
import type { GroupSettingValue } from "../../../shared/group-settings";

export const CHANNEL_GROUP_SETTINGS = [
	"can_add_subscribers_group",
	"can_remove_subscribers_group",
	"can_administer_channel_group",
	"can_delete_any_message_group",
	"can_delete_own_message_group",
	"can_move_messages_out_of_channel_group",
	"can_move_messages_within_channel_group",
	"can_send_message_group",
] as const;

export type ChannelGroupSetting = (typeof CHANNEL_GROUP_SETTINGS)[number];

export const TOPICS_POLICIES = ["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"] as const;

export interface ChannelDoc {
	_id: number;
	realm_id: number;
	name: string;
	name_key: string;
	description: string;
	rendered_description: string;
	invite_only: boolean;
	is_web_public: boolean;
	history_public_to_subscribers: boolean;
	is_archived: boolean;
	is_default: boolean;
	date_created: number;
	creator_id: number | null;
	/** null: the organization's setting; -1: forever; otherwise days. */
	message_retention_days: number | null;
	topics_policy: (typeof TOPICS_POLICIES)[number];
	first_message_id: number | null;
	/** UNIX seconds of the newest message, kept from the messages service's events. */
	last_message_at: number | null;
	/** Whether any message was sent to a non-empty topic (for topics_policy empty_topic_only). */
	has_named_topics: boolean;
	folder_id: number | null;
	settings: Record<ChannelGroupSetting, GroupSettingValue>;
}

const schema = new Schema<ChannelDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		name: { type: String, required: true },
		name_key: { type: String, required: true },
		description: { type: String, default: "" },
		rendered_description: { type: String, default: "" },
		invite_only: { type: Boolean, default: false },
		is_web_public: { type: Boolean, default: false },
		history_public_to_subscribers: { type: Boolean, default: true },
		is_archived: { type: Boolean, default: false },
		is_default: { type: Boolean, default: false },
		date_created: { type: Number, required: true },
		creator_id: { type: Number, default: null },
		message_retention_days: { type: Number, default: null },
		topics_policy: { type: String, default: "inherit" },
		first_message_id: { type: Number, default: null },
		last_message_at: { type: Number, default: null },
		has_named_topics: { type: Boolean, default: false },
		folder_id: { type: Number, default: null },
		settings: { type: Schema.Types.Mixed, default: {} },
	},
	{ versionKey: false, minimize: false },
);
schema.index({ realm_id: 1, name_key: 1 }, { unique: true });
schema.index({ realm_id: 1, is_default: 1 });

export const channelModel = (conn: Connection) => conn.model<ChannelDoc>("Channel", schema, "channels");
