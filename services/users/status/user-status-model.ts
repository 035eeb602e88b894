// Each user's status, as Zulip's UserStatus: one document per user (its _id the user's ID), made
// by the first POST /users/me/status and kept (emptied, never removed) from then on: with
// presence_enabled off, an empty status still reads as `away`. Queries and their indexes:
//   one user's (GET /users/{id}/status, the upsert)         -> _id
//   the organization's (POST /register's user_status)       -> { realm_id }
import { Connection, Schema } from "mongoose";

export type StatusReactionType = "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";

export interface UserStatusDoc {
	/** The user's ID. */
	_id: number;
	realm_id: number;
	/** "" when none. */
	status_text: string;
	/** "" when none; then emoji_code is "" and reaction_type unicode_emoji, as Zulip clears them. */
	emoji_name: string;
	emoji_code: string;
	reaction_type: StatusReactionType;
	/** When the status last changed. */
	timestamp: Date;
}

const schema = new Schema<UserStatusDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		status_text: { type: String, default: "" },
		emoji_name: { type: String, default: "" },
		emoji_code: { type: String, default: "" },
		reaction_type: { type: String, default: "unicode_emoji" },
		timestamp: { type: Date, required: true },
	},
	{ versionKey: false },
);
schema.index({ realm_id: 1 });

export const userStatusModel = (conn: Connection) => conn.model<UserStatusDoc>("UserStatus", schema, "user_status");
