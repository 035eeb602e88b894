// The gateway's side of files: a file endpoint's body streamed into the uploads service, and the
// downloads outside /api/v1 (`/user_uploads/{realm_id}/{path}` with the caller's credentials,
// `/user_uploads/temporary/{token}/{filename}` without), streamed back out.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { call, type Identity, type Meta, type OpenedFile, type UploadedFileMeta } from "../../shared/actions";
import { badRequest, notFound } from "../../shared/errors";
import { fromBus } from "../../shared/bus-bytes";
import { receiveFile, receiveParts, type ChunkSink } from "./file-upload";
import { sendFile } from "./file-download";

/** Where downloads are served, outside /api/v1 as in Zulip. */
export const UPLOADS_PATH = "/user_uploads";

/**
 * Receives the request's one file for the file endpoint `action`: the endpoint's checks first (the
 * body is not read if they refuse), then the bytes, chunk by chunk. Answers what the action reads
 * in `ctx.meta.upload`, and the body's text fields (ignored parameters). Anything refused or cut
 * short removes what was stored.
 */
export async function receiveUpload(ctx: Context<unknown, Meta>, req: IncomingMessage, action: string, meta: Meta, params: Record<string, unknown> = {}): Promise<{ upload: UploadedFileMeta; fields: string[] }> {
	const { upload_id, sink } = await beginUpload(ctx, req, action, meta, params);
	try {
		const file = await receiveFile(req, sink);
		return { upload: { upload_id, length: file.length, file_name: file.file_name, content_type: file.content_type }, fields: file.fields };
	} catch (err) {
		await abortUpload(ctx, upload_id, meta);
		throw fileCountError(action, err);
	}
}

/**
 * Receives the body of an endpoint whose file is optional (a route's `file: "optional"`, sent as
 * multipart): the text fields before the file are parameters (over `params`, the query's, as a
 * body's are); an upload begins only when a file's part does, with those parameters for the
 * endpoint's checks, and is then streamed as any file endpoint's. Anything refused or cut short
 * removes what was stored.
 */
/** Begins an upload for `action` (its checks, given `params`, run first); answers its ID and where its chunks go. */
async function beginUpload(ctx: Context<unknown, Meta>, req: IncomingMessage, action: string, meta: Meta, params: Record<string, unknown>): Promise<{ upload_id: string; sink: ChunkSink }> {
	const declared = Number(req.headers["content-length"]);
	const { upload_id, chunk_bytes } = await call(ctx, "uploads.begin", { action, declared_bytes: Number.isSafeInteger(declared) && declared > 0 ? declared : 0, params }, { meta });
	// The Buffer itself: by reference within one process, raw bytes over the network (shared/bus-bytes.ts).
	const write = async (n: number, data: Buffer) => {
		await call(ctx, "uploads.writeChunk", { upload_id, n, data }, { meta });
	};
	return { upload_id, sink: { chunkBytes: chunk_bytes, write } };
}

export async function receiveOptionalUpload(
	ctx: Context<unknown, Meta>,
	req: IncomingMessage,
	action: string,
	meta: Meta,
	params: Record<string, unknown>,
	/** Checks the parameters the fields before the file make (their types, as the route's action declares them) before any byte is stored. */
	checkFields: (fields: Record<string, string>) => void,
): Promise<{ upload: UploadedFileMeta | undefined; fields: Record<string, string>; ignored: string[] }> {
	let uploadId: string | undefined;
	try {
		const got = await receiveParts(
			req,
			async (fields) => {
				checkFields(fields);
				const begun = await beginUpload(ctx, req, action, meta, { ...params, ...fields });
				uploadId = begun.upload_id;
				return begun.sink;
			},
			true,
		);
		const upload = got.file && uploadId ? { upload_id: uploadId, length: got.file.length, file_name: got.file.file_name, content_type: got.file.content_type } : undefined;
		return { upload, fields: got.params, ignored: got.ignored };
	} catch (err) {
		if (uploadId) await abortUpload(ctx, uploadId, meta);
		throw fileCountError(action, err);
	}
}

