// Invitations sent per UTC day, one document per day (`_id` "YYYY-MM-DD"): the daily limit is
// one conditional `$inc` of it (daily-limit.ts). Served by _id.
import { Connection, Schema } from "mongoose";

export interface InviteQuotaDoc {
	_id: string;
	count: number;
}

const schema = new Schema<InviteQuotaDoc>({ _id: String, count: { type: Number, required: true } }, { versionKey: false });

export const inviteQuotaModel = (conn: Connection) => conn.model<InviteQuotaDoc>("InviteQuota", schema, "invite_quota");
