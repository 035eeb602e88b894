// Writes the organization of a database prefix as a Zulip export (a .tar.gz as Zulip's
// `manage.py export` writes it, feature level 339's tables and layout): everything the server
// keeps, through the same writer as POST /export/realm's public export
// (shared/zulip-format/write-export.ts), from the service databases (database-source.ts).
import path from "node:path";
import { clock } from "../../shared/clock";
import { FileStore } from "../../services/uploads/file-store";
import { realmExportModel } from "../../services/uploads/models/realm-export";
import { realmExportRows } from "../../shared/zulip-format/realm-export-table";
import { TarballWriter } from "../../services/uploads/export/tarball";
import { writeExport } from "../../shared/zulip-format/write-export";
import type { Progress } from "../progress";
import { phaseLines } from "./phase-lines";
import { connectServiceDbs, serviceModels } from "../service-dbs";
import { catalogModels } from "../../services/catalog/db";
import { catalogDataMoved } from "../../services/catalog/move-from-users";
import { ArchiveFile } from "./archive-file";
import { databaseSource } from "./database-source";

export interface ExportOptions {
	/** The .tar.gz to write. */
	out: string;
	mongoUrl: string;
	/** The database prefix whose organization is exported (DB_PREFIX). */
	prefix: string;
	/** Drawn a line per phase (users, subscriptions, messages, files, tables), as import-zulip's. */
	progress?: Progress;
}

export interface ExportResult {
	/** Each table's row count (stats.json). */
	stats: Record<string, number>;
	bytes: number;
}

/** The directory inside the archive, named for the file (`team.tar.gz` holds `team/`), as Zulip's tarballs hold one. */
export const archiveDir = (out: string) => path.basename(out).replace(/\.tar\.gz$|\.tgz$/, "") || "zulip-export";

export async function exportZulip(o: ExportOptions): Promise<ExportResult> {
	const { conns, close } = await connectServiceDbs(o.mongoUrl, o.prefix);
	const archive = new ArchiveFile(path.resolve(o.out));
	try {
		// A server whose catalog service has not started yet still keeps its catalog in the users database.
		const m = { ...serviceModels(conns), ...((await catalogDataMoved(conns.catalog)) ? {} : catalogModels(conns.users)) };
		const { realm, source } = await databaseSource(m);
		const exports = await realmExportModel(conns.uploads).find({ realm_id: realm.id }).sort({ _id: 1 }).lean();
		await archive.open();
		const tarball = new TarballWriter(archive, FileStore.newId(), new Date(clock.nowMs()));
		try {
			const lines = phaseLines(o.progress);
			const stats = await writeExport(source, tarball, archiveDir(o.out), realm, /* publicOnly */ false, { zerver_realmexport: realmExportRows(exports) }, async (step) => lines.step(step));
			lines.end();
			const { length } = await tarball.finish();
			await archive.finish();
			return { stats, bytes: length };
		} catch (err) {
			await tarball.abort().catch(() => undefined);
			throw err;
		}
	} catch (err) {
		await archive.remove();
		throw err;
	} finally {
		await close();
	}
}
