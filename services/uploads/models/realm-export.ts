// An organization data export (Zulip's RealmExport): who asked, its kind, where it stands, and its
// file once written (a .tar.gz in GridFS under `file_id`, downloaded at /user_uploads/<path_id>).
// Query shapes and their indexes:
//   an organization's exports, in ID order                  -> { realm_id, _id }
//   exports requested since a time (the weekly rate limit)  -> { realm_id, date_requested }
//   exports whose worker stopped reporting progress          -> { status, progress_at }
//   an export's file by its URL path (unique, sparse)        -> { path_id }
import { Connection, Schema, type Types } from "mongoose";
import type { RealmExportRecord } from "../../../shared/zulip-format/realm-export-table";

/** Zulip's RealmExport.status values. */
export const ExportStatus = { REQUESTED: 1, STARTED: 2, SUCCEEDED: 3, FAILED: 4, DELETED: 5 } as const;
/** Zulip's RealmExport.type values (the API's export_type). */
/** Zulip's RealmExport.export_type: the endpoint takes the first two; the management CLI writes the third (deploy/export/). */
export const ExportType = { PUBLIC: 1, FULL_WITH_CONSENT: 2, FULL_WITHOUT_CONSENT: 3 } as const;

/** Zulip's RealmExport fields (shared/zulip-format/realm-export-table.ts), and the worker's own. */
export interface RealmExportDoc extends RealmExportRecord {
	/** While pending: when the worker last reported progress (UNIX ms); a stale one is failed. */
	progress_at: number;
	/** The file, once written. */
	file_id?: Types.ObjectId | null;
}

const schema = new Schema<RealmExportDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		acting_user_id: { type: Number, required: true },
		type: { type: Number, required: true },
		status: { type: Number, required: true },
		date_requested: { type: Number, required: true },
		date_started: { type: Number, default: null },
		date_succeeded: { type: Number, default: null },
		date_failed: { type: Number, default: null },
		date_deleted: { type: Number, default: null },
		progress_at: { type: Number, required: true },
		file_id: { type: Schema.Types.ObjectId, default: null },
		path_id: { type: String },
		tarball_size_bytes: { type: Number, default: null },
		sha256sum_hex: { type: String, default: null },
		stats: { type: Schema.Types.Mixed, default: null },
	},
	{ versionKey: false, minimize: false },
);
schema.index({ realm_id: 1, _id: 1 });
schema.index({ realm_id: 1, date_requested: 1 });
schema.index({ status: 1, progress_at: 1 });
schema.index({ path_id: 1 }, { unique: true, sparse: true });

export const realmExportModel = (conn: Connection) => conn.model<RealmExportDoc>("RealmExport", schema, "realm_exports");
