// Image uploads: their dimensions and thumbnails, as Zulip's zerver/lib/thumbnail.py and its
// thumbnail worker make them. An upload whose type is one Zulip thumbnails and whose bytes decode
// within the pixel limits gets an ImageAttachment row and its thumbnails (each a GridFS file of
// its own); anything else is a file without thumbnails, never a refused upload.
//
// Decision: the thumbnails are made at upload time, before POST /user_uploads answers, rather
// than by a queue worker as in Zulip. A client learns an image's URL only from that answer, so
// every message linking it renders its thumbnail straight away: no spinner to swap later, and so
// no stored message to re-render and no update events when a worker finishes. The work is bounded
// (Zulip's pixel limits, three frames' worth of an animation, libvips in libuv's thread pool, off
// the event loop), and only the uploading request waits for it. The row is written once, with its
// thumbnails, after they are stored: a row never exists without them. The renderer still knows
// Zulip's spinner form for a row without thumbnails (shared/markdown/image-previews.ts).
import sharp, { type FormatEnum, type Metadata } from "sharp";
import type { Model } from "mongoose";
import type { ImagePreview } from "../../shared/markdown/image-previews";
import { formatName, parseFormat, THUMBNAIL_OUTPUT_FORMATS, TRANSCODED_IMAGE_FORMAT, type ThumbnailFormat } from "../../shared/thumbnail-formats";
import type { FileStore, FileId } from "./file-store";
import { isInlineType } from "./file-names";
import type { ImageAttachmentDoc, StoredThumbnail } from "./models/image-attachment";

/** The types Zulip parses and thumbnails (THUMBNAIL_ACCEPT_IMAGE_TYPES); other bytes are not decoded at all. */
export const THUMBNAIL_ACCEPT_IMAGE_TYPES = new Set(["image/avif", "image/gif", "image/heic", "image/jpeg", "image/png", "image/tiff", "image/webp", "image/svg+xml"]);

/** Zulip's limits: a still over this many pixels is not decoded; an animation's first three frames share a third of it. */
export const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;
export const IMAGE_MAX_ANIMATED_PIXELS = IMAGE_BOMB_TOTAL_PIXELS / 3;

// Nothing is resized twice: libvips' operation cache would only hold decoded images in memory (Zulip
// turns it off too).
sharp.cache(false);

const CONTENT_TYPES: Record<string, string> = { webp: "image/webp", png: "image/png", jpg: "image/jpeg", gif: "image/gif" };

const bareType = (type: string) => type.split(";")[0].trim().toLowerCase();

export interface ImageFacts {
	width: number;
	height: number;
	frames: number;
}

/**
 * An image's size as shown (EXIF orientation applied) and frame count, read from its header; null
 * when the bytes are no image libvips reads or exceed the pixel limits (Zulip's libvips_check_image
 * with truncated animations).
 */
export async function probeImage(bytes: Buffer): Promise<ImageFacts | null> {
	let meta: Metadata;
	try {
		meta = await sharp(bytes).metadata();
	} catch {
		return null;
	}
	const { width, height } = meta.autoOrient ?? meta;
	const frames = meta.pages ?? 1;
	if (!width || !height) return null;
	if (frames === 1 ? width * height > IMAGE_BOMB_TOTAL_PIXELS : width * height * Math.min(3, frames) > IMAGE_MAX_ANIMATED_PIXELS) return null;
	return { width, height, frames };
}

/** The formats to make of an image (Zulip's missing_thumbnails for a new row). */
export function formatsFor(contentType: string, facts: ImageFacts): ThumbnailFormat[] {
	const formats = [...THUMBNAIL_OUTPUT_FORMATS];
	if (!isInlineType(contentType)) {
		const t = TRANSCODED_IMAGE_FORMAT;
		// A portrait original gets a portrait-sized transcoding.
		formats.push(facts.width >= facts.height ? t : { ...t, max_width: t.max_height, max_height: t.max_width });
	}
	// A still image has no animated thumbnails.
	return facts.frames === 1 ? formats.filter((f) => !f.animated) : formats;
}

/** One thumbnail's bytes: scaled down (never up) to fit the format, EXIF orientation applied. */
async function thumbnail(bytes: Buffer, facts: ImageFacts, format: ThumbnailFormat): Promise<{ data: Buffer; width: number; height: number }> {
	let pages = 1;
	if (facts.frames > 1 && format.animated) {
		// As many frames as fit in IMAGE_MAX_ANIMATED_PIXELS (all of them, usually).
		const perFrame = facts.width * facts.height;
		pages = perFrame * facts.frames < IMAGE_MAX_ANIMATED_PIXELS ? -1 : Math.max(1, Math.floor(IMAGE_MAX_ANIMATED_PIXELS / perFrame));
	}
	// As libvips' own default (and so Zulip's): a damaged but readable image (a truncated JPEG, a
	// camera's odd markers) is thumbnailed as far as it decodes, not refused.
	const { data, info } = await sharp(bytes, { pages, limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS, failOn: "none" })
		.autoOrient()
		.resize(format.max_width, format.max_height, { fit: "inside", withoutEnlargement: true })
		.toFormat(format.extension as keyof FormatEnum & string)
		.toBuffer({ resolveWithObject: true });
	return { data, width: info.width, height: format.animated && info.pageHeight ? info.pageHeight : info.height };
}

