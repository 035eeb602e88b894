// Requests to the push notification bouncer waiting to be made, with their delivery's state, and
// the notifications sent (so reading the message removes it from the phones).
//
// push_jobs: one document per request. Its _id is a key that makes it once: `device:<hash of user,
// kind and token>` for a device's registration (the same document flips between register and
// unregister as the user adds and removes the device: its `version` counts the changes, so a
// change made while a request is in flight is sent after it, in order), `message:<user>:<message>`
// for a notification, `remove:<user>:<message IDs>` for a removal.
// State: queued -> sending (claimed by one replica) -> done, or back to queued with a later
// next_attempt_at after a failure worth retrying, or failed (the bouncer refused it, or the
// attempts ran out), kept with the reason. A claim older than the claim timeout (its replica died)
// is queued again. A notification done is deleted a day later.
// Query shapes and their indexes:
//   due ones, oldest first       -> { state, next_attempt_at }
//   stale claims                 -> { state, claimed_at }
//   notifications done long ago  -> { state, done_at }
//   one (claim, record)          -> _id
//
// push_sent: `<user>:<message>` for each message a notification went out for (Zulip's
// active_mobile_push_notification flag), taken away when the removal is queued. Read by _id (a
// user's read messages), and by message (deleted messages, whoever was notified) -> { message_id }.
import { Connection, Schema } from "mongoose";
import { claimFields, indexClaims, type Claimable } from "../claims";

export type PushJobState = "queued" | "sending" | "done" | "failed";

export interface PushJobDoc extends Claimable<PushJobState> {
	_id: string;
	/** register, unregister, message, remove. */
	kind: string;
	user_id: number;
	/** The bouncer's endpoint under /api/v1/remotes/ (push/register, push/notify, ...). */
	endpoint: string;
	/** Form fields, or the JSON body. */
	form: Record<string, string | number> | null;
	json: Record<string, unknown> | null;
	/** Changes made to the request (a device's registration flipping); a claim sends the version it read. */
	version: number;
	created_at: number;
	done_at: number | null;
}

const schema = new Schema<PushJobDoc>(
	{
		_id: String,
		kind: { type: String, required: true },
		user_id: { type: Number, required: true },
		endpoint: { type: String, required: true },
		form: { type: Schema.Types.Mixed, default: null },
		json: { type: Schema.Types.Mixed, default: null },
		version: { type: Number, default: 0 },
		...claimFields,
		created_at: { type: Number, required: true },
		done_at: { type: Number, default: null },
	},
	{ versionKey: false, minimize: false },
);
indexClaims(schema);
schema.index({ state: 1, done_at: 1 });

export interface PushSentDoc {
	/** `<user>:<message>`. */
	_id: string;
	user_id: number;
	message_id: number;
	created_at: number;
}

const sentSchema = new Schema<PushSentDoc>(
	{ _id: String, user_id: { type: Number, required: true }, message_id: { type: Number, required: true }, created_at: { type: Number, required: true } },
	{ versionKey: false },
);

sentSchema.index({ message_id: 1 });

export const pushJobModel = (conn: Connection) => conn.model<PushJobDoc>("PushJob", schema, "push_jobs");
export const pushSentModel = (conn: Connection) => conn.model<PushSentDoc>("PushSent", sentSchema, "push_sent");
