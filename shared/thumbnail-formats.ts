// The thumbnail formats uploaded images are made in (Zulip's THUMBNAIL_OUTPUT_FORMATS and
// TRANSCODED_IMAGE_FORMAT, zerver/lib/thumbnail.py): the uploads service makes them
// (services/uploads/thumbnails.ts), POST /register lists them (`server_thumbnail_formats`), so a
// client may swap a thumbnail URL's last part for any of their names.

/** A thumbnail size and type; its name (`840x560.webp`, `840x560-anim.webp`) is how URLs name it. */
export interface ThumbnailFormat {
	extension: string;
	max_width: number;
	max_height: number;
	animated: boolean;
}

/**
 * Made of every image: large enough that a client that knows nothing of thumbnails shows no
 * pixelated image. The first animated and the first still one are what messages link.
 */
export const THUMBNAIL_OUTPUT_FORMATS: readonly ThumbnailFormat[] = [
	{ extension: "webp", max_width: 840, max_height: 560, animated: true },
	{ extension: "webp", max_width: 840, max_height: 560, animated: false },
];

/** Also made of image types browsers do not show (TIFF, HEIC): a large still in a type they do. */
export const TRANSCODED_IMAGE_FORMAT: ThumbnailFormat = { extension: "webp", max_width: 4032, max_height: 3024, animated: false };

export const formatName = (f: ThumbnailFormat) => `${f.max_width}x${f.max_height}${f.animated ? "-anim" : ""}.${f.extension}`;

/** A format named in a URL, or null. */
export function parseFormat(name: string): ThumbnailFormat | null {
	const m = /^(\d{1,5})x(\d{1,5})(-anim)?\.(\w{1,10})$/.exec(name);
	return m ? { max_width: Number(m[1]), max_height: Number(m[2]), animated: m[3] !== undefined, extension: m[4] } : null;
}

/** POST /register's `server_thumbnail_formats`, as Zulip lists them. */
export function serverThumbnailFormats(): Array<{ name: string; max_width: number; max_height: number; format: string; animated: boolean }> {
	return THUMBNAIL_OUTPUT_FORMATS.map((f) => ({ name: formatName(f), max_width: f.max_width, max_height: f.max_height, format: f.extension, animated: f.animated }));
}
