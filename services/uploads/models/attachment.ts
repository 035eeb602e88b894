// An uploaded file as the API knows it (Zulip's Attachment): its path in URLs, the name the
// uploader gave, its owner, and the messages that link it (its claims). The bytes are in GridFS
// (file-store.ts) under `file_id`.
// Query shapes and their indexes:
//   a file by its URL path (unique)        -> { path_id }
//   an owner's files, newest first         -> { owner_id, _id }
//   the files a message links              -> { messages }
import { Connection, Schema, type Types } from "mongoose";

export interface AttachmentDoc {
	_id: number;
	realm_id: number;
	/** `<realm>/<xx>/<random>/<sanitized name>`: the URL is `/user_uploads/<path_id>`. */
	path_id: string;
	/** The name the uploader gave. */
	file_name: string;
	size: number;
	content_type: string;
	owner_id: number;
	/** UNIX milliseconds. */
	create_time: number;
	file_id: Types.ObjectId;
	/** IDs of the messages that link the file. */
	messages: number[];
	/** Linked from a message every member may read (a public channel) / anyone may (web-public). */
	is_realm_public: boolean;
	is_web_public: boolean;
}

const schema = new Schema<AttachmentDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		path_id: { type: String, required: true },
		file_name: { type: String, required: true },
		size: { type: Number, required: true },
		content_type: { type: String, required: true },
		owner_id: { type: Number, required: true },
		create_time: { type: Number, required: true },
		file_id: { type: Schema.Types.ObjectId, required: true },
		messages: { type: [Number], default: [] },
		is_realm_public: { type: Boolean, default: false },
		is_web_public: { type: Boolean, default: false },
	},
	{ versionKey: false },
);
schema.index({ path_id: 1 }, { unique: true });
schema.index({ owner_id: 1, _id: -1 });
schema.index({ messages: 1 });

export const attachmentModel = (conn: Connection) => conn.model<AttachmentDoc>("Attachment", schema, "attachments");
