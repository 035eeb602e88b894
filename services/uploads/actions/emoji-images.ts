// POST /realm/emoji/{emoji_name}: a custom emoji's image, as Zulip's upload_emoji view and
// upload_emoji_image. The checks that need no bytes (the name, who may, a name in use) run before
// the body is read (the purpose's check, catalog.checkEmojiUpload); then the image's type, its
// decoding and resizing (image-resize.ts); the original is kept beside the resized image (and
// the still version of an animated one). The emoji itself belongs to the catalog service
// (catalog.addEmoji), which checks again and announces it; if it refuses, the images go.
import { call, requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { emojiPath, emojiStillPath } from "../../../shared/public-images";
import { contentTypeOf } from "../file-names";
import { badImage, bareType, EMOJI_TYPES, resizeEmoji } from "../image-resize";
import { imageToken, removeImages, storeImages, type NewImage } from "../image-store";
import { completeUpload, pendingUpload, sizeLimit, type Purpose } from "../transfer";
import type { UploadsDeps } from "./deps";

export const CUSTOM_EMOJI = "uploads.uploadEmoji";

/** Zulip's MAX_EMOJI_FILE_SIZE_MIB. */
const MAX_EMOJI_FILE_SIZE_MIB = 5;

/** Zulip's answer to a body without exactly one file, for this endpoint. */
export const EMOJI_FILE_COUNT = "You must upload exactly one file.";

export const emojiPurpose: Purpose = {
	...sizeLimit(MAX_EMOJI_FILE_SIZE_MIB),
	async check(ctx, routeParams) {
		await call(ctx, "catalog.checkEmojiUpload", { emoji_name: typeof routeParams.emoji_name === "string" ? routeParams.emoji_name : "" });
	},
};

export function emojiImageActions(deps: UploadsDeps) {
	return {
		uploadEmoji: {
			params: params({ emoji_name: p.string({ max: 1000 }) }),
			async handler(ctx: Ctx<{ emoji_name: string }>) {
				const user = requireUser(ctx);
				const upload = ctx.meta.upload;
				if (!upload) throw badRequest(EMOJI_FILE_COUNT);
				const pending = await pendingUpload(deps.Pending, upload.upload_id, user, CUSTOM_EMOJI);
				const { emoji_name } = await call(ctx, "catalog.checkEmojiUpload", { emoji_name: ctx.params.emoji_name });
				// As Zulip, the type is the client's (here guessed from the name when it sent none).
				const type = bareType(contentTypeOf(upload.file_name, upload.content_type));
				const kind = Object.hasOwn(EMOJI_TYPES, type) ? EMOJI_TYPES[type] : undefined;
				if (!kind) throw badImage("Invalid image format");

				const fileName = `${imageToken()}.${kind.ext}`;
				const path = emojiPath(user.realm_id, fileName);
				const original = await completeUpload(deps.store, deps.Pending, pending, upload.length, `${path}.original`, { content_type: type });
				const images: NewImage[] = [];
				try {
					const resized = await resizeEmoji(await deps.store.readAll(original), kind.format);
					images.push({ path: `${path}.original`, content_type: type, data: { file_id: original, length: upload.length } });
					images.push({ path, content_type: type, data: resized.image });
					if (resized.still) images.push({ path: emojiStillPath(user.realm_id, fileName), content_type: "image/png", data: resized.still });
				} catch (err) {
					await deps.store.remove(original);
					throw err;
				}
				await storeImages(deps.store, deps.Images, user.realm_id, images);
				try {
					await call(ctx, "catalog.addEmoji", { emoji_name, file_name: fileName, is_animated: images.length === 3 });
				} catch (err) {
					await removeImages(deps.store, deps.Images, images.map((i) => i.path));
					throw err;
				}
				return {};
			},
		},
	};
}
