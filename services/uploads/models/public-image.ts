// The images served at /user_avatars/<path> (Zulip's avatar bucket): custom emoji (their resized
// image, still version and original) and avatars (their two sizes and original). The bytes are in
// GridFS (file-store.ts) under `file_id`; the metadata (which emoji, whose avatar) belongs to the
// users service, which names these paths.
// Query shapes and their indexes:
//   an image by its URL path         -> { _id } (the path)
import { Connection, Schema, type Types } from "mongoose";

export interface PublicImageDoc {
	/** `<realm_id>/emoji/images/<file name>` or `<realm_id>/<avatar hash>[-medium].png`, and `.original`s. */
	_id: string;
	realm_id: number;
	file_id: Types.ObjectId;
	length: number;
	content_type: string;
	/** UNIX milliseconds. */
	stored: number;
}

const schema = new Schema<PublicImageDoc>(
	{
		_id: String,
		realm_id: { type: Number, required: true },
		file_id: { type: Schema.Types.ObjectId, required: true },
		length: { type: Number, required: true },
		content_type: { type: String, required: true },
		stored: { type: Number, required: true },
	},
	{ versionKey: false },
);

export const publicImageModel = (conn: Connection) => conn.model<PublicImageDoc>("PublicImage", schema, "public_images");
