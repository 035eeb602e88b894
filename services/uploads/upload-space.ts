// The bytes an organization's uploads take (Zulip's currently_used_upload_space_bytes), kept as a
// running total that each stored or deleted file moves with one atomic $inc, so the quota check
// and `upload_space_used` read one document instead of summing every file.
// Query shapes and their indexes: one organization's total -> _id
import { Connection, Schema, type Model } from "mongoose";
import { apiError } from "../../shared/errors";
import { incrementCreating } from "../../shared/db";

interface UsageDoc {
	_id: number;
	bytes: number;
}

const schema = new Schema<UsageDoc>({ _id: Number, bytes: { type: Number, default: 0 } }, { versionKey: false });

export const usageModel = (conn: Connection) => conn.model<UsageDoc>("UploadUsage", schema, "upload_usage");

export class UploadSpace {
	constructor(
		private readonly Usage: Model<UsageDoc>,
		/** The quota in bytes; 0 means none. */
		private readonly quotaBytes: number,
	) {}

	async used(realmId: number): Promise<number> {
		const doc = await this.Usage.findById(realmId).lean();
		return doc?.bytes ?? 0;
	}

	/** Zulip's check_upload_within_quota: refuses a file that would take the organization past its quota. */
	async checkRoomFor(realmId: number, bytes: number): Promise<void> {
		if (!this.quotaBytes) return;
		if ((await this.used(realmId)) + bytes > this.quotaBytes) throw apiError(400, "REALM_UPLOAD_QUOTA", "Upload would exceed your organization's upload quota.");
	}

	/** Adds (or, negative, removes) a file's bytes from the organization's total. */
	async add(realmId: number, bytes: number): Promise<void> {
		// Created once, then only $inc'ed: racing $inc upserts lose bytes on some engines (shared/db.ts).
		await incrementCreating(this.Usage, { _id: realmId, bytes: 0 }, { bytes });
	}
}
