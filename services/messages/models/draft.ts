// Drafts a user keeps on the server to synchronize them between their clients.
// Query shapes and their indexes:
//   a user's drafts, most recently edited first -> { user_id, timestamp, _id } (ties by ID)
//   one draft (edit, delete)                     -> _id, checked against user_id
import { Connection, Schema } from "mongoose";

export interface DraftDoc {
	_id: number;
	user_id: number;
	/** "" (not addressed yet), "stream" or "private". */
	type: "" | "stream" | "private";
	to: number[];
	topic: string;
	content: string;
	timestamp: number;
}

const schema = new Schema<DraftDoc>(
	{
		_id: Number,
		user_id: { type: Number, required: true },
		type: { type: String, default: "" },
		to: { type: [Number], default: [] },
		topic: { type: String, default: "" },
		content: { type: String, default: "" },
		timestamp: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1, timestamp: -1, _id: -1 });

export const draftModel = (conn: Connection) => conn.model<DraftDoc>("Draft", schema, "drafts");
