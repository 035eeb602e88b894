// zerver_realmexport: the organization's data exports themselves, this one included (still
// started), as Zulip's export holds them.
import type { Row } from "./tables";

/** An export as the uploads service keeps it (its RealmExportDoc extends this), as zerver_realmexport holds it. */
export interface RealmExportRecord {
	_id: number;
	realm_id: number;
	acting_user_id: number;
	type: number;
	status: number;
	/** UNIX milliseconds, each set when the export reached that state. */
	date_requested: number;
	date_started: number | null;
	date_succeeded: number | null;
	date_failed: number | null;
	date_deleted: number | null;
	/** `exports/<realm_id>/<random>/<name>.tar.gz`: the URL is `/user_uploads/<path_id>`. */
	path_id?: string | null;
	tarball_size_bytes: number | null;
	sha256sum_hex: string | null;
	/** What the export holds (table name to row count), as Zulip's `stats`. */
	stats: Record<string, number> | null;
}

const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);

export function realmExportRows(docs: RealmExportRecord[]): Row[] {
	return docs.map((d) => ({
		id: d._id,
		realm: d.realm_id,
		type: d.type,
		status: d.status,
		date_requested: seconds(d.date_requested),
		date_started: seconds(d.date_started),
		date_succeeded: seconds(d.date_succeeded),
		date_failed: seconds(d.date_failed),
		date_deleted: seconds(d.date_deleted),
		acting_user: d.acting_user_id,
		export_path: d.path_id ? `/user_uploads/${d.path_id}` : null,
		sha256sum_hex: d.sha256sum_hex,
		tarball_size_bytes: d.tarball_size_bytes,
		stats: d.stats,
	}));
}
