// Each user's alert words: a message containing one gets the has_alert_word flag for them.
// Query: the alert words of a message's recipients -> _id (the user ID) $in.
import { Connection, Schema } from "mongoose";

export interface AlertWordsDoc {
	_id: number;
	words: string[];
}

const schema = new Schema<AlertWordsDoc>({ _id: Number, words: { type: [String], default: [] } }, { versionKey: false });

export const alertWordsModel = (conn: Connection) => conn.model<AlertWordsDoc>("AlertWords", schema, "alert_words");
