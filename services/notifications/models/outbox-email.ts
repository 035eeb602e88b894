// The outbox: every email asked for, rendered, with its delivery's state. Its _id is the caller's
// idempotency key, so a call retried stores the email once.
// State: stored as sending (claimed by the replica that stored it, for its first attempt), or
// queued -> sending (claimed by one replica) -> sent, or back to queued with a later
// next_attempt_at after a failed attempt, or dead after the last one (a dead letter, kept and
// listed by `npm run manage -- email-dead-letters`). A claim older than the claim timeout (its
// replica died mid-send) is queued again; the Message-ID derived from the key lets the receiving
// side recognise a repeat.
// Query shapes and their indexes:
//   due ones, oldest first          -> { state, next_attempt_at }
//   stale claims                    -> { state, claimed_at }
//   one (claim, mark)               -> _id
//   dead letters, newest first      -> { state, failed_at }
//   a user's unsent welcome emails  -> { user_id, state }
import { Connection, Schema } from "mongoose";
import { claimFields, indexClaims, type Claimable } from "../claims";

export type OutboxState = "queued" | "sending" | "sent" | "dead" | "cancelled";

export interface OutboxEmailDoc extends Claimable<OutboxState> {
	/** The idempotency key. */
	_id: string;
	/** The template it was rendered from (invitation, notify_new_login, ...). */
	kind: string;
	user_id: number | null;
	to: string;
	from_name: string;
	subject: string;
	text: string;
	html: string;
	/** Extra headers (List-Unsubscribe). */
	headers: Record<string, string>;
	/** `<hash of the key@sender's domain>`: the same on every attempt. */
	message_id: string;
	created_at: number;
	sent_at: number | null;
	failed_at: number | null;
}

const schema = new Schema<OutboxEmailDoc>(
	{
		_id: String,
		kind: { type: String, required: true },
		user_id: { type: Number, default: null },
		to: { type: String, required: true },
		from_name: { type: String, required: true },
		subject: { type: String, required: true },
		text: { type: String, required: true },
		html: { type: String, required: true },
		headers: { type: Schema.Types.Mixed, default: {} },
		message_id: { type: String, required: true },
		...claimFields,
		created_at: { type: Number, required: true },
		sent_at: { type: Number, default: null },
		failed_at: { type: Number, default: null },
	},
	{ versionKey: false, minimize: false },
);
indexClaims(schema);
schema.index({ state: 1, failed_at: 1 });
schema.index({ user_id: 1, state: 1 });

export const outboxEmailModel = (conn: Connection) => conn.model<OutboxEmailDoc>("OutboxEmail", schema, "outbox_emails");
