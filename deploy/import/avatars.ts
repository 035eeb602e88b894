// Uploaded avatars (avatars/, records.json): each user's original image, from which the small and
// medium images are made again as an avatar upload makes them (image-resize.ts resizeAvatar;
// Zulip's importer also thumbnails again), stored as the uploads service stores avatars (public
// images under a base path of this organization, shared/public-images.ts avatarImagePaths).
// An image that cannot be read leaves the user on their Gravatar, and is reported (as Zulip's
// importer does).
import { avatarImagePaths } from "../../shared/public-images";
import { resizeAvatar } from "../../services/uploads/image-resize";
import { imageToken } from "../../services/uploads/image-store";
import type { PublicImageDoc } from "../../services/uploads/models/public-image";
import { insertAll, type ImportContext } from "./context";
import { fileBytes, fileRecords, sniffImage } from "../../shared/zulip-format/file-records";

export async function importAvatars(ctx: ImportContext): Promise<number> {
	const originals = fileRecords(ctx.dir, "avatars").filter((r) => r.str("s3_path").endsWith(".original"));
	ctx.progress.start("avatars", originals.length);
	const images: PublicImageDoc[] = [];
	const updates = [];
	for (const r of originals) {
		const user = ctx.ids.users.find(r.int("user_profile_id"));
		if (user === undefined) {
			ctx.notKept.add("avatars/", "images of users the export does not hold");
			continue;
		}
		const data = fileBytes(ctx.dir, "avatars", r);
		let resized: { small: Buffer; medium: Buffer };
		try {
			resized = await resizeAvatar(data);
		} catch {
			ctx.notKept.add("avatars/", "images that cannot be read (the users show their Gravatar)");
			continue;
		}
		const base = `${ctx.realmId}/${imageToken()}`;
		const paths = avatarImagePaths(base);
		const { store } = ctx.target.m;
		for (const [path, bytes, type] of [
			[paths.original, data, r.optStr("content_type") ?? sniffImage(data)],
			[paths.small, resized.small, "image/png"],
			[paths.medium, resized.medium, "image/png"],
		] as const) {
			const file = await store.writeBuffer(bytes, path, { content_type: type });
			images.push({ _id: path, realm_id: ctx.realmId, file_id: file.id, length: bytes.length, content_type: type, stored: Date.now() });
		}
		updates.push({ updateOne: { filter: { _id: user }, update: { $set: { avatar_source: "U", avatar_path: base } } } });
		ctx.progress.add(1);
	}
	await insertAll(ctx.target.m.Images, images);
	if (updates.length) await ctx.target.m.User.bulkWrite(updates);
	ctx.progress.finish();
	return updates.length;
}
