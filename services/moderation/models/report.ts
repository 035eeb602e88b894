// Message reports, kept so that moderators can list them later. A report also holds one slot of
// its reporter's hourly quota (report-quota.ts): the unique `quota_key` makes the claim atomic.
// Query shapes and their indexes:
//   a reporter's reports in a quota window  -> { reporter_id, quota_window }
//   the quota slot (unique)                  -> { quota_key }
//   reports about a user, newest first       -> { reported_user_id, _id }
//   reports of a message                     -> { message_id }
import { Connection, Schema } from "mongoose";

export const REPORT_TYPES = ["spam", "harassment", "inappropriate", "norms", "other"] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export interface ReportDoc {
	_id: number;
	realm_id: number;
	reporter_id: number;
	message_id: number;
	reported_user_id: number;
	report_type: ReportType;
	description: string;
	timestamp: number;
	/** The hour (UNIX seconds / 3600) whose quota the report counts against, and its slot in it. */
	quota_window: number;
	quota_key: string;
	/** Notification Bot's message in the moderation request channel (null until it is posted). */
	notice_message_id: number | null;
	channel_id: number;
}

const schema = new Schema<ReportDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		reporter_id: { type: Number, required: true },
		message_id: { type: Number, required: true },
		reported_user_id: { type: Number, required: true },
		report_type: { type: String, required: true },
		description: { type: String, default: "" },
		timestamp: { type: Number, required: true },
		quota_window: { type: Number, required: true },
		quota_key: { type: String, required: true },
		notice_message_id: { type: Number, default: null },
		channel_id: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ reporter_id: 1, quota_window: 1 });
schema.index({ quota_key: 1 }, { unique: true });
schema.index({ reported_user_id: 1, _id: -1 });
schema.index({ message_id: 1 });

export const reportModel = (conn: Connection) => conn.model<ReportDoc>("Report", schema, "reports");
