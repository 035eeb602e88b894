// A file being received: its bytes go into GridFS chunk by chunk under `_id` (the GridFS file ID)
// until the endpoint's action completes it. One left behind by a client or gateway that went
// away is removed, bytes and all, after PENDING_TTL_MS (uploads.service.ts).
// Query shapes and their indexes:
//   one upload by ID                        -> _id
//   uploads left behind, oldest first       -> { started }
import { Connection, Schema, type Types } from "mongoose";

export interface PendingUploadDoc {
	_id: Types.ObjectId;
	user_id: number;
	realm_id: number;
	/** The action that will complete it (the route's action): a chunk for one purpose cannot finish another. */
	action: string;
	/** The most bytes this purpose takes. */
	max_bytes: number;
	/** UNIX milliseconds. */
	started: number;
}

const schema = new Schema<PendingUploadDoc>(
	{
		_id: Schema.Types.ObjectId,
		user_id: { type: Number, required: true },
		realm_id: { type: Number, required: true },
		action: { type: String, required: true },
		max_bytes: { type: Number, required: true },
		started: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ started: 1 });

export const pendingUploadModel = (conn: Connection) => conn.model<PendingUploadDoc>("PendingUpload", schema, "pending_uploads");
