// An uploaded file that decoded as an image (Zulip's ImageAttachment): its dimensions as shown
// (after its EXIF orientation), its frame count, and the thumbnails made of it, each a GridFS file
// of its own (thumbnails.ts). A file without this row is no image to preview: a link stays a link.
// Query shapes and their indexes:
//   one image by its URL path (unique)       -> { path_id }
//   the images a message links ($in)         -> { path_id }
import { Connection, Schema, type Types } from "mongoose";

/** One thumbnail made (Zulip's StoredThumbnailFormat), and where its bytes are. */
export interface StoredThumbnail {
	extension: string;
	content_type: string;
	max_width: number;
	max_height: number;
	animated: boolean;
	/** The thumbnail's own size (a frame's height for an animated one). */
	width: number;
	height: number;
	byte_size: number;
	file_id: Types.ObjectId;
}

export interface ImageAttachmentDoc {
	_id: Types.ObjectId;
	realm_id: number;
	path_id: string;
	original_width_px: number;
	original_height_px: number;
	frames: number;
	content_type: string;
	/** Empty until the thumbnails are made (a message linking it shows Zulip's spinner meanwhile). */
	thumbnail_metadata: StoredThumbnail[];
}

const thumbnailSchema = new Schema<StoredThumbnail>(
	{
		extension: { type: String, required: true },
		content_type: { type: String, required: true },
		max_width: { type: Number, required: true },
		max_height: { type: Number, required: true },
		animated: { type: Boolean, required: true },
		width: { type: Number, required: true },
		height: { type: Number, required: true },
		byte_size: { type: Number, required: true },
		file_id: { type: Schema.Types.ObjectId, required: true },
	},
	{ _id: false, versionKey: false },
);

const schema = new Schema<ImageAttachmentDoc>(
	{
		realm_id: { type: Number, required: true },
		path_id: { type: String, required: true },
		original_width_px: { type: Number, required: true },
		original_height_px: { type: Number, required: true },
		frames: { type: Number, required: true },
		content_type: { type: String, required: true },
		thumbnail_metadata: { type: [thumbnailSchema], default: [] },
	},
	{ versionKey: false },
);
schema.index({ path_id: 1 }, { unique: true });

export const imageAttachmentModel = (conn: Connection) => conn.model<ImageAttachmentDoc>("ImageAttachment", schema, "image_attachments");
