// Conversations: one recipient ID per channel and per set of direct-message participants, so
// that both directions of a one-to-one conversation share it (feature level 327).
// Query: by key -> { key } unique.
import { Connection, Schema } from "mongoose";

export interface RecipientDoc {
	_id: number;
	/** "channel:<id>" or "dm:<sorted user IDs>". */
	key: string;
}

const schema = new Schema<RecipientDoc>({ _id: Number, key: { type: String, required: true } }, { versionKey: false });
schema.index({ key: 1 }, { unique: true });

export const recipientModel = (conn: Connection) => conn.model<RecipientDoc>("Recipient", schema, "recipients");
