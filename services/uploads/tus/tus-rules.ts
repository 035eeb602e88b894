// The rules of a resumable upload (the tus protocol, served by the gateway's
// services/api/tus-endpoint.ts): its creation with Zulip's checks, bytes taken only at the offset
// the store holds, and its end as an ordinary message upload. As Zulip's zerver/views/tusd.py
// (its pre-create and pre-finish hooks).
//
// Every step is one conditional write of the upload's document (tus-upload.ts), so replicas of
// this service and of the gateway may take an upload's requests in any order: bytes are accepted
// at the offset the document holds and nowhere else (a second writer at the same offset is
// refused with 409), and a chunk reaches GridFS only from the document's committed state.
import { mongo } from "mongoose";
import type { Ctx, Identity, TusUploadState } from "../../../shared/actions";
import { apiError, badRequest } from "../../../shared/errors";
import { clock } from "../../../shared/clock";
import { CHUNK_BYTES, FileStore } from "../file-store";
import { contentTypeOf, messageUploadPath, sanitizeName } from "../file-names";
import { addMessageAttachment } from "../message-attachment";
import type { TusUploadDoc } from "../models/tus-upload";
import type { UploadsDeps } from "../actions/deps";

/** An upload untouched for this long is removed (bytes and all, if it was never finished). */
export const TUS_KEPT_MS = 24 * 60 * 60 * 1000;
/** A finishing request that has not ended in this time is taken as gone: another may finish the upload. */
const FINISH_CLAIM_MS = 60 * 1000;
const MIB = 1024 * 1024;
/** `flushing` and `finishing` when nothing is under way (stored as numbers, queried by equality on every store). */
const NONE = -1;

export interface TusFinished {
	url: string;
	filename: string;
}

type Doc = TusUploadDoc & { _id: mongo.ObjectId };

const uploadNotFound = () => apiError(404, "NOT_FOUND", "Upload not found");
const offsetConflict = () => apiError(409, "BAD_REQUEST", "Upload-Offset conflict");

/** Zulip's words past the size limit (tusd.py, a self-hosted server), with tus's status. */
export const tooLarge = (maxBytes: number) => apiError(413, "BAD_REQUEST", `File is larger than this server's configured maximum upload size (${maxBytes / MIB} MiB).`);

/** The organization's quota (upload-space.ts), refused with 413 as Zulip's pre-create hook does. */
async function checkQuota(deps: UploadsDeps, realmId: number, bytes: number): Promise<void> {
	try {
		await deps.space.checkRoomFor(realmId, bytes);
	} catch (err) {
		const e = err as { type?: unknown; message?: string };
		if (e.type === "REALM_UPLOAD_QUOTA") throw apiError(413, "REALM_UPLOAD_QUOTA", String(e.message));
		throw err;
	}
}

/** The bytes of a stored Buffer field, as a lean read returns them (a driver Binary). */
function bytesOf(b: unknown): Buffer {
	if (Buffer.isBuffer(b)) return b;
	if (b instanceof mongo.Binary) return Buffer.from(b.buffer.buffer, b.buffer.byteOffset, b.buffer.byteLength);
	return Buffer.alloc(0);
}

function stateOf(doc: Doc): TusUploadState {
	return { upload_id: doc._id.toHexString(), length: doc.length, offset: doc.offset, metadata: doc.metadata, created: doc.created, chunk_bytes: CHUNK_BYTES };
}

/** `user`'s upload `uploadId`; another's is as unknown as one that never was. */
async function ownUpload(deps: UploadsDeps, uploadId: string, user: Identity): Promise<Doc> {
	const id = FileStore.parseId(uploadId);
	const doc = id && ((await deps.Tus.findById(id).lean()) as Doc | null);
	if (!doc || doc.user_id !== user.user_id) throw uploadNotFound();
	return doc;
}

/** The name Zulip's pre-finish hook gives the file: the client's, without NULs, or "uploaded-file". */
function fileNameOf(metadata: Record<string, string | null>): string {
	const name = (metadata.filename ?? "").replace(/\0/g, "");
	return name === "" || name === "." || name === ".." ? "uploaded-file" : name;
}

