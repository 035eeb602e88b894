// A file as the API shows it (GET /attachments, `attachment` events), and the announcement of
// files changed for their owners' event queues (`uploads.attachmentsChanged`, turned into Zulip's
// `attachment` events by services/events/attachment-changes.ts).
import type { Context } from "moleculer";
import type { ApiAttachment, AttachmentsChanged } from "../../shared/org-events";
import type { AttachmentDoc } from "./models/attachment";
import type { UploadSpace } from "./upload-space";

/** Zulip's Attachment.to_dict: times in UNIX milliseconds, the linking messages in claim order. */
export function attachmentView(doc: AttachmentDoc): ApiAttachment {
	return {
		id: doc._id,
		name: doc.file_name,
		path_id: doc.path_id,
		size: doc.size,
		create_time: doc.create_time,
		messages: doc.messages.map((c) => ({ id: c.id, date_sent: c.date_sent })),
	};
}

export type AttachmentChange = { op: "add" | "update"; doc: AttachmentDoc } | { op: "remove"; doc: Pick<AttachmentDoc, "_id" | "owner_id"> };

/**
 * One broadcast for all the files a request changed, each to its owner, with the organization's
 * upload space after the change (Zulip's notify_attachment_update).
 *
 * Decision: Zulip sends a claim's `update` to the message's sender, who may not own the file (an
 * upload of someone else shared again); here it goes to the owner, whose file list it is.
 */
export async function announceAttachments(ctx: Context, space: UploadSpace, realmId: number, changes: AttachmentChange[]): Promise<void> {
	if (!changes.length) return;
	const payload: AttachmentsChanged = {
		changes: changes.map((c) => ({ user_id: c.doc.owner_id, op: c.op, attachment: c.op === "remove" ? { id: c.doc._id } : attachmentView(c.doc) })),
		upload_space_used: await space.used(realmId),
	};
	await ctx.broadcast("uploads.attachmentsChanged", payload);
}