export interface UploadedImage {
	realm_id: number;
	path_id: string;
	content_type: string;
	file_id: FileId;
}

/**
 * Zulip's maybe_thumbnail and ensure_thumbnails in one step, for a file just uploaded: the image
 * row and its thumbnails, or nothing when the file is no image to thumbnail. A failure to make a
 * thumbnail leaves no row (as Zulip removes the row of an image that fails) and no stored
 * thumbnail; it is logged by the caller, and the upload stands.
 */
export async function makeThumbnails(store: FileStore, Images: Model<ImageAttachmentDoc>, file: UploadedImage): Promise<ImageAttachmentDoc | null> {
	const contentType = bareType(file.content_type);
	if (!THUMBNAIL_ACCEPT_IMAGE_TYPES.has(contentType)) return null;
	await slots.take();
	try {
		return await thumbnailUpload(store, Images, file, contentType);
	} finally {
		slots.give();
	}
}

/**
 * Decision: a replica thumbnails at most THUMBNAILS_AT_ONCE images at a time (each holds its file
 * and libvips' working memory, up to a few hundred MB for an image at Zulip's pixel limit); other
 * uploads wait their turn, so a burst of large images queues rather than exhausting the replica's
 * memory.
 */
const THUMBNAILS_AT_ONCE = 2;

const slots = (() => {
	let free = THUMBNAILS_AT_ONCE;
	const waiting: Array<() => void> = [];
	return {
		take: () => (free > 0 ? (free--, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve))),
		give: () => {
			const next = waiting.shift();
			if (next) next();
			else free++;
		},
	};
})();

async function thumbnailUpload(store: FileStore, Images: Model<ImageAttachmentDoc>, file: UploadedImage, contentType: string): Promise<ImageAttachmentDoc | null> {
	const bytes = await store.readAll(file.file_id);
	const facts = await probeImage(bytes);
	if (!facts) return null;
	const made: StoredThumbnail[] = [];
	try {
		for (const format of formatsFor(contentType, facts)) {
			const t = await thumbnail(bytes, facts, format);
			const name = formatName(format);
			const type = CONTENT_TYPES[format.extension] ?? "application/octet-stream";
			const { id } = await store.writeBuffer(t.data, name, { thumbnail_of: file.path_id, content_type: type });
			made.push({ ...format, content_type: type, width: t.width, height: t.height, byte_size: t.data.length, file_id: id });
		}
		return (
			await Images.create({
				realm_id: file.realm_id,
				path_id: file.path_id,
				original_width_px: facts.width,
				original_height_px: facts.height,
				frames: facts.frames,
				content_type: file.content_type,
				thumbnail_metadata: made,
			})
		).toObject();
	} catch (err) {
		for (const t of made) await store.remove(t.file_id).catch(() => undefined);
		throw err;
	}
}

/** Removes an image's thumbnails and row (when its file is deleted). */
export async function removeThumbnails(store: FileStore, Images: Model<ImageAttachmentDoc>, pathId: string): Promise<void> {
	const row = await Images.findOne({ path_id: pathId }).lean();
	if (!row) return;
	for (const t of row.thumbnail_metadata) await store.remove(t.file_id);
	await Images.deleteOne({ path_id: pathId });
}

/** The stored thumbnail a URL's format names, or undefined (not one made of this image). */
export function storedFormat(row: ImageAttachmentDoc, name: string): StoredThumbnail | undefined {
	const wanted = parseFormat(name);
	return wanted ? row.thumbnail_metadata.find((t) => formatName(t) === formatName(wanted)) : undefined;
}

/**
 * What a message linking the image shows (Zulip's get_user_upload_previews): the default
 * thumbnail (the first output format matching its animation, else the first), or none yet.
 */
export function previewOf(row: ImageAttachmentDoc): ImagePreview {
	const base = { original_width_px: row.original_width_px, original_height_px: row.original_height_px, original_content_type: row.content_type };
	if (!row.thumbnail_metadata.length) return { ...base, url: null, animated: false, transcoded_image: null };
	const format = THUMBNAIL_OUTPUT_FORMATS.find((f) => f.animated === row.frames > 1) ?? THUMBNAIL_OUTPUT_FORMATS[0];
	// Types browsers show need no transcoding; for the others, the largest thumbnail made.
	let transcoded: string | null = null;
	if (!isInlineType(row.content_type)) {
		const largest = [...row.thumbnail_metadata].sort((a, b) => a.width * a.height - b.width * b.height).pop();
		transcoded = largest ? formatName(largest) : null;
	}
	return { ...base, url: `/user_uploads/thumbnail/${row.path_id}/${formatName(format)}`, animated: format.animated, transcoded_image: transcoded };
}
