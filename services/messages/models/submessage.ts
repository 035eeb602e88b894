// Submessages: the data of a message's widget (a poll, a to-do list), as Zulip's SubMessage. The
// first, msg_type "widget", says what the widget is; later ones (votes, new options, tasks) are
// what its users did. Most messages have none: a message with any carries has_submessages, so a
// page of messages without one costs no query here.
// Query shapes and their indexes:
//   the submessages of some messages, oldest first (message objects, a widget's type,
//   whether the message's sender attached one)  -> { message_id, _id }
import { Connection, Schema } from "mongoose";

export interface SubmessageDoc {
	_id: number;
	message_id: number;
	sender_id: number;
	msg_type: string;
	/** JSON text, kept as sent: clients parse it. */
	content: string;
}

const schema = new Schema<SubmessageDoc>(
	{
		_id: Number,
		message_id: { type: Number, required: true },
		sender_id: { type: Number, required: true },
		msg_type: { type: String, required: true },
		content: { type: String, required: true },
	},
	{ versionKey: false },
);
schema.index({ message_id: 1, _id: 1 });

export const submessageModel = (conn: Connection) => conn.model<SubmessageDoc>("Submessage", schema, "submessages");
