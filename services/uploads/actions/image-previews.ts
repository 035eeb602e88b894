// Uploaded images as messages show them: what a message linking uploads previews (previews, one
// call per rendered message, from the messages service), and a thumbnail's download
// (openThumbnail, the gateway's /user_uploads/thumbnail/{path_id}/{format}), readable by whoever
// may read the original (Zulip's serve_file with a thumbnail format).
import type { Ctx, OpenedFile } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import type { ImagePreview } from "../../../shared/markdown/image-previews";
import { MAX_PREVIEW_LOOKUPS } from "../../../shared/markdown/image-previews";
import { attachmentForCaller, fileNotFound } from "../file-access";
import { sendableFile } from "../opened-file";
import { previewOf, storedFormat } from "../thumbnails";
import type { UploadsDeps } from "./deps";

export function imagePreviewActions(deps: UploadsDeps) {
	return {
		/**
		 * The previews of those of these uploads that are images of the organization (Zulip's
		 * get_user_upload_previews, which asks nothing of the sender either: a message shows what
		 * it links, and the thumbnail itself is served only to those who may read the file).
		 */
		previews: {
			visibility: "public",
			params: params({ realm_id: p.int(), path_ids: p.stringList({ max: MAX_PREVIEW_LOOKUPS }) }),
			async handler(ctx: Ctx<{ realm_id: number; path_ids: string[] }>): Promise<{ previews: Record<string, ImagePreview> }> {
				const ids = ctx.params.path_ids.filter((id) => typeof id === "string" && id.length <= 2000);
				const rows = ids.length ? await deps.ImageAttachment.find({ path_id: { $in: ids } }).lean() : [];
				const previews: Record<string, ImagePreview> = {};
				for (const row of rows) if (row.realm_id === ctx.params.realm_id) previews[row.path_id] = previewOf(row);
				return { previews };
			},
		},
		/**
		 * A thumbnail of a file the caller may read. Decision: a format that was not made of this
		 * image answers "File not found." (Zulip serves the nearest format it made, or makes a
		 * missing current one on demand; here every current format is made at upload).
		 */
		openThumbnail: {
			visibility: "public",
			params: params({ path_id: p.string({ max: 2000 }), format: p.string({ max: 2000 }) }),
			async handler(ctx: Ctx<{ path_id: string; format: string }>): Promise<OpenedFile> {
				// The original's access rule (file-access.ts), a visitor's too, whatever the format asked for.
				const original = await attachmentForCaller(ctx, deps.Attachment, ctx.params.path_id, deps.spectators);
				const row = await deps.ImageAttachment.findOne({ path_id: original.path_id }).lean();
				const thumb = row && storedFormat(row, ctx.params.format);
				if (!thumb) throw fileNotFound();
				// Served under the format's name, as Zulip's serve_file names a thumbnail.
				return sendableFile({ file_id: thumb.file_id, length: thumb.byte_size, content_type: thumb.content_type, name: ctx.params.format, inline: true, stored: original.create_time });
			},
		},
	};
}
