// Images for tests, made with sharp (nothing downloaded), and POST /user_uploads as Zulip clients
// send a file (one multipart part named "file").
import sharp from "sharp";
import type { Account, TestApp } from "./app";

/** The Authorization header of `a`'s API key (HTTP basic auth, as Zulip's clients send it). */
export const basicAuth = (a: Account) => `Basic ${Buffer.from(`${a.email}:${a.api_key}`).toString("base64")}`;
const basic = basicAuth;

/** Uploads one file; answers the status and the JSON body. */
export async function uploadFile(app: TestApp, a: Account, name: string, bytes: Uint8Array, type?: string): Promise<{ status: number; body: any }> {
	const { status, body } = await sendMultipart(app, a, "POST", "/user_uploads", { files: [{ name, bytes, type }], partName: () => "file" });
	return { status, body };
}

/** GET of a path outside /api/v1 (a download), with `a`'s credentials or none. */
export function fetchSite(app: TestApp, path: string, a: Account | null): Promise<globalThis.Response> {
	return fetch(`${app.baseUrl.replace(/\/api\/v1$/, "")}${path}`, { headers: a ? { Authorization: basic(a) } : {} });
}

/** A still image of one colour. */
export function stillImage(width: number, height: number, format: "png" | "jpeg" | "tiff", opts: { orientation?: number } = {}): Promise<Buffer> {
	let img = sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } }).toFormat(format);
	if (opts.orientation) img = img.withMetadata({ orientation: opts.orientation });
	return img.toBuffer();
}

/** An animated GIF of `frames` frames of different colours. */
export async function animatedGif(width: number, height: number, frames: number): Promise<Buffer> {
	const pages = await Promise.all(
		Array.from({ length: frames }, (_, i) => sharp({ create: { width, height, channels: 4, background: { r: (i * 80) % 256, g: 200, b: 50, alpha: 1 } } }).png().toBuffer()),
	);
	return sharp(pages, { join: { animated: true } }).gif({ delay: pages.map(() => 100), loop: 0 }).toBuffer();
}

/** A file part of a multipart body. */
export interface FilePart {
	name: string;
	bytes: Uint8Array;
	type?: string;
}

/**
 * A multipart request to the API as `a` (null: without credentials): the text `fields` first, then
 * the `files` (each part named by `partName`), as Zulip's clients send a form with files. Answers
 * the status, the body (parsed if JSON, else its text) and the headers.
 */
export async function sendMultipart(
	app: Pick<TestApp, "baseUrl">,
	a: Account | null,
	method: string,
	path: string,
	opts: { fields?: Record<string, string>; files?: FilePart[]; partName?: (i: number) => string },
): Promise<{ status: number; body: any; headers: Headers }> {
	const form = new FormData();
	for (const [k, v] of Object.entries(opts.fields ?? {})) form.append(k, v);
	(opts.files ?? []).forEach((f, i) => form.append(opts.partName?.(i) ?? `file-${i}`, new Blob([f.bytes], f.type === undefined ? {} : { type: f.type }), f.name));
	const res = await fetch(`${app.baseUrl}${path}`, { method, body: form, headers: a ? { Authorization: basic(a) } : {} });
	const text = await res.text();
	let body: any = text;
	try {
		body = JSON.parse(text);
	} catch {
		// kept as text for the assertion
	}
	return { status: res.status, body, headers: res.headers };
}
