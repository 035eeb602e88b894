// The rules of a file in transit: who may send its chunks, how many bytes it may have, and what
// completing or abandoning it leaves behind. A chunk is stored as it arrives; the GridFS file
// document is written only when the endpoint's action completes the upload, after every check.
import type { Model } from "mongoose";
import { badRequest } from "../../shared/errors";
import { clock } from "../../shared/clock";
import type { Ctx, Identity } from "../../shared/actions";
import { CHUNK_BYTES, FileStore, type FileId } from "./file-store";
import type { PendingUploadDoc } from "./models/pending-upload";

/** An upload neither completed nor abandoned by its gateway within this time is removed. */
export const PENDING_TTL_MS = 60 * 60 * 1000;

/** What one file endpoint takes: its size limit and the refusal past it. */
export interface Purpose {
	maxBytes: number;
	tooLarge: () => Error;
	/** The endpoint's checks that come before the body is read (who may, a name in use), given the route's parameters. */
	check?: (ctx: Ctx<any>, params: Record<string, unknown>) => Promise<void>;
}

/** A limit of `mib` MiB and Zulip's refusal past it, the same words on every file endpoint. */
export function sizeLimit(mib: number): Pick<Purpose, "maxBytes" | "tooLarge"> {
	return { maxBytes: mib * 1024 * 1024, tooLarge: () => badRequest(`Uploaded file is larger than the allowed limit of ${mib} MiB`) };
}

/** The upload in transit that `user` may write to or complete for `action`, or Zulip's error. */
export async function pendingUpload(Pending: Model<PendingUploadDoc>, uploadId: unknown, user: Identity, action?: string): Promise<PendingUploadDoc & { _id: FileId }> {
	const id = FileStore.parseId(uploadId);
	const doc = id && (await Pending.findById(id).lean());
	if (!doc || doc.user_id !== user.user_id || (action !== undefined && doc.action !== action)) throw badRequest("Invalid upload");
	return doc as PendingUploadDoc & { _id: FileId };
}

/** Starts an upload for `action` after its checks passed; answers its ID. */
export async function startUpload(Pending: Model<PendingUploadDoc>, user: Identity, action: string, purpose: Purpose, declaredBytes: number): Promise<string> {
	// Content-Length counts the multipart framing too: only a body larger than the file limit by
	// more than any framing is refused before its bytes are read.
	if (declaredBytes > purpose.maxBytes + MULTIPART_FRAMING_BYTES) throw purpose.tooLarge();
	const id = FileStore.newId();
	await Pending.create({ _id: id, user_id: user.user_id, realm_id: user.realm_id, action, max_bytes: purpose.maxBytes, started: clock.nowMs() });
	return id.toHexString();
}

/** The most a multipart body adds around its one file: boundaries, part headers, a long file name. */
const MULTIPART_FRAMING_BYTES = 64 * 1024;

/** Stores chunk `n`; a chunk past the purpose's limit removes the upload and refuses it. */
export async function storeChunk(store: FileStore, Pending: Model<PendingUploadDoc>, pending: PendingUploadDoc & { _id: FileId }, purpose: Purpose, n: number, data: Buffer): Promise<void> {
	if (data.length > CHUNK_BYTES || data.length === 0) throw badRequest("Invalid chunk");
	if (n * CHUNK_BYTES + data.length > pending.max_bytes) {
		await dropUpload(store, Pending, pending._id);
		throw purpose.tooLarge();
	}
	await store.writeChunk(pending._id, n, data);
}

/**
 * Checks that every chunk of a `length`-byte upload arrived, then makes it a stored file: answers
 * its GridFS ID. The pending record goes; the bytes stay, now under a file document.
 */
export async function completeUpload(store: FileStore, Pending: Model<PendingUploadDoc>, pending: PendingUploadDoc & { _id: FileId }, length: number, fileName: string, metadata: Record<string, unknown>): Promise<FileId> {
	if (!Number.isSafeInteger(length) || length < 0 || length > pending.max_bytes) throw badRequest("Invalid upload");
	const chunks = Math.ceil(length / CHUNK_BYTES);
	if ((await store.countChunks(pending._id)) !== chunks) throw badRequest("Invalid upload");
	await store.complete(pending._id, length, fileName, metadata);
	await Pending.deleteOne({ _id: pending._id });
	return pending._id;
}

/** Removes an upload in transit and whatever bytes it stored. */
export async function dropUpload(store: FileStore, Pending: Model<PendingUploadDoc>, id: FileId): Promise<void> {
	await store.remove(id);
	await Pending.deleteOne({ _id: id });
}

/** Removes the uploads left behind (their client or gateway went away); answers how many. */
export async function sweepAbandoned(store: FileStore, Pending: Model<PendingUploadDoc>): Promise<number> {
	const old = await Pending.find({ started: { $lt: clock.nowMs() - PENDING_TTL_MS } }, { _id: 1 })
		.sort({ started: 1 })
		.limit(1000)
		.lean();
	for (const { _id } of old) await dropUpload(store, Pending, _id as FileId);
	return old.length;
}
