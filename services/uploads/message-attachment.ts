// A stored file becoming a message upload (Zulip's create_attachment): its attachment record,
// its thumbnails if it is an image, the organization's upload space, and the `attachment` event.
// The one way both POST /user_uploads and a finished tus upload (tus/tus-rules.ts) end.
import type { Identity, Ctx } from "../../shared/actions";
import { clock } from "../../shared/clock";
import { makeThumbnails } from "./thumbnails";
import { announceAttachments } from "./attachment-view";
import { UNCLAIMED_KEPT_MS } from "./claim-rules";
import type { FileId } from "./file-store";
import type { UploadsDeps } from "./actions/deps";

export interface StoredUpload {
	fileId: FileId;
	pathId: string;
	fileName: string;
	contentType: string;
	size: number;
}

/** Records the stored file `f` as `user`'s upload; answers what POST /user_uploads answers. */
export async function addMessageAttachment(ctx: Ctx<any>, deps: UploadsDeps, user: Identity, f: StoredUpload): Promise<{ url: string; filename: string }> {
	const doc = await deps.Attachment.create({
		_id: await deps.nextId("attachment"),
		realm_id: user.realm_id,
		path_id: f.pathId,
		file_name: f.fileName,
		size: f.size,
		content_type: f.contentType,
		owner_id: user.user_id,
		create_time: clock.nowMs(),
		file_id: f.fileId,
		// Removed if no message claims it in time (unclaimed.ts).
		sweep_after: clock.nowMs() + UNCLAIMED_KEPT_MS,
	});
	// Dimensions and thumbnails of an image, before answering (thumbnails.ts); a failure leaves a plain file.
	await makeThumbnails(deps.store, deps.ImageAttachment, { realm_id: user.realm_id, path_id: f.pathId, content_type: f.contentType, file_id: f.fileId }).catch((err: unknown) =>
		ctx.service?.logger.warn({ err, path_id: f.pathId }, "thumbnailing an uploaded image failed"),
	);
	await deps.space.add(user.realm_id, f.size);
	await announceAttachments(ctx, deps.space, user.realm_id, [{ op: "add", doc: doc.toObject() }]);
	return { url: `/user_uploads/${f.pathId}`, filename: f.fileName };
}
