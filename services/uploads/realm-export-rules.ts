// The rules of organization data exports (Zulip's zerver/views/realm_export.py and
// zerver/lib/export.py): who may start one and when, what each looks like to the API, and which
// may be deleted. The export itself is written by export/run-export.ts.
import type { Model } from "mongoose";
import { badRequest } from "../../shared/errors";
import type { ExportRealm } from "../../shared/export-rows";
import type { RealmExportView } from "../../shared/org-events";
import { ExportStatus, ExportType, type RealmExportDoc } from "./models/realm-export";

/** Zulip's EXPORT_LIMIT: at most this many exports requested in EXPORT_WINDOW_MS, of any kind and outcome. */
export const EXPORT_LIMIT = 5;
export const EXPORT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** Zulip's MAX_MESSAGE_HISTORY: a larger organization is exported by hand from the command line. */
export const MAX_MESSAGE_HISTORY = 250_000;
/** Zulip's MAX_UPLOAD_QUOTA (20 GiB of uploads). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024 * 1024;

/** What deciding whether an export may start needs, each read in one call. */
export interface StartFacts {
	realm: ExportRealm;
	/** Exports the organization requested within the window. */
	recent: number;
	/** The messages the export would hold (Zulip's RealmCount estimate; here the exact count). */
	messages: number;
	uploadBytes: number;
	/** Where Zulip names its support address: the server administrator's. */
	supportEmail: string;
}

/** Refuses an export that may not start, with Zulip's error, in Zulip's order. */
export function checkCanStart(type: number, f: StartFacts): void {
	if (f.recent >= EXPORT_LIMIT) throw badRequest("Exceeded rate limit.");
	if (f.messages > MAX_MESSAGE_HISTORY || f.uploadBytes > MAX_UPLOAD_BYTES) throw badRequest(`Please request a manual export from ${f.supportEmail}.`);
	if (type === ExportType.FULL_WITH_CONSENT && !f.realm.consent_export_usable)
		throw badRequest(`Make sure at least one Organization Owner is consenting to the export or contact ${f.supportEmail} for help.`);
	if (type === ExportType.PUBLIC && !f.realm.public_export_usable)
		throw badRequest(`Make sure at least one Organization Owner allows other Administrators to see their email address or contact ${f.supportEmail} for help`);
}

/** How many exports the organization requested within the rate limit's window before `now`. */
export function recentExports(Export: Model<RealmExportDoc>, realmId: number, now: number): Promise<number> {
	return Export.countDocuments({ realm_id: realmId, date_requested: { $gte: now - EXPORT_WINDOW_MS } });
}

/** The export `exportId` of the organization, if it may be deleted now (Zulip's delete_realm_export). */
export async function deletableExport(Export: Model<RealmExportDoc>, realmId: number, exportId: number): Promise<RealmExportDoc> {
	const doc = await Export.findById(exportId).lean();
	if (!doc || doc.realm_id !== realmId) throw badRequest("Invalid data export ID");
	if (doc.status === ExportStatus.DELETED) throw badRequest("Export already deleted");
	if (doc.status === ExportStatus.FAILED) throw badRequest("Export failed, nothing to delete");
	if (doc.status === ExportStatus.REQUESTED || doc.status === ExportStatus.STARTED) throw badRequest("Export still in progress");
	return doc;
}

const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);

/** An export as the API shows it; the URL only while its file exists. */
export function exportView(doc: RealmExportDoc, siteUrl: string): RealmExportView {
	return {
		id: doc._id,
		export_time: doc.date_requested / 1000,
		acting_user_id: doc.acting_user_id,
		export_url: doc.status === ExportStatus.SUCCEEDED && doc.path_id ? `${siteUrl}/user_uploads/${doc.path_id}` : null,
		deleted_timestamp: seconds(doc.date_deleted),
		failed_timestamp: seconds(doc.date_failed),
		pending: doc.status === ExportStatus.REQUESTED || doc.status === ExportStatus.STARTED,
		export_type: doc.type,
	};
}

/** The organization's exports, oldest first (Zulip's get_realm_exports_serialized). */
export async function listExports(Export: Model<RealmExportDoc>, realmId: number, siteUrl: string): Promise<RealmExportView[]> {
	const docs = await Export.find({ realm_id: realmId }).sort({ _id: 1 }).lean();
	return docs.map((d) => exportView(d, siteUrl));
}
