// Running an export in the background (Zulip's deferred_work queue, export_realm_from_event): the
// request answers at once; the replica that took it writes the archive, then records the outcome
// and tells the organization's administrators (`realm_export`), and the one who asked by a direct
// message from Notification Bot, as Zulip does.
//
// Decision: the job runs on the replica that took the request, not through a queue. A replica that
// dies mid-export leaves it pending with no progress: every replica's sweep marks an export whose
// worker has reported no progress for STALE_MS as failed (Zulip marks a retried export failed, its
// sign of a worker that died) and announces it, and the partial file is removed.
import { randomBytes } from "node:crypto";
import type { Model } from "mongoose";
import { call, type Caller } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import type { ExportRealm } from "../../../shared/export-rows";
import type { RealmExportsChanged } from "../../../shared/org-events";
import { FileStore } from "../file-store";
import type { UploadSpace } from "../upload-space";
import { ExportStatus, ExportType, type RealmExportDoc } from "../models/realm-export";
import { listExports } from "../realm-export-rules";
import { realmExportRows } from "../../../shared/zulip-format/realm-export-table";
import { TarballWriter } from "./tarball";
import { busSource } from "../../../shared/zulip-format/source";
import { writeExport } from "../../../shared/zulip-format/write-export";

/** A pending export whose worker reported nothing for this long is failed by the sweep. */
export const STALE_MS = 10 * 60 * 1000;

/** The service's logger (pino's, through Moleculer): an object of fields, then the message. */
export interface ExportLogger {
	info(...args: unknown[]): void;
	warn(...args: unknown[]): void;
	error(...args: unknown[]): void;
}

export interface ExportDeps {
	Export: Model<RealmExportDoc>;
	store: FileStore;
	space: UploadSpace;
	nextId: (entity: string) => Promise<number>;
	/** Calls and broadcasts outside any request. */
	bus: Caller & { broadcast(event: string, payload: unknown): Promise<unknown> | void };
	logger: ExportLogger;
	/** The server's URL: export URLs are absolute, as Zulip's. */
	siteUrl: string;
	/** Zulip's support address in its refusals: the server administrator's. */
	supportEmail: string;
	/** The exports this replica is writing, awaited when it stops. */
	running: Set<Promise<void>>;
	stopping: boolean;
}

/** Tells the organization's administrators of its exports now (Zulip's notify_realm_export). */
export async function announceExports(deps: ExportDeps, realmId: number, adminIds?: number[]): Promise<void> {
	const user_ids = adminIds ?? (await call(deps.bus, "users.exportRealm", {})).admin_user_ids;
	const exports = await listExports(deps.Export, realmId, deps.siteUrl);
	await deps.bus.broadcast("uploads.realmExportsChanged", { user_ids, exports } satisfies RealmExportsChanged);
}

const randomName = (bytes: number) => randomBytes(bytes).toString("base64url");

/** Starts writing export `id` in the background; its outcome is recorded and announced. */
export function runInBackground(deps: ExportDeps, id: number, realm: ExportRealm): void {
	const job = runExport(deps, id, realm).catch((err: unknown) => deps.logger.error({ err, export_id: id }, "data export: recording its outcome failed"));
	deps.running.add(job);
	void job.finally(() => deps.running.delete(job));
}

async function runExport(deps: ExportDeps, id: number, realm: ExportRealm): Promise<void> {
	const started = clock.nowMs();
	// The file's ID is recorded first, so the sweep can remove what a dead worker left.
	const fileId = FileStore.newId();
	const claimed = await deps.Export.findOneAndUpdate(
		{ _id: id, status: ExportStatus.REQUESTED },
		{ $set: { status: ExportStatus.STARTED, date_started: started, progress_at: started, file_id: fileId } },
		{ returnDocument: "after" },
	).lean();
	if (!claimed) return;
	const dir = `zulip-export-${randomName(6).toLowerCase()}`;
	const pathId = `exports/${realm.id}/${randomName(18)}/${dir}.tar.gz`;
	const tarball = new TarballWriter(deps.store, fileId, new Date(started));
	// Every write below is conditional on the export still being this worker's (STARTED): one the
	// sweep failed meanwhile (a worker it took for dead) is left as the sweep left it.
	const mine = { _id: id, status: ExportStatus.STARTED };
	const progress = async () => {
		if (deps.stopping) throw new Error("the service is stopping");
		const res = await deps.Export.updateOne(mine, { $set: { progress_at: clock.nowMs() } });
		if (!res.modifiedCount) throw new Error("the export was failed meanwhile");
	};
	try {
		const exports = await deps.Export.find({ realm_id: realm.id }).sort({ _id: 1 }).lean();
		const exported = { acting_user: claimed.acting_user_id, realm_export_id: id };
		const stats = await writeExport(busSource(deps.bus), tarball, dir, realm, claimed.type === ExportType.PUBLIC, { zerver_realmexport: realmExportRows(exports) }, progress, exported);
		const { length, sha256 } = await tarball.finish();
		await deps.store.complete(tarball.fileId, length, `${dir}.tar.gz`, { path_id: pathId, content_type: "application/gzip", realm_export_id: id });
		const done = await deps.Export.updateOne(mine, {
			$set: { status: ExportStatus.SUCCEEDED, date_succeeded: clock.nowMs(), path_id: pathId, tarball_size_bytes: length, sha256sum_hex: sha256, stats },
		});
		if (!done.modifiedCount) throw new Error("the export was failed meanwhile");
		deps.logger.info({ export_id: id, bytes: length, ms: clock.nowMs() - started }, "data export completed");
	} catch (err) {
		deps.logger.error({ err, export_id: id }, "data export failed");
		await tarball.abort().catch(() => undefined);
		const failed = await deps.Export.updateOne(mine, { $set: { status: ExportStatus.FAILED, date_failed: clock.nowMs(), file_id: null } });
		if (failed.modifiedCount) await announceExports(deps, realm.id, realm.admin_user_ids);
		return;
	}
	await announceExports(deps, realm.id, realm.admin_user_ids);
	await call(deps.bus, "messages.notifyUser", {
		user_id: claimed.acting_user_id,
		content: "Your data export is complete. [View and download exports](/#organization/data-exports-admin).",
		idempotency_key: `realm-export:${id}`,
	}).catch((err: unknown) => deps.logger.warn({ err, export_id: id }, "data export: the completion message failed"));
}

/** Fails the exports whose worker stopped reporting progress (a replica that died), and removes their partial files. */
export async function failStalled(deps: ExportDeps): Promise<number> {
	const stale = await deps.Export.find({ status: { $in: [ExportStatus.REQUESTED, ExportStatus.STARTED] }, progress_at: { $lt: clock.nowMs() - STALE_MS } })
		.limit(100)
		.lean();
	for (const doc of stale) {
		const failed = await deps.Export.updateOne({ _id: doc._id, status: doc.status, progress_at: doc.progress_at }, { $set: { status: ExportStatus.FAILED, date_failed: clock.nowMs(), file_id: null } });
		if (!failed.modifiedCount) continue;
		if (doc.file_id) await deps.store.remove(doc.file_id);
		deps.logger.warn({ export_id: doc._id }, "data export failed: its worker stopped");
		await announceExports(deps, doc.realm_id);
	}
	return stale.length;
}
