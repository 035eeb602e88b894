// Scheduled messages: a message a user wrote to be sent later, and its delivery's state.
// State: scheduled -> sending (claimed by one replica) -> delivered, or failed (listed until the
// user edits it with a new time, or deletes it). A claim older than the claim timeout is taken
// again by another replica; the send is idempotent (key `scheduled:<id>`), so that cannot send
// twice.
// Query shapes and their indexes:
//   a user's listed (pending, sending or failed) ones -> { sender_id, state }
//   due ones, oldest first                             -> { state, scheduled_timestamp, _id }
//   stale claims                                       -> { state, claimed_at }
//   one (claim, edit, delete, mark delivered)          -> _id
//   those linking some uploads (uploadsInUse)          -> { upload_path_ids }
import { Connection, Schema } from "mongoose";
import type { Identity } from "../../../shared/actions";

export type ScheduledState = "scheduled" | "sending" | "delivered" | "failed";

export interface ScheduledMessageDoc {
	_id: number;
	sender_id: number;
	/** The sender as at scheduling; delivery reads the user's current role and status first. */
	sender: Identity;
	type: "stream" | "private";
	/** A channel ID, or the other participants' IDs (the sender alone when writing to themself). */
	to: number | number[];
	topic: string;
	content: string;
	rendered_content: string;
	/** UNIX seconds. */
	scheduled_timestamp: number;
	read_by_sender: boolean;
	state: ScheduledState;
	failure_message: string | null;
	/** The replica delivering it and when it claimed it (milliseconds), while `sending`. */
	claimed_by: string | null;
	claimed_at: number | null;
	delivered_message_id: number | null;
	/** When it was marked delivered (milliseconds): delivery lag, for operators and the bench. */
	delivered_at?: number | null;
	/** The uploads its content links (shared/markdown/upload-links.ts): kept while it waits. */
	upload_path_ids?: string[];
}

const schema = new Schema<ScheduledMessageDoc>(
	{
		_id: Number,
		sender_id: { type: Number, required: true },
		sender: { type: Schema.Types.Mixed, required: true },
		type: { type: String, required: true },
		to: { type: Schema.Types.Mixed, required: true },
		topic: { type: String, default: "" },
		content: { type: String, required: true },
		rendered_content: { type: String, required: true },
		scheduled_timestamp: { type: Number, required: true },
		read_by_sender: { type: Boolean, required: true },
		state: { type: String, required: true },
		failure_message: { type: String, default: null },
		claimed_by: { type: String, default: null },
		claimed_at: { type: Number, default: null },
		delivered_message_id: { type: Number, default: null },
		delivered_at: { type: Number, default: null },
		upload_path_ids: { type: [String], default: undefined },
	},
	{ versionKey: false },
);
schema.index({ sender_id: 1, state: 1 });
schema.index({ state: 1, scheduled_timestamp: 1, _id: 1 });
schema.index({ state: 1, claimed_at: 1 });
schema.index({ upload_path_ids: 1 });

export const scheduledMessageModel = (conn: Connection) => conn.model<ScheduledMessageDoc>("ScheduledMessage", schema, "scheduled_messages");
