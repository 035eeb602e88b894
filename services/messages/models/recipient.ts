// Conversations: one recipient ID per channel and per set of direct-message participants, so
// that both directions of a one-to-one conversation share it (feature level 327).
// Queries: by key -> { key } unique; the direct conversations including some users (dm-including)
// -> { user_ids } (multikey).
import { Connection, Schema } from "mongoose";

export interface RecipientDoc {
	_id: number;
	/** "channel:<id>" or "dm:<sorted user IDs>". */
	key: string;
	/** Direct conversations: the participants, as in the key. Empty for channels. */
	user_ids: number[];
}

const schema = new Schema<RecipientDoc>({ _id: Number, key: { type: String, required: true }, user_ids: { type: [Number], default: [] } }, { versionKey: false });
schema.index({ key: 1 }, { unique: true });
schema.index({ user_ids: 1 });

export const recipientModel = (conn: Connection) => conn.model<RecipientDoc>("Recipient", schema, "recipients");