/** Zulip's own words, on some endpoints, for a body without exactly one file. */
const FILE_COUNT_ERRORS: Record<string, string> = {
	"uploads.uploadEmoji": "You must upload exactly one file.",
	"uploads.uploadAvatar": "You must upload exactly one avatar.",
	"uploads.uploadRealmIcon": "You must upload exactly one icon.",
	"uploads.uploadRealmLogo": "You must upload exactly one logo.",
};

function fileCountError(action: string, err: unknown): unknown {
	const msg = (err as { message?: unknown }).message;
	const own = Object.hasOwn(FILE_COUNT_ERRORS, action) ? FILE_COUNT_ERRORS[action] : undefined;
	return own && (msg === "You must specify a file to upload" || msg === "You may only upload one file at a time") ? badRequest(own) : err;
}

/** Drops an upload in transit (one already completed is not touched). */
export async function abortUpload(ctx: Context<unknown, Meta>, upload_id: string, meta: Meta): Promise<void> {
	await call(ctx, "uploads.abort", { upload_id }, { meta }).catch(() => undefined);
}

/**
 * The file a download URL names (the path after /user_uploads), opened for the user `authenticate`
 * names, by its token, or, for a request without credentials (`withCredentials` false), as a
 * visitor may (a web-public file, file-access.ts).
 */
export async function openDownload(ctx: Context<unknown, Meta>, path: string, authenticate: () => Promise<Identity>, withCredentials = true): Promise<OpenedFile> {
	let segments: string[];
	try {
		segments = path.split("/").slice(1).map(decodeURIComponent);
	} catch {
		throw notFound("File not found.");
	}
	if (segments[0] === "temporary" && segments.length === 3) return call(ctx, "uploads.openTemporary", { token: segments[1], filename: segments[2] });
	// A thumbnail of an uploaded image, `thumbnail/{path_id}/{format}`: readable as its original is.
	if (segments[0] === "thumbnail" && segments.length >= 4 && /^\d+$/.test(segments[1])) {
		const params = { path_id: segments.slice(1, -1).join("/"), format: segments[segments.length - 1] };
		return withCredentials ? call(ctx, "uploads.openThumbnail", params, { meta: { user: await authenticate() } }) : asVisitor(call(ctx, "uploads.openThumbnail", params, { meta: {} }), authenticate);
	}
	// An organization export's file (Zulip's export tarball URL): its administrators only.
	if (segments[0] === "exports") return call(ctx, "uploads.openExport", { path_id: segments.join("/") }, { meta: { user: await authenticate() } });
	if (segments.length < 2 || !/^\d+$/.test(segments[0])) throw notFound("File not found.");
	const params = { path_id: segments.join("/") };
	return withCredentials ? call(ctx, "uploads.open", params, { meta: { user: await authenticate() } }) : asVisitor(call(ctx, "uploads.open", params, { meta: {} }), authenticate);
}

/**
 * A visitor's download: the file if a visitor may read it, else the refusal of a request without
 * credentials (401, as before visitors could read anything), so a visitor learns nothing of the
 * files they may not read.
 */
async function asVisitor(opened: Promise<OpenedFile>, authenticate: () => Promise<Identity>): Promise<OpenedFile> {
	try {
		return await opened;
	} catch (err) {
		// Any refusal (no such file, a path the action refuses to read): the answer without credentials.
		const code = (err as { code?: unknown }).code;
		if (typeof code !== "number" || code < 400 || code >= 500) throw err;
		await authenticate();
		throw err;
	}
}

/** Sends an opened file, its chunks read from the uploads service. */
export function sendOpened(ctx: Context<unknown, Meta>, req: IncomingMessage, res: ServerResponse, file: OpenedFile): Promise<void> {
	return sendFile(req, res, file, async (n) => fromBus((await call(ctx, "uploads.readChunk", { file_id: file.file_id, n })).data));
}
