// One call of one outgoing webhook bot for one message. The ID is `<message ID>:<bot ID>`, so
// every replica that hears of the message creates the same job and only the first insert counts.
//
// Query shapes and their indexes:
//   due jobs of a sweep        -> { state, next_at }
//   claims to take back         -> { state, claimed_at }
import { Schema, type Connection, type Model } from "mongoose";

export type JobState = "pending" | "sending" | "done";

export interface OutgoingJobDoc {
	_id: string;
	message_id: number;
	bot_id: number;
	/** Zulip's trigger: "mention" or "direct_message". */
	trigger: string;
	/** The message as Zulip's payload carries it (Markdown content, rendered_content), at send time. */
	message: Record<string, any>;
	state: JobState;
	/** Zulip's failed_tries: calls that timed out or could not connect. */
	failed_tries: number;
	/** UNIX milliseconds when a pending job is due. */
	next_at: number;
	claimed_by: string | null;
	claimed_at: number | null;
	/** How it ended, for logs and tests: "replied", "no reply", "failed: ...". */
	outcome?: string;
	created_at: number;
}

const schema = new Schema<OutgoingJobDoc>(
	{
		_id: String,
		message_id: { type: Number, required: true },
		bot_id: { type: Number, required: true },
		trigger: { type: String, required: true },
		message: { type: Schema.Types.Mixed, required: true },
		state: { type: String, required: true },
		failed_tries: { type: Number, default: 0 },
		next_at: { type: Number, required: true },
		claimed_by: { type: String, default: null },
		claimed_at: { type: Number, default: null },
		outcome: String,
		created_at: { type: Number, required: true },
	},
	{ versionKey: false, minimize: false },
);
schema.index({ state: 1, next_at: 1 });
schema.index({ state: 1, claimed_at: 1 });

export const outgoingJobModel = (conn: Connection): Model<OutgoingJobDoc> => conn.model<OutgoingJobDoc>("OutgoingJob", schema, "outgoing_webhook_jobs");
