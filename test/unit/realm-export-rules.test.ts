// Which organization exports may start, and in what order Zulip's refusals come
// (services/uploads/realm-export-rules.ts, as zerver/views/realm_export.py): the rate limit, then
// the size limits, then the owner rule of the export's type; and how an export looks to the API.
import type { ExportRealm } from "../../shared/export-rows";
import { checkCanStart, EXPORT_LIMIT, exportView, MAX_MESSAGE_HISTORY, MAX_UPLOAD_BYTES, type StartFacts } from "../../services/uploads/realm-export-rules";
import { ExportStatus, type RealmExportDoc } from "../../services/uploads/models/realm-export";

const realm = (o: Partial<ExportRealm> = {}): ExportRealm => ({
	id: 1,
	string_id: "",
	name: "Org",
	description: "",
	url: "http://chat.test",
	date_created: 0,
	deactivated: false,
	settings: {},
	public_export_usable: true,
	consent_export_usable: true,
	admin_user_ids: [1],
	cross_realm_bots: [],
	profile_fields: [],
	user_defaults: {},
	...o,
});
const facts = (o: Partial<StartFacts> = {}): StartFacts => ({ realm: realm(), recent: 0, messages: 0, uploadBytes: 0, supportEmail: "admin@chat.test", ...o });
const refusal = (type: number, f: StartFacts) => {
	try {
		checkCanStart(type, f);
		return null;
	} catch (err) {
		return (err as Error).message;
	}
};

test("the limits, each at its edge", () => {
	expect(refusal(1, facts({ recent: EXPORT_LIMIT - 1, messages: MAX_MESSAGE_HISTORY, uploadBytes: MAX_UPLOAD_BYTES }))).toBeNull();
	expect(refusal(1, facts({ recent: EXPORT_LIMIT }))).toBe("Exceeded rate limit.");
	expect(refusal(1, facts({ messages: MAX_MESSAGE_HISTORY + 1 }))).toBe("Please request a manual export from admin@chat.test.");
	expect(refusal(2, facts({ uploadBytes: MAX_UPLOAD_BYTES + 1 }))).toBe("Please request a manual export from admin@chat.test.");
});

test("Zulip's order: the rate limit first, then size, then the owner rule of the export's type", () => {
	const bad = facts({ recent: EXPORT_LIMIT, messages: MAX_MESSAGE_HISTORY + 1, realm: realm({ public_export_usable: false, consent_export_usable: false }) });
	expect(refusal(1, bad)).toBe("Exceeded rate limit.");
	expect(refusal(1, { ...bad, recent: 0 })).toMatch(/^Please request a manual export/);
	expect(refusal(1, { ...bad, recent: 0, messages: 0 })).toBe("Make sure at least one Organization Owner allows other Administrators to see their email address or contact admin@chat.test for help");
	expect(refusal(2, { ...bad, recent: 0, messages: 0 })).toBe("Make sure at least one Organization Owner is consenting to the export or contact admin@chat.test for help.");
	// Each type checks only its own owner rule.
	expect(refusal(1, facts({ realm: realm({ consent_export_usable: false }) }))).toBeNull();
	expect(refusal(2, facts({ realm: realm({ public_export_usable: false }) }))).toBeNull();
});

test("an export as the API shows it, in each state", () => {
	const doc: RealmExportDoc = {
		_id: 7,
		realm_id: 1,
		acting_user_id: 3,
		type: 1,
		status: ExportStatus.REQUESTED,
		date_requested: 1_700_000_000_500,
		date_started: null,
		date_succeeded: null,
		date_failed: null,
		date_deleted: null,
		progress_at: 0,
		path_id: null,
		tarball_size_bytes: null,
		sha256sum_hex: null,
		stats: null,
	};
	const base = { id: 7, export_time: 1_700_000_000.5, acting_user_id: 3, export_type: 1, deleted_timestamp: null, failed_timestamp: null };
	expect(exportView(doc, "http://chat.test")).toEqual({ ...base, export_url: null, pending: true });
	expect(exportView({ ...doc, status: ExportStatus.STARTED }, "http://chat.test")).toEqual({ ...base, export_url: null, pending: true });
	const done = { ...doc, status: ExportStatus.SUCCEEDED, path_id: "exports/1/abc/zulip-export-x.tar.gz" };
	expect(exportView(done, "http://chat.test")).toEqual({ ...base, export_url: "http://chat.test/user_uploads/exports/1/abc/zulip-export-x.tar.gz", pending: false });
	expect(exportView({ ...done, status: ExportStatus.DELETED, date_deleted: 1_700_000_100_000 }, "http://chat.test")).toEqual({ ...base, export_url: null, pending: false, deleted_timestamp: 1_700_000_100 });
	expect(exportView({ ...doc, status: ExportStatus.FAILED, date_failed: 1_700_000_001_000 }, "http://chat.test")).toEqual({ ...base, export_url: null, pending: false, failed_timestamp: 1_700_000_001 });
});
