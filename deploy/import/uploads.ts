// Uploaded files (attachment.json's zerver_attachment, their bytes in uploads/): each file's bytes
// go into the uploads service's GridFS (FileStore) and its attachment document keeps Zulip's
// path_id, so the /user_uploads/ links inside imported messages name the same files here.
import type { AttachmentDoc } from "../../services/uploads/models/attachment";
import type { ImportContext } from "./context";
import { fileBytes, fileRecords, typeOfName } from "../../shared/zulip-format/file-records";
import type { SentWhere } from "./messages";
import { TableFile, type Rec } from "../../shared/zulip-format/records";
import { JsonFile } from "../../shared/zulip-format/tables";

/** attachment.json's records (the messages they name are imported first). */
export function readAttachments(dir: string): Rec[] {
	return TableFile.read(dir, JsonFile.ATTACHMENTS).records("zerver_attachment");
}

export async function importUploads(ctx: ImportContext, attachments: Rec[], where: Map<number, SentWhere>): Promise<void> {
	const byPath = new Map(fileRecords(ctx.dir, "uploads").map((r) => [r.str("path"), r]));
	const { store, Attachment, Usage } = ctx.target.m;
	ctx.progress.start("uploads", attachments.length);
	let bytes = 0;
	for (const r of attachments) {
		const pathId = r.str("path_id");
		const file = byPath.get(pathId);
		if (!file) r.fail(`the file ${pathId} is not in uploads/records.json`);
		const data = fileBytes(ctx.dir, "uploads", file);
		if (data.length !== r.int("size")) r.fail(`uploads/${pathId} holds ${data.length} bytes, not the ${r.int("size")} the record says`);
		const contentType = r.optStr("content_type") ?? typeOfName(pathId);
		const stored = await store.writeBuffer(data, pathId, { content_type: contentType });
		const claims = r.ints("messages").flatMap((id) => {
			const w = where.get(id);
			if (!w) return [];
			// This server keeps both times in milliseconds (models/attachment.ts), Zulip's are seconds.
			return [{ id, channel_id: w.channel_id, date_sent: w.timestamp * 1000, is_realm_public: r.optBool("is_realm_public") ?? false, is_web_public: r.optBool("is_web_public") ?? false }];
		});
		// Claims by scheduled messages are the scheduled messages' upload_path_ids here (scheduled.ts).
		const doc: AttachmentDoc = {
			_id: r.int("id"),
			realm_id: ctx.realmId,
			path_id: pathId,
			file_name: r.str("file_name"),
			size: data.length,
			content_type: contentType,
			owner_id: ctx.ids.users.get(r.int("owner"), r, "owner"),
			create_time: Math.round(r.num("create_time") * 1000),
			file_id: stored.id,
			messages: claims,
		};
		await Attachment.create(doc);
		bytes += data.length;
		ctx.progress.add(1);
	}
	ctx.progress.finish();
	if (bytes) await Usage.create({ _id: ctx.realmId, bytes });
	await ctx.target.raiseCounter("uploads", "attachment", Math.max(0, ...attachments.map((r) => r.int("id"))));
}