/**
 * Creates `user`'s upload of `length` bytes under `uploadId` (the gateway names it), after Zulip's
 * pre-create checks: the size limit, the quota. Its path is fixed now, from the client's file name.
 */
export async function createTus(deps: UploadsDeps, user: Identity, uploadId: string, length: number, metadata: Record<string, string | null>, maxBytes: number): Promise<TusUploadState> {
	const id = FileStore.parseId(uploadId);
	if (!id) throw badRequest("Invalid upload");
	if (length > maxBytes) throw tooLarge(maxBytes);
	await checkQuota(deps, user.realm_id, length);
	const now = clock.nowMs();
	const doc = await deps.Tus.create({
		_id: id,
		user_id: user.user_id,
		realm_id: user.realm_id,
		length,
		offset: 0,
		tail: Buffer.alloc(0),
		flushing: NONE,
		metadata: JSON.stringify(metadata),
		file_name: fileNameOf(metadata),
		// Zulip's strict names for tus uploads: ASCII only.
		path_id: messageUploadPath(user.realm_id, sanitizeName(metadata.filename ?? "", true)),
		created: now,
		updated: now,
		finishing: NONE,
	});
	return stateOf(doc.toObject() as Doc);
}

export async function tusState(deps: UploadsDeps, user: Identity, uploadId: string): Promise<TusUploadState> {
	return stateOf(await ownUpload(deps, uploadId, user));
}

/** Copies the full chunk the document holds into GridFS, then empties the document's tail. Idempotent. */
async function flush(deps: UploadsDeps, doc: Doc): Promise<Doc> {
	if (doc.flushing === NONE) return doc;
	await deps.store.writeChunk(doc._id, doc.flushing!, bytesOf(doc.tail));
	await deps.Tus.updateOne({ _id: doc._id, offset: doc.offset, flushing: doc.flushing }, { $set: { flushing: NONE, tail: Buffer.alloc(0) } });
	return { ...doc, flushing: NONE, tail: Buffer.alloc(0) };
}

/**
 * Takes `data` at `offset`, which must be the upload's offset, within one chunk. The bytes are in
 * the document once its offset moved (the one write that decides); a chunk they complete (or the
 * file's last) is then copied into GridFS. Answers the new offset.
 */
export async function writeTus(deps: UploadsDeps, user: Identity, uploadId: string, offset: number, data: Buffer): Promise<number> {
	const doc = await flush(deps, await ownUpload(deps, uploadId, user));
	if (offset !== doc.offset || doc.finishing !== NONE || doc.finished) throw offsetConflict();
	const within = offset % CHUNK_BYTES;
	if (data.length === 0 || within + data.length > CHUNK_BYTES) throw badRequest("Invalid chunk");
	if (offset + data.length > doc.length) throw apiError(413, "BAD_REQUEST", "Upload's size exceeded");
	const end = offset + data.length;
	const tail = Buffer.concat([bytesOf(doc.tail), data]);
	const n = Math.floor(offset / CHUNK_BYTES);
	const flushing = tail.length === CHUNK_BYTES || end === doc.length ? n : NONE;
	const moved = await deps.Tus.updateOne({ _id: doc._id, offset, flushing: NONE, finishing: NONE }, { $set: { offset: end, tail, flushing, updated: clock.nowMs() } });
	if (moved.matchedCount === 0) throw offsetConflict();
	await flush(deps, { ...doc, offset: end, tail, flushing });
	return end;
}

/**
 * Makes the complete upload an ordinary message upload (addMessageAttachment), once: a request
 * claims the finishing, and what it answered is kept, so a client that asks again (its answer was
 * lost) gets the same URL.
 */
