// Users a user has muted, as Zulip's MutedUser: one document per (muter, muted) pair, its _id the
// pair, so a second mute of the same user is refused by the key. Queries and their indexes:
//   a user's mutes (register, the muted_users event)      -> { user_id, muted_user_id }
//   who muted a sender (the messages service's send path)  -> { muted_user_id, user_id }
import { Connection, Schema } from "mongoose";

export interface MutedUserDoc {
	/** `<user_id>:<muted_user_id>`. */
	_id: string;
	/** The muter. */
	user_id: number;
	muted_user_id: number;
	/** UNIX seconds. */
	date_muted: number;
}

const schema = new Schema<MutedUserDoc>(
	{
		_id: String,
		user_id: { type: Number, required: true },
		muted_user_id: { type: Number, required: true },
		date_muted: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1, muted_user_id: 1 });
schema.index({ muted_user_id: 1, user_id: 1 });

export const mutedUserKey = (userId: number, mutedUserId: number) => `${userId}:${mutedUserId}`;

export const mutedUserModel = (conn: Connection) => conn.model<MutedUserDoc>("MutedUser", schema, "muted_users");
