// Who may read an uploaded file (Zulip's validate_attachment_request): its owner, and whoever may
// read a message that links it. Anyone else, and any path that names no file of the caller's
// organization, gets the same "File not found.": nobody learns that a file exists from a refusal.
// Decision: Zulip answers 403 when the file exists but is not the caller's to read; here it is
// 404 like a missing file, so a guessed or leaked path reveals nothing.
import type { Model } from "mongoose";
import type { Identity, OpenedFile } from "../../shared/actions";
import { notFound } from "../../shared/errors";
import type { AttachmentDoc } from "./models/attachment";
import { readableThroughMessages, readableWithoutMessages, type ReadableAmong } from "./claim-rules";
import { contentDisposition, isInlineType } from "./file-names";
import { CHUNK_BYTES } from "./file-store";

export const fileNotFound = () => notFound("File not found.");

/**
 * The attachment at `pathId` if `user` may read it; else "File not found." As Zulip: the owner;
 * any member but a guest when a message in a public channel links it; else whoever may read one
 * of the messages that link it (they received it, or it is in a channel whose shared history they
 * may read), asked of the messages service in one call (`readable`).
 */
export async function readableAttachment(Attachment: Model<AttachmentDoc>, pathId: string, user: Identity, readable: ReadableAmong): Promise<AttachmentDoc> {
	const doc = await Attachment.findOne({ path_id: pathId }).lean();
	if (!doc || doc.realm_id !== user.realm_id) throw fileNotFound();
	if (readableWithoutMessages(doc, user) || (await readableThroughMessages(doc, readable))) return doc;
	throw fileNotFound();
}

/** What the gateway needs to send a file (services/api/file-download.ts). */
export function openedFile(doc: AttachmentDoc): OpenedFile {
	const name = doc.path_id.slice(doc.path_id.lastIndexOf("/") + 1);
	return {
		file_id: doc.file_id.toHexString(),
		length: doc.size,
		chunk_bytes: CHUNK_BYTES,
		content_type: doc.content_type,
		disposition: contentDisposition(name, isInlineType(doc.content_type)),
		stored: doc.create_time,
	};
}