export async function finishTus(ctx: Ctx<any>, deps: UploadsDeps, user: Identity, uploadId: string): Promise<TusFinished> {
	const doc = await flush(deps, await ownUpload(deps, uploadId, user));
	if (doc.finished) return doc.finished;
	if (doc.offset !== doc.length) throw offsetConflict();
	const now = clock.nowMs();
	// A claim older than FINISH_CLAIM_MS is a request gone: taken over.
	const free = doc.finishing === NONE || doc.finishing! <= now - FINISH_CLAIM_MS;
	const claimed = free && (await deps.Tus.updateOne({ _id: doc._id, finishing: doc.finishing }, { $set: { finishing: now, updated: now } })).matchedCount > 0;
	if (!claimed) {
		const again = await ownUpload(deps, uploadId, user);
		if (again.finished) return again.finished;
		throw apiError(409, "BAD_REQUEST", "Upload is being finished");
	}
	try {
		const finished = await storeAsAttachment(ctx, deps, user, doc);
		await deps.Tus.updateOne({ _id: doc._id }, { $set: { finished, finishing: NONE, updated: clock.nowMs() } });
		return finished;
	} catch (err) {
		await deps.Tus.updateOne({ _id: doc._id, finishing: now }, { $set: { finishing: NONE } });
		throw err;
	}
}

/** The file document and the attachment of a complete upload; a retry finds what an earlier attempt made. */
async function storeAsAttachment(ctx: Ctx<any>, deps: UploadsDeps, user: Identity, doc: Doc): Promise<TusFinished> {
	const made = await deps.Attachment.findOne({ path_id: doc.path_id }).lean();
	if (made) return { url: `/user_uploads/${made.path_id}`, filename: made.file_name };
	// Checked again: the organization's uploads may have grown since this one began. Refused, it goes.
	try {
		await checkQuota(deps, user.realm_id, doc.length);
	} catch (err) {
		await removeUpload(deps, doc._id);
		throw err;
	}
	if ((await deps.store.countChunks(doc._id)) !== Math.ceil(doc.length / CHUNK_BYTES)) throw badRequest("Invalid upload");
	const metadata = JSON.parse(doc.metadata) as Record<string, string | null>;
	const contentType = contentTypeOf(doc.file_name, (metadata.filetype ?? "").replace(/\0/g, ""));
	if (!(await deps.store.exists(doc._id))) await deps.store.complete(doc._id, doc.length, doc.file_name, { path_id: doc.path_id, content_type: contentType });
	return addMessageAttachment(ctx, deps, user, { fileId: doc._id, pathId: doc.path_id, fileName: doc.file_name, contentType, size: doc.length });
}

/** Drops `user`'s unfinished upload and its bytes (tus termination); a finished one stays (Zulip's pre-terminate hook). */
export async function removeTus(deps: UploadsDeps, user: Identity, uploadId: string): Promise<void> {
	const doc = await ownUpload(deps, uploadId, user);
	if (doc.finished || doc.finishing !== NONE) throw badRequest("Cannot terminate an already completed upload");
	await removeUpload(deps, doc._id);
}

/** Removes an unfinished upload: its document first (no write can land after), then its bytes. */
async function removeUpload(deps: UploadsDeps, id: mongo.ObjectId): Promise<void> {
	const gone = await deps.Tus.deleteOne({ _id: id, finished: { $exists: false } });
	if (gone.deletedCount) await deps.store.remove(id);
}

/** Removes the uploads untouched for TUS_KEPT_MS: an unfinished one with its bytes, a finished one's record only. Answers how many. */
export async function sweepTus(deps: UploadsDeps): Promise<number> {
	const old = (await deps.Tus.find({ updated: { $lt: clock.nowMs() - TUS_KEPT_MS } }, { _id: 1, updated: 1, finished: 1 })
		.sort({ updated: 1 })
		.limit(1000)
		.lean()) as Pick<Doc, "_id" | "updated" | "finished">[];
	for (const doc of old) {
		const gone = await deps.Tus.deleteOne({ _id: doc._id, updated: doc.updated });
		if (gone.deletedCount && !doc.finished) await deps.store.remove(doc._id);
	}
	return old.length;
}
