// Pending email address changes, each waiting for its confirmation link to be opened.
// Queries: by key (_id); the pending change of a user -> { user_id }.
import { Connection, Schema } from "mongoose";

export interface EmailChangeDoc {
	/** The secret in the confirmation link. */
	_id: string;
	user_id: number;
	new_email: string;
	/** UNIX seconds after which the link no longer works. */
	expires: number;
}

const schema = new Schema<EmailChangeDoc>(
	{
		_id: String,
		user_id: { type: Number, required: true },
		new_email: { type: String, required: true },
		expires: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1 });

export const emailChangeModel = (conn: Connection) => conn.model<EmailChangeDoc>("EmailChange", schema, "email_changes");
