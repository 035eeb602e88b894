// Custom emoji (zerver_realmemoji) and their images (emoji/): each image is stored as the uploads
// service stores an uploaded emoji's (a public image at shared/public-images.ts's emojiPath, its
// bytes in GridFS), under this organization's ID instead of Zulip's.
import { emojiPath } from "../../shared/public-images";
import type { RealmEmojiDoc } from "../../services/catalog/emoji/realm-emoji-model";
import type { PublicImageDoc } from "../../services/uploads/models/public-image";
import { insertAll, table, type ImportContext } from "./context";
import { fileBytes, fileRecords, typeOfName } from "../../shared/zulip-format/file-records";

export async function importEmoji(ctx: ImportContext): Promise<void> {
	const records = table(ctx, "zerver_realmemoji");
	const docs: RealmEmojiDoc[] = records.map((r) => {
		ctx.ids.emoji.set(r.int("id"), r.int("id"));
		return {
			_id: r.int("id"),
			realm_id: ctx.realmId,
			name: r.str("name"),
			author_id: ctx.ids.users.opt(r.optInt("author"), r, "author"),
			file_name: r.str("file_name"),
			is_animated: r.optBool("is_animated") ?? false,
			deactivated: r.optBool("deactivated") ?? false,
		};
	});
	const images = fileRecords(ctx.dir, "emoji");
	ctx.progress.start("emoji", images.length);
	// Zulip's paths are `<realm id>/emoji/images/<file>[.original]` (and `still/` for animated ones).
	const zulipPrefix = `${ctx.ids.zulipRealmId}/emoji/images/`;
	const ours = emojiPath(ctx.realmId, "");
	const stored: PublicImageDoc[] = [];
	const seen = new Set<string>();
	for (const r of images) {
		const p = r.str("path");
		if (!p.startsWith(zulipPrefix)) r.fail(`"path" ${p} is not under ${zulipPrefix}`);
		const path = ours + p.slice(zulipPrefix.length);
		if (seen.has(path)) continue;
		seen.add(path);
		const data = fileBytes(ctx.dir, "emoji", r);
		const contentType = typeOfName(p);
		const file = await ctx.target.m.store.writeBuffer(data, path, { content_type: contentType });
		stored.push({ _id: path, realm_id: ctx.realmId, file_id: file.id, length: data.length, content_type: contentType, stored: Date.now() });
		ctx.progress.add(1);
	}
	await insertAll(ctx.target.m.Images, stored);
	await insertAll(ctx.target.m.RealmEmoji, docs);
	await ctx.target.raiseCounter("catalog", "realm_emoji", ctx.ids.emoji.max());
	ctx.progress.finish();
}
