// A recipient to be told of a message they missed (Zulip's ScheduledMessageNotificationEmail),
// with what the decision said for email and for push. Its _id is `<message ID>:<user ID>`, so
// every replica that hears of the message stores it once; only the replica whose insert counted
// hands the push half on.
// State (email): pending (the user's batch goes at their first notice's due_at) -> batched (a replica took
// the batch: `batch` names it and keys its emails) -> deleted once sent. Push only: "push", kept
// for a day (a record of the decision), then purged.
// Query shapes and their indexes:
//   due batches                     -> { state, due_at }
//   a user's pending / batched ones -> { user_id, state }
//   old push-only records           -> { state, created_at }
import { Connection, Schema } from "mongoose";

export type MissedState = "pending" | "batched" | "push";

export interface MissedNoticeDoc {
	_id: string;
	user_id: number;
	message_id: number;
	/** Zulip's email trigger (notification-data.ts), null when only push was due. */
	email: string | null;
	/** Zulip's push trigger, null when none. */
	push: string | null;
	/** A "mentioned" trigger through a group (not by name): the group's name and size (Zulip's mentioned_user_group_id). */
	group: { name: string; size: number } | null;
	state: MissedState;
	/** When it is due (UNIX ms): stored + the user's batching period. A user's batch goes when their first is due, with all the others. */
	due_at: number;
	/** The batch that took it: its emails' idempotency keys start with this. */
	batch: string | null;
	created_at: number;
}

const schema = new Schema<MissedNoticeDoc>(
	{
		_id: String,
		user_id: { type: Number, required: true },
		message_id: { type: Number, required: true },
		email: { type: String, default: null },
		push: { type: String, default: null },
		group: { type: Schema.Types.Mixed, default: null },
		state: { type: String, required: true },
		due_at: { type: Number, required: true },
		batch: { type: String, default: null },
		created_at: { type: Number, required: true },
	},
	{ versionKey: false, minimize: false },
);
schema.index({ state: 1, due_at: 1 });
schema.index({ user_id: 1, state: 1 });
schema.index({ state: 1, created_at: 1 });

export const missedNoticeModel = (conn: Connection) => conn.model<MissedNoticeDoc>("MissedNotice", schema, "missed_message_notices");

/** One replica's hold on one user's batch: the insert of the user's ID is the claim. */
export interface MissedClaimDoc {
	_id: number;
	claimed_by: string;
	claimed_at: number;
}

const claimSchema = new Schema<MissedClaimDoc>({ _id: Number, claimed_by: { type: String, required: true }, claimed_at: { type: Number, required: true } }, { versionKey: false });
// Claims left by a dead replica, taken back by age at every sweep.
claimSchema.index({ claimed_at: 1 });

export const missedClaimModel = (conn: Connection) => conn.model<MissedClaimDoc>("MissedClaim", claimSchema, "missed_message_claims");
