// The push notification device tokens users register (POST /users/me/apns_device_token and
// /users/me/android_gcm_reg_id), as Zulip's PushDeviceToken: kept per user, kind and token; with a
// push bouncer configured, the notifications service registers them with it and sends to them
// (docs/push.md).
// Queries: a user's token of a kind -> { user_id, kind, token } (unique, Zulip's unique_together:
// registering a token again leaves the one record).
import { Connection, Schema } from "mongoose";

/** Zulip's PushDeviceToken.APNS and .FCM (formerly GCM). */
export const PUSH_KIND = { apns: 1, fcm: 2 } as const;

export interface PushDeviceDoc {
	user_id: number;
	kind: number;
	token: string;
	/** The iOS app's ID (APNs tokens only), null otherwise. */
	ios_app_id: string | null;
	last_updated: Date;
}

const schema = new Schema<PushDeviceDoc>(
	{
		user_id: { type: Number, required: true },
		kind: { type: Number, required: true },
		token: { type: String, required: true },
		ios_app_id: { type: String, default: null },
		last_updated: { type: Date, required: true },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1, kind: 1, token: 1 }, { unique: true });
// Users' devices, each one's in the order they were added (the push sender's lists).
schema.index({ user_id: 1, _id: 1 });
// Tokens the bouncer reports gone, whoever's they were.
schema.index({ kind: 1, token: 1 });

export const pushDeviceModel = (conn: Connection) => conn.model<PushDeviceDoc>("PushDevice", schema, "push_devices");
