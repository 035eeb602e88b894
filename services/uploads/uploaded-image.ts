// An uploaded image kept as public images (shared/public-images.ts): the avatar endpoints' and the
// organization's icon and logos' one way (Zulip's upload_avatar_image, upload_icon_image and
// upload_logo_image): a type an avatar may have, the upload completed as `<base>.original`, the
// shown images made from it, and all stored together; a failure leaves nothing behind.
import type { Identity, UploadedFileMeta } from "../../shared/actions";
import { contentTypeOf } from "./file-names";
import { AVATAR_TYPES, badImage, bareType } from "./image-resize";
import { storeImages } from "./image-store";
import { completeUpload, type pendingUpload } from "./transfer";
import type { UploadsDeps } from "./actions/deps";

/** Stores the upload's original at `<base>.original` and the images `make` makes of its bytes (paths and PNG bytes). */
export async function storeUploadedImage(
	deps: Pick<UploadsDeps, "store" | "Pending" | "Images">,
	user: Identity,
	file: UploadedFileMeta,
	pending: Awaited<ReturnType<typeof pendingUpload>>,
	base: string,
	make: (data: Buffer) => Promise<Array<{ path: string; data: Buffer }>>,
): Promise<void> {
	const type = bareType(contentTypeOf(file.file_name, file.content_type));
	if (!AVATAR_TYPES.has(type)) throw badImage("Invalid image format");
	const original = await completeUpload(deps.store, deps.Pending, pending, file.length, `${base}.original`, { content_type: type });
	let made: Array<{ path: string; data: Buffer }>;
	try {
		made = await make(await deps.store.readAll(original));
	} catch (err) {
		await deps.store.remove(original);
		throw err;
	}
	await storeImages(deps.store, deps.Images, user.realm_id, [
		{ path: `${base}.original`, content_type: type, data: { file_id: original, length: file.length } },
		...made.map((m) => ({ path: m.path, content_type: "image/png", data: m.data })),
	]);
}
