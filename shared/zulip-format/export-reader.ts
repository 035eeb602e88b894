// Opens an export: a directory as Zulip's `manage.py export` leaves it, or its .tar.gz.
//
// Decision: a tarball is unpacked to a temporary directory first, streaming (tar-stream), so memory
// stays flat whatever its size and the import reads files in the order it needs (realm.json before
// the message files, records.json before the images) rather than in the tarball's order, which
// Zulip does not fix. The cost is disk space for one unpacked copy, removed when the import ends.
// A truncated or corrupt tarball fails here, before anything is written.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { pipeline } from "node:stream/promises";
import { Writable } from "node:stream";
import tar from "tar-stream";
import { ImportError } from "./import-error";

export interface OpenedExport {
	/** The directory holding realm.json. */
	dir: string;
	/** Removes what opening made (the unpacked copy of a tarball). */
	close(): Promise<void>;
}

/** The directory holding realm.json: `root` itself or its one subdirectory (Zulip's tarballs hold one folder). */
function exportRoot(root: string, label: string): string {
	if (fs.existsSync(path.join(root, "realm.json"))) return root;
	const subdirs = fs.readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory());
	if (subdirs.length === 1 && fs.existsSync(path.join(root, subdirs[0].name, "realm.json"))) return path.join(root, subdirs[0].name);
	throw new ImportError(label, "no realm.json: this is not a Zulip export");
}

/** A path inside the archive that stays inside `dir` (no absolute paths, no `..`). */
function safeJoin(dir: string, name: string, label: string): string {
	const target = path.resolve(dir, name);
	if (target !== dir && !target.startsWith(dir + path.sep)) throw new ImportError(label, `the entry "${name}" points outside the export`);
	return target;
}

async function unpack(file: string, into: string): Promise<void> {
	const label = path.basename(file);
	const extract = tar.extract();
	const done = new Promise<void>((resolve, reject) => {
		extract.on("entry", (header, stream, next) => {
			const fail = (err: unknown) => {
				stream.resume();
				reject(err);
			};
			let target: string;
			try {
				target = safeJoin(into, header.name, label);
			} catch (err) {
				return fail(err);
			}
			if (header.type === "directory") {
				fs.mkdirSync(target, { recursive: true });
				stream.resume();
				return next();
			}
			if (header.type !== "file") {
				// Links and devices have no place in an export: skipped.
				stream.resume();
				return next();
			}
			fs.mkdirSync(path.dirname(target), { recursive: true });
			pipeline(stream, fs.createWriteStream(target)).then(() => next(), fail);
		});
		extract.on("finish", resolve);
		extract.on("error", reject);
	});
	try {
		await Promise.all([pipeline(fs.createReadStream(file), zlib.createGunzip(), extract as unknown as Writable), done]);
	} catch (err) {
		if (err instanceof ImportError) throw err;
		throw new ImportError(label, `the tarball is truncated or corrupt (${err instanceof Error ? err.message : String(err)})`);
	}
}

export async function openExport(source: string): Promise<OpenedExport> {
	const label = path.basename(source);
	let stat: fs.Stats;
	try {
		stat = fs.statSync(source);
	} catch {
		throw new ImportError(label, `no such file or directory: ${source}`);
	}
	if (stat.isDirectory()) return { dir: exportRoot(path.resolve(source), label), close: async () => undefined };
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "zulip-import-"));
	const close = async () => fs.rmSync(tmp, { recursive: true, force: true });
	try {
		await unpack(path.resolve(source), tmp);
		return { dir: exportRoot(tmp, label), close };
	} catch (err) {
		await close();
		throw err;
	}
}
