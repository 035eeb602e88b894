// A user's copy of a message they received (as Zulip's UserMessage), with their flags. The
// message's conversation is repeated here so a user's history can be narrowed without a join.
// Query shapes and their indexes:
//   a user's history around an anchor        -> { user_id, message_id }
//   ... in a channel / topic                 -> { user_id, channel_id, topic_key, message_id }
//   ... in a conversation                    -> { user_id, recipient_id, message_id }
//   a user's flags for some messages         -> { user_id, message_id } (with message_id $in)
//   every copy of a message (edits, deletes) -> { message_id }
//   a user's starred / mentioned / unread rows -> { user_id, flags, message_id } (multikey; unread
//     is "flags not read", which MongoDB answers from the { user_id, message_id } or channel index)
import { Connection, Schema } from "mongoose";
import type { MessageDoc } from "./message";

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
schema.index({ user_id: 1, flags: 1, message_id: 1 });

export const userMessageKey = (userId: number, messageId: number) => `${userId}:${messageId}`;

type RowSource = Pick<MessageDoc, "_id" | "channel_id" | "topic_key" | "recipient_id" | "sender_id" | "has_link" | "has_image" | "has_attachment">;

/** A user's row for a message, with the conversation copied from it. */
export function userMessageRow(userId: number, m: RowSource, flags: string[]): UserMessageDoc {
	return {
		_id: userMessageKey(userId, m._id),
		user_id: userId,
		message_id: m._id,
		flags,
		channel_id: m.channel_id,
		topic_key: m.topic_key,
		recipient_id: m.recipient_id,
		sender_id: m.sender_id,
		has_link: m.has_link,
		has_image: m.has_image,
		has_attachment: m.has_attachment,
	};
}

export const userMessageModel = (conn: Connection) => conn.model<UserMessageDoc>("UserMessage", schema, "user_messages");
