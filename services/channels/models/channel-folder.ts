// Channel folders: named groups of channels in the sidebar. Queries: a realm's folders, ordered
// -> { realm_id, order }; by name -> { realm_id, name_key } unique.
import { Connection, Schema } from "mongoose";

export interface ChannelFolderDoc {
	_id: number;
	realm_id: number;
	name: string;
	name_key: string;
	description: string;
	rendered_description: string;
	order: number;
	is_archived: boolean;
	creator_id: number | null;
	date_created: number;
}

const schema = new Schema<ChannelFolderDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		name: { type: String, required: true },
		name_key: { type: String, required: true },
		description: { type: String, default: "" },
		rendered_description: { type: String, default: "" },
		order: { type: Number, required: true },
		is_archived: { type: Boolean, default: false },
		creator_id: { type: Number, default: null },
		date_created: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ realm_id: 1, name_key: 1 }, { unique: true });
schema.index({ realm_id: 1, order: 1 });

export const channelFolderModel = (conn: Connection) => conn.model<ChannelFolderDoc>("ChannelFolder", schema, "channel_folders");
