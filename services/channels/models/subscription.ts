// A user's subscription to a channel; kept (inactive) after unsubscribing, so the channel shows
// in the user's `unsubscribed` list and settings survive a resubscription.
// Queries: a user's subscriptions -> { user_id, channel_id } unique (prefix);
//          a channel's subscribers -> { channel_id, active }.
import { Connection, Schema } from "mongoose";

export const SUBSCRIPTION_PROPERTIES = [
	"color",
	"is_muted",
	"pin_to_top",
	"desktop_notifications",
	"audible_notifications",
	"push_notifications",
	"email_notifications",
	"wildcard_mentions_notify",
] as const;

export interface SubscriptionDoc {
	_id: string;
	user_id: number;
	channel_id: number;
	active: boolean;
	color: string;
	is_muted: boolean;
	pin_to_top: boolean;
	/** null: follow the user's global notification setting. */
	desktop_notifications: boolean | null;
	audible_notifications: boolean | null;
	push_notifications: boolean | null;
	email_notifications: boolean | null;
	wildcard_mentions_notify: boolean | null;
	/**
	 * When `active` last changed (UNIX milliseconds; absent on rows from before it): a digest leaves
	 * out channels whose subscription changed in its period, as Zulip's does from its audit log.
	 */
	changed_at?: number;
}

const schema = new Schema<SubscriptionDoc>(
	{
		_id: String,
		user_id: { type: Number, required: true },
		channel_id: { type: Number, required: true },
		active: { type: Boolean, default: true },
		color: { type: String, default: "#c2c2c2" },
		is_muted: { type: Boolean, default: false },
		pin_to_top: { type: Boolean, default: false },
		desktop_notifications: { type: Boolean, default: null },
		audible_notifications: { type: Boolean, default: null },
		push_notifications: { type: Boolean, default: null },
		email_notifications: { type: Boolean, default: null },
		wildcard_mentions_notify: { type: Boolean, default: null },
		changed_at: { type: Number },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1, channel_id: 1 }, { unique: true });
schema.index({ channel_id: 1, active: 1 });

/** One row per (user, channel): the key makes a repeated subscribe an update, never a duplicate. */
export const subscriptionKey = (userId: number, channelId: number) => `${userId}:${channelId}`;

export const subscriptionModel = (conn: Connection) => conn.model<SubscriptionDoc>("Subscription", schema, "subscriptions");
