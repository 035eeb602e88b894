// Unsubscribe links (Zulip's one_click_unsubscribe_link): a key in the link of an email that turns
// one kind of email off for its recipient without logging in. Only the key's SHA-256 is stored,
// so a copy of the database opens no link. Keys do not expire, as Zulip's do not.
import { Connection, Schema } from "mongoose";
import type { Identity } from "../../../shared/actions";

export interface UnsubscribeKeyDoc {
	/** SHA-256 of the key, hex. */
	_id: string;
	type: string;
	user_id: number;
	/** The recipient as the email was sent, who the setting change is made as (login emails). */
	user: Identity | null;
	created_at: number;
}

const schema = new Schema<UnsubscribeKeyDoc>(
	{
		_id: String,
		type: { type: String, required: true },
		user_id: { type: Number, required: true },
		user: { type: Schema.Types.Mixed, default: null },
		created_at: { type: Number, required: true },
	},
	{ versionKey: false },
);

export const unsubscribeKeyModel = (conn: Connection) => conn.model<UnsubscribeKeyDoc>("UnsubscribeKey", schema, "unsubscribe_keys");
