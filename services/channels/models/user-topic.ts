// A user's visibility policy for one topic: 1 muted, 2 unmuted, 3 followed (0, none, is no row).
// Queries: a user's topics -> { user_id } (prefix of _id "<user>:<channel>:<topic key>"), by key -> _id,
// a channel's (a topic deleted) -> { channel_id }.
import { Connection, Schema } from "mongoose";

export const VisibilityPolicy = { NONE: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export interface UserTopicDoc {
	_id: string;
	user_id: number;
	channel_id: number;
	/** The topic as the user last named it; matching is case-insensitive. */
	topic: string;
	visibility_policy: number;
	last_updated: number;
}

const schema = new Schema<UserTopicDoc>(
	{
		_id: String,
		user_id: { type: Number, required: true },
		channel_id: { type: Number, required: true },
		topic: { type: String, default: "" },
		visibility_policy: { type: Number, required: true },
		last_updated: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1 });
schema.index({ channel_id: 1 });

export const userTopicKey = (userId: number, channelId: number, topic: string) => `${userId}:${channelId}:${topic.toLowerCase()}`;

export const userTopicModel = (conn: Connection) => conn.model<UserTopicDoc>("UserTopic", schema, "user_topics");
