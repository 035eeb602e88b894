// The files of an export: `uploads/` (message attachments) and `emoji/` (custom emoji images),
// each with a records.json naming every file by its path inside the folder.
import fs from "node:fs";
import path from "node:path";
import { ImportError } from "./import-error";
import { readJson, Rec } from "./records";
import type { FileFolder } from "./tables";

/** The records of `<folder>/records.json` (absent folder: none). */
export function fileRecords(dir: string, folder: FileFolder): Rec[] {
	const name = `${folder}/records.json`;
	const list = readJson(dir, name, false);
	if (list === undefined) return [];
	if (!Array.isArray(list)) throw new ImportError(name, "must be a list of records");
	return list.map((raw, i) => {
		if (!raw || typeof raw !== "object") throw new ImportError(name, "not an object", { table: "records", index: i });
		return new Rec(name, "records", i, raw as Record<string, unknown>);
	});
}

/** The bytes of the file a record names. */
export function fileBytes(dir: string, folder: FileFolder, rec: Rec): Buffer {
	const rel = rec.str("path");
	const file = path.resolve(dir, folder, rel);
	if (!file.startsWith(path.resolve(dir, folder) + path.sep)) rec.fail(`"path" points outside ${folder}/`);
	if (!fs.existsSync(file)) rec.fail(`the file ${folder}/${rel} is missing from the export`);
	return fs.readFileSync(file);
}

const TYPES: Record<string, string> = {
	".png": "image/png",
	".jpg": "image/jpeg",
	".jpeg": "image/jpeg",
	".gif": "image/gif",
	".webp": "image/webp",
	".txt": "text/plain",
	".pdf": "application/pdf",
};

/** A content type from a file name, where the export names none. */
export const typeOfName = (name: string) => TYPES[path.extname(name.replace(/\.original$/, "")).toLowerCase()] ?? "application/octet-stream";

/** An image's type from its first bytes (an original's name has no extension). */
export function sniffImage(data: Buffer): string {
	if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
	if (data[0] === 0xff && data[1] === 0xd8) return "image/jpeg";
	if (data.subarray(0, 4).toString("latin1") === "GIF8") return "image/gif";
	if (data.subarray(0, 4).toString("latin1") === "RIFF" && data.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
	return "application/octet-stream";
}
