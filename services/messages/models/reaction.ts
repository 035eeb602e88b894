// Emoji reactions: one document per user, message and emoji. Reactions are matched by
// (reaction_type, emoji_code), so a reaction made under an older name of an emoji still matches.
// Query shapes and their indexes:
//   the reactions on some messages (message objects) -> { message_id, _id }
//   one user's reaction with one emoji (add, remove) -> the unique key below
import { Connection, Schema } from "mongoose";

export type ReactionType = "unicode_emoji" | "realm_emoji" | "service_extra_emoji";

export interface ReactionDoc {
	_id: number;
	message_id: number;
	user_id: number;
	emoji_name: string;
	emoji_code: string;
	reaction_type: ReactionType;
}

const schema = new Schema<ReactionDoc>(
	{
		_id: Number,
		message_id: { type: Number, required: true },
		user_id: { type: Number, required: true },
		emoji_name: { type: String, required: true },
		emoji_code: { type: String, required: true },
		reaction_type: { type: String, required: true },
	},
	{ versionKey: false },
);
schema.index({ message_id: 1, user_id: 1, reaction_type: 1, emoji_code: 1 }, { unique: true });
schema.index({ message_id: 1, _id: 1 });

export const reactionModel = (conn: Connection) => conn.model<ReactionDoc>("Reaction", schema, "reactions");
