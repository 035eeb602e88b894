// What a stored file is called and how it is served, as Zulip's upload code decides it
// (zerver/lib/upload/__init__.py, zerver/lib/upload/local.py, zerver/lib/mime_types.py).
import { randomBytes, randomInt } from "node:crypto";
import mime from "mime-types";

/** Most filesystems limit a path component to 255 bytes; Zulip keeps names within that. */
const MAX_FILE_NAME_BYTES = 255;

/** A name cut to `max` UTF-8 bytes, keeping its extension when that leaves room for the rest. */
function truncateName(name: string, max: number): string {
	if (Buffer.byteLength(name) <= max) return name;
	const dot = name.lastIndexOf(".");
	let stem = dot > 0 ? name.slice(0, dot) : name;
	let ext = dot > 0 ? name.slice(dot) : "";
	if (Buffer.byteLength(ext) >= max) [stem, ext] = [name, ""];
	const room = max - Buffer.byteLength(ext);
	// Cutting the bytes may split a character: drop the partial one, as Python's errors="ignore".
	const cut = Buffer.from(stem).subarray(0, room).toString("utf8").replace(/\uFFFD+$/, "");
	return cut + ext;
}

/**
 * Zulip's sanitize_name: safe in a path and a URL. Unicode letters stay; everything but word
 * characters, whitespace, ".", "-" is dropped; runs of "-" and whitespace become one "-". `strict`
 * keeps ASCII letters and digits only (Zulip's names for tus uploads).
 */
export function sanitizeName(value: string, strict = false): string {
	let v = strict ? value.replace(/[^A-Za-z0-9_ .-]/g, "").trim() : value.normalize("NFKC").replace(/[^\p{L}\p{N}_\s.-]/gu, "").trim();
	v = v.replace(/[-\s]+/g, "-");
	v = truncateName(v, MAX_FILE_NAME_BYTES);
	return v === "" || v === "." || v === ".." ? "uploaded-file" : v;
}

/**
 * A new message upload's path: `<realm>/<random 0-ff>/<24 random URL-safe characters>/<name>`,
 * Zulip's local layout (the second part spreads files over 256 prefixes).
 */
export function messageUploadPath(realmId: number, sanitizedName: string): string {
	return `${realmId}/${randomInt(0, 256).toString(16)}/${randomBytes(18).toString("base64url")}/${sanitizedName}`;
}

/**
 * The name the uploader gave, as Zulip keeps it: URL-decoded, without NUL characters; one that
 * decodes to nothing ("%00") is sanitizeName's "uploaded-file".
 */
export function originalName(name: string): string {
	let decoded = name;
	try {
		decoded = decodeURIComponent(name);
	} catch {
		// Not valid percent-encoding: kept as given, as Python's unquote does.
	}
	return decoded.replace(/\0/g, "") || "uploaded-file";
}

/** The client's content type, else the one its name suggests, else application/octet-stream. */
export function contentTypeOf(name: string, given: string | undefined): string {
	const type = (given ?? "").trim();
	if (type && type !== "application/octet-stream") return type;
	return mime.lookup(name) || "application/octet-stream";
}

/**
 * Types a browser may show in place (zerver/lib/mime_types.py INLINE_MIME_TYPES); every other
 * type downloads as an attachment, so an uploaded page or script never runs on this site.
 */
const INLINE_TYPES = new Set([
	"application/pdf",
	"audio/aac",
	"audio/flac",
	"audio/mp4",
	"audio/mpeg",
	"audio/wav",
	"audio/webm",
	"image/apng",
	"image/avif",
	"image/gif",
	"image/jpeg",
	"image/png",
	"image/webp",
	"image/svg+xml",
	"text/plain",
	"video/mp4",
	"video/webm",
]);

const bareType = (type: string) => type.split(";")[0].trim().toLowerCase();

export const isInlineType = (type: string) => INLINE_TYPES.has(bareType(type));
export const isImageType = (type: string) => bareType(type).startsWith("image/");

/** RFC 6266's header for `name` (the last part of the path), as Zulip's patch_disposition_header. */
export function contentDisposition(name: string, inline: boolean): string {
	const kind = inline ? "inline" : "attachment";
	if (/^[\x00-\x7f]*$/.test(name)) return `${kind}; filename="${name.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
	return `${kind}; filename*=utf-8''${encodeURIComponent(name)}`;
}
