// The public images (custom emoji, avatars) in the store: each at its path (shared/public-images.ts),
// its bytes in GridFS. Served without credentials (the decision is in shared/public-images.ts).
import { randomBytes } from "node:crypto";
import type { Model } from "mongoose";
import type { OpenedFile } from "../../shared/actions";
import { clock } from "../../shared/clock";
import type { FileId, FileStore } from "./file-store";
import type { PublicImageDoc } from "./models/public-image";
import { sendableFile } from "./opened-file";
import { fileNotFound } from "./file-access";

export interface NewImage {
	path: string;
	content_type: string;
	/** The bytes to store, or a file already stored (an upload's original). */
	data: Buffer | { file_id: FileId; length: number };
}

/** A random name part of 80 bits, for image paths nobody can guess (Zulip: a salted hash). */
export const imageToken = () => randomBytes(10).toString("hex");

/**
 * Stores images for `realmId`. If any write fails, what was written is removed again (and the
 * given stored files too), so a refused upload leaves nothing behind.
 */
export async function storeImages(store: FileStore, Images: Model<PublicImageDoc>, realmId: number, images: NewImage[]): Promise<void> {
	const written: FileId[] = [];
	try {
		const docs: PublicImageDoc[] = [];
		for (const image of images) {
			const stored = Buffer.isBuffer(image.data) ? await store.writeBuffer(image.data, image.path, { content_type: image.content_type }) : { id: image.data.file_id, length: image.data.length };
			written.push(stored.id);
			docs.push({ _id: image.path, realm_id: realmId, file_id: stored.id, length: stored.length, content_type: image.content_type, stored: clock.nowMs() });
		}
		await Images.insertMany(docs);
	} catch (err) {
		for (const image of images) if (!Buffer.isBuffer(image.data)) written.push(image.data.file_id);
		await Promise.all(written.map((id) => store.remove(id)));
		throw err;
	}
}

/** Removes images and their bytes (paths that name none are skipped). */
export async function removeImages(store: FileStore, Images: Model<PublicImageDoc>, paths: string[]): Promise<void> {
	if (!paths.length) return;
	const docs = await Images.find({ _id: { $in: paths } }, { file_id: 1 }).lean();
	await Images.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
	await Promise.all(docs.map((d) => store.remove(d.file_id)));
}

/** The image at `path`, for the gateway to send; "File not found." if there is none. */
export async function openImage(Images: Model<PublicImageDoc>, path: string): Promise<OpenedFile> {
	const doc = await Images.findById(path).lean();
	if (!doc) throw fileNotFound();
	return sendableFile({ file_id: doc.file_id, length: doc.length, content_type: doc.content_type, name: path.slice(path.lastIndexOf("/") + 1), inline: true, stored: doc.stored });
}
