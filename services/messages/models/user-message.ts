// A user's copy of a message they received (as Zulip's UserMessage), with their flags. The
// message's conversation is repeated here so a user's history can be narrowed without a join.
// Query shapes and their indexes:
//   a user's history around an anchor        -> { user_id, message_id }
//   ... in a channel / topic                 -> { user_id, channel_id, topic_key, message_id }
//   ... in a conversation                    -> { user_id, recipient_id, message_id }
//   a user's flags for some messages         -> { user_id, message_id } (with message_id $in)
//   every copy of a message (edits, deletes) -> { message_id }
import { Connection, Schema } from "mongoose";

export interface UserMessageDoc {
	_id: string;
	user_id: number;
	message_id: number;
	flags: string[];
	channel_id: number | null;
	topic_key: string;
	recipient_id: number;
	sender_id: number;
	/** Copied from the message, for the has: narrows over a user's history. */
	has_link: boolean;
	has_image: boolean;
	has_attachment: boolean;
}

const schema = new Schema<UserMessageDoc>(
	{
		_id: String,
		user_id: { type: Number, required: true },
		message_id: { type: Number, required: true },
		flags: { type: [String], default: [] },
		channel_id: { type: Number, default: null },
		topic_key: { type: String, default: "" },
		recipient_id: { type: Number, required: true },
		sender_id: { type: Number, required: true },
		has_link: { type: Boolean, default: false },
		has_image: { type: Boolean, default: false },
		has_attachment: { type: Boolean, default: false },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1, message_id: 1 }, { unique: true });
schema.index({ user_id: 1, channel_id: 1, topic_key: 1, message_id: 1 });
schema.index({ user_id: 1, recipient_id: 1, message_id: 1 });
schema.index({ message_id: 1 });

export const userMessageKey = (userId: number, messageId: number) => `${userId}:${messageId}`;

export const userMessageModel = (conn: Connection) => conn.model<UserMessageDoc>("UserMessage", schema, "user_messages");
