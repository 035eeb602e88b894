// An uploaded file as the API knows it (Zulip's Attachment): its path in URLs, the name the
// uploader gave, its owner, and the messages that link it (its claims). The bytes are in GridFS
// (file-store.ts) under `file_id`.
//
// Decision: each claim keeps whether its message is in a public / web-public channel, and the
// file is realm-public (web-public) while any claim is (claim-rules.ts isRealmPublic). Zulip keeps
// one sticky flag per file that only a move resets; here a file linked only from a deleted or
// edited-away public message stops being public at once.
// Query shapes and their indexes:
//   a file by its URL path (unique)        -> { path_id }
//   an owner's files, by ID                -> { owner_id, _id }
//   the files a message links              -> { messages.id }
//   the files a channel's messages link     -> { messages.channel_id }
//   unclaimed files due for removal         -> { sweep_after }
//   the organization's files, in pages (export-zulip) -> { realm_id, _id }
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
	/** The messages that link the file, in the order they claimed it. */
	messages: AttachmentClaim[];
	/** While no message links it: when the file may be removed (unclaimed.ts), UNIX milliseconds; absent while claimed. */
	sweep_after?: number;
}

/** A message that links the file. */
export interface AttachmentClaim {
	id: number;
	/** The message's channel; null for a direct message. */
	channel_id: number | null;
	/** When the message was sent, UNIX milliseconds (GET /attachments' date_sent). */
	date_sent: number;
	/** The message is in a public channel (every member but guests may read it) / a web-public one. */
	is_realm_public: boolean;
	is_web_public: boolean;
}

const claimSchema = new Schema<AttachmentClaim>(
	{ id: { type: Number, required: true }, channel_id: { type: Number, default: null }, date_sent: { type: Number, required: true }, is_realm_public: Boolean, is_web_public: Boolean },
	{ _id: false },
);

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
		messages: { type: [claimSchema], default: [] },
		sweep_after: Number,
	},
	{ versionKey: false },
);
schema.index({ path_id: 1 }, { unique: true });
schema.index({ realm_id: 1, _id: 1 });
schema.index({ owner_id: 1, _id: -1 });
schema.index({ "messages.id": 1 });
schema.index({ "messages.channel_id": 1 });
schema.index({ sweep_after: 1 }, { sparse: true });

export const attachmentModel = (conn: Connection) => conn.model<AttachmentDoc>("Attachment", schema, "attachments");
