// The organization's icon and logos (realm_icons/, with the realm's icon_source, logo_source and
// night_logo_source "U" when uploaded): the original kept, the shown image made from it again as an
// upload makes it (services/uploads/actions/realm-images.ts: the icon a small avatar, the logos
// resized as logos), stored under this organization's ID, the version carried over.
import { resizeAvatar, resizeLogo } from "../../services/uploads/image-resize";
import { imageToken } from "../../services/uploads/image-store";
import type { PublicImageDoc } from "../../services/uploads/models/public-image";
import type { RealmDoc } from "../../services/users/models/realm";
import { insertAll, table, type ImportContext } from "./context";
import { fileBytes, fileRecords, sniffImage } from "../../shared/zulip-format/file-records";
import { REALM_IMAGE_KINDS, realmImagePath } from "../../shared/zulip-format/realm-table";

export async function importRealmImages(ctx: ImportContext): Promise<number> {
	const realm = table(ctx, "zerver_realm")[0];
	const records = new Map(fileRecords(ctx.dir, "realm_icons").map((r) => [r.str("path"), r]));
	const images: PublicImageDoc[] = [];
	const set: NonNullable<RealmDoc["images"]> = {};
	for (const kind of REALM_IMAGE_KINDS) {
		if (realm.optStr(`${kind}_source`) !== "U") continue;
		const record = records.get(realmImagePath(ctx.ids.zulipRealmId, kind, "original"));
		if (!record) {
			ctx.notKept.add("realm_icons/", `the organization's ${kind.replace("_", " ")} (its original is missing from the export)`);
			continue;
		}
		const data = fileBytes(ctx.dir, "realm_icons", record);
		let shown: Buffer;
		try {
			shown = kind === "icon" ? (await resizeAvatar(data)).small : await resizeLogo(data);
		} catch {
			ctx.notKept.add("realm_icons/", `the organization's ${kind.replace("_", " ")} (an image that cannot be read)`);
			continue;
		}
		const base = `${ctx.realmId}/realm/${kind}-${imageToken()}`;
		for (const [path, bytes, type] of [
			[`${base}.original`, data, record.optStr("content_type") ?? sniffImage(data)],
			[`${base}.png`, shown, "image/png"],
		] as const) {
			const file = await ctx.target.m.store.writeBuffer(bytes, path, { content_type: type });
			images.push({ _id: path, realm_id: ctx.realmId, file_id: file.id, length: bytes.length, content_type: type, stored: Date.now() });
		}
		// Zulip's versions start at 1, as here (services/users/realm-images.ts): changes are one less.
		set[kind] = { path: `${base}.png`, changes: Math.max(0, (realm.optInt(`${kind}_version`) ?? 1) - 1) };
	}
	await insertAll(ctx.target.m.Images, images);
	if (Object.keys(set).length) await ctx.target.m.Realm.updateOne({ _id: ctx.realmId }, { $set: { images: set } });
	// Every file of realm_icons/ is the icon's or a logo's, original or shown: the shown ones are made again.
	return Object.keys(set).length;
}
