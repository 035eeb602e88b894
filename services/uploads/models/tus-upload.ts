// A resumable upload (the tus protocol, POST /api/v1/tus): its declared length, how many bytes it
// holds, and the bytes of its last chunk while that chunk is still short. Full chunks are GridFS
// chunks of the file `_id` (file-store.ts), written from here; the file document only when the
// upload is finished (tus/tus-rules.ts). The state lives here, not in a gateway, so any gateway
// replica resumes the upload where another left it.
// Query shapes and their indexes:
//   one upload by ID                               -> _id
//   uploads untouched for a while, oldest first    -> { updated }
import { Connection, Schema, type Types } from "mongoose";

export interface TusUploadDoc {
	_id: Types.ObjectId;
	user_id: number;
	realm_id: number;
	/** Upload-Length: the whole file's bytes. */
	length: number;
	/** Upload-Offset: the bytes received; those of full chunks are in GridFS, the rest in `tail`. */
	offset: number;
	/** The received bytes of the chunk `offset` falls in (offset % chunk size of them). */
	tail: Buffer;
	/** Set while the full chunk in `tail` (chunk number `flushing`) is copied into GridFS. */
	flushing?: number;
	/** The Upload-Metadata pairs, as JSON (their keys are the client's: no field names). */
	metadata: string;
	/** The name the upload will have and its URL path, fixed at creation as Zulip's pre-create hook does. */
	file_name: string;
	path_id: string;
	/** UNIX milliseconds. */
	created: number;
	updated: number;
	/** UNIX milliseconds when a request began making it a file (a claim, so two finishing requests cannot both). */
	finishing?: number;
	/** What the finishing request answered, for a client that asks again. */
	finished?: { url: string; filename: string };
}

const schema = new Schema<TusUploadDoc>(
	{
		_id: Schema.Types.ObjectId,
		user_id: { type: Number, required: true },
		realm_id: { type: Number, required: true },
		length: { type: Number, required: true },
		offset: { type: Number, required: true },
		tail: { type: Buffer, default: () => Buffer.alloc(0) },
		flushing: Number,
		metadata: { type: String, required: true },
		file_name: { type: String, required: true },
		path_id: { type: String, required: true },
		created: { type: Number, required: true },
		updated: { type: Number, required: true },
		finishing: Number,
		finished: { type: { _id: false, url: String, filename: String }, default: undefined },
	},
	{ versionKey: false },
);
schema.index({ updated: 1 });

export const tusUploadModel = (conn: Connection) => conn.model<TusUploadDoc>("TusUpload", schema, "tus_uploads");
