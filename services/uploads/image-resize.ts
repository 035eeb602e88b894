// Images made from an upload with sharp (libvips, as Zulip's pyvips): custom emoji and avatars,
// as Zulip's zerver/lib/thumbnail.py resize_emoji and resize_avatar make them. Every function
// refuses what sharp cannot decode with Zulip's BadImageError (code BAD_IMAGE).
import sharp from "sharp";
import { apiError } from "../../shared/errors";

/** Zulip's DEFAULT_EMOJI_SIZE, DEFAULT_AVATAR_SIZE and MEDIUM_AVATAR_SIZE. */
export const EMOJI_SIZE = 64;
export const AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;

/** Zulip's IMAGE_BOMB_TOTAL_PIXELS: no image (all its frames together) may have more pixels. */
const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;
/** Zulip's MAX_EMOJI_GIF_FILE_SIZE_BYTES: a resized emoji (or its still) larger than this is refused. */
const MAX_EMOJI_RESIZED_BYTES = 128 * 1024;

export const badImage = (msg: string) => apiError(400, "BAD_IMAGE", msg);
const undecodable = () => badImage("Could not decode image; did you upload an image file?");

/**
 * Types an emoji may have (Zulip's upload_emoji_image: types it thumbnails that browsers also
 * show inline), with the extension its file gets (Python's guess_extension).
 * Decision: image/svg+xml, which Zulip lists in both, is refused here: an emoji is stored in the
 * format it came in, and libvips has no SVG writer to store a resized SVG with.
 */
export type EmojiFormat = "gif" | "jpeg" | "png" | "webp" | "avif";

export const EMOJI_TYPES: Record<string, { ext: string; format: EmojiFormat }> = {
	"image/gif": { ext: "gif", format: "gif" },
	"image/jpeg": { ext: "jpg", format: "jpeg" },
	"image/png": { ext: "png", format: "png" },
	"image/webp": { ext: "webp", format: "webp" },
	"image/avif": { ext: "avif", format: "avif" },
};

/** Types an avatar may have (Zulip's THUMBNAIL_ACCEPT_IMAGE_TYPES); every avatar is stored as PNG. */
export const AVATAR_TYPES = new Set(["image/avif", "image/gif", "image/heic", "image/jpeg", "image/png", "image/tiff", "image/webp", "image/svg+xml"]);

export const bareType = (type: string) => type.split(";")[0].trim().toLowerCase();

/** The image's frame count after Zulip's libvips_check_image: decodable, and not an image bomb. */
async function checkedPages(data: Buffer): Promise<number> {
	let meta: Awaited<ReturnType<ReturnType<typeof sharp>["metadata"]>>;
	try {
		meta = await sharp(data, { animated: true, limitInputPixels: false }).metadata();
	} catch {
		throw undecodable();
	}
	const pages = meta.pages ?? 1;
	const frameHeight = meta.pageHeight ?? (meta.height ?? 0) / pages;
	if (!meta.width || !frameHeight) throw undecodable();
	if (meta.width * frameHeight * pages > IMAGE_BOMB_TOTAL_PIXELS) throw badImage("Image size exceeds limit.");
	return pages;
}

/** Runs a sharp pipeline; a failure while decoding the whole image is Zulip's "corrupted" error. */
async function render(make: () => Promise<Buffer>): Promise<Buffer> {
	try {
		return await make();
	} catch {
		throw badImage("Image is corrupted or truncated");
	}
}

/** A square of `size` cut from the image's centre, scaled up or down to fill it (Zulip's crop=CENTRE). */
const centreSquare = (data: Buffer, size: number) => sharp(data, { limitInputPixels: false }).rotate().resize(size, size, { fit: "cover", position: "centre" });

/**
 * Zulip's resize_emoji: a still image becomes a 64×64 square cut from its centre, in its own
 * format; an animated one keeps every frame, each fitted into 64×64 and padded with transparency
 * to a square, and gets a still version too (its first frame, cut as a still image is, as PNG).
 */
export async function resizeEmoji(data: Buffer, format: EmojiFormat): Promise<{ image: Buffer; still: Buffer | null }> {
	const pages = await checkedPages(data);
	if (pages === 1) {
		const image = await render(() => centreSquare(data, EMOJI_SIZE).toFormat(format).toBuffer());
		if (image.length > MAX_EMOJI_RESIZED_BYTES) throw badImage("Image size exceeds limit");
		return { image, still: null };
	}
	const still = await render(() => centreSquare(data, EMOJI_SIZE).png().toBuffer());
	const image = await render(() =>
		sharp(data, { animated: true, limitInputPixels: false })
			.resize(EMOJI_SIZE, EMOJI_SIZE, { fit: "contain", background: { r: 0, g: 0, b: 0, alpha: 0 } })
			.toFormat(format)
			.toBuffer(),
	);
	if (still.length > MAX_EMOJI_RESIZED_BYTES || image.length > MAX_EMOJI_RESIZED_BYTES) throw badImage("Image size exceeds limit");
	return { image, still };
}

/**
 * Zulip's resize_logo: fitted within 800×100 keeping its proportions, only ever scaled down (a
 * 1000×10 image becomes 800×8, a 10×10 one stays 10×10), PNG.
 */
export async function resizeLogo(data: Buffer): Promise<Buffer> {
	await checkedPages(data);
	return render(() =>
		sharp(data, { limitInputPixels: false })
			.rotate()
			.resize(8 * AVATAR_SIZE, AVATAR_SIZE, { fit: "inside", withoutEnlargement: true })
			.png()
			.toBuffer(),
	);
}

/** Zulip's resize_avatar at both sizes: squares cut from the centre (scaled up if need be), PNG. */
export async function resizeAvatar(data: Buffer): Promise<{ small: Buffer; medium: Buffer }> {
	await checkedPages(data);
	const small = await render(() => centreSquare(data, AVATAR_SIZE).png().toBuffer());
	const medium = await render(() => centreSquare(data, MEDIUM_AVATAR_SIZE).png().toBuffer());
	return { small, medium };
}
