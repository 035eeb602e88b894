// Who may read an uploaded file (Zulip's validate_attachment_request): its owner, and whoever may
// read a message that links it; without credentials, a visitor, only a file a web-public channel's
// message links where the organization lets visitors in. Anyone else, and any path that names no
// file of the caller's organization, gets the same "File not found.": nobody learns that a file
// exists from a refusal.
// Decision: Zulip answers 403 when the file exists but is not the caller's to read; here it is
// 404 like a missing file, so a guessed or leaked path reveals nothing.
import type { Model } from "mongoose";
import { call, type Caller, type Identity, type OpenedFile } from "../../shared/actions";
import { notFound } from "../../shared/errors";
import type { AttachmentDoc } from "./models/attachment";
import { isWebPublic, readableThroughMessages, readableWithoutMessages, type ReadableAmong } from "./claim-rules";
import { isInlineType } from "./file-names";
import { sendableFile } from "./opened-file";

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

/** Of these messages, those `user` (by default the caller, the request's user) may read: one call to the messages service. */
export const readableBy =
	(caller: Caller, user?: Identity | Pick<Identity, "user_id" | "realm_id" | "role">): ReadableAmong =>
	async (ids) =>
		new Set((await call(caller, "messages.readableAmong", { message_ids: ids }, user ? { meta: { user } } : undefined)).message_ids);

/** Where the server lets visitors without credentials in at all (WEB_PUBLIC_STREAMS_ENABLED). */
export interface SpectatorAccess {
	serverEnabled: boolean;
}

/**
 * The attachment at `pathId` for the caller of `ctx`: the rule above for a user; for a visitor
 * without one (ctx.meta.user absent), Zulip's validate_attachment_request_for_spectator_access:
 * a web-public file (a message in a web-public channel links it, claim-rules.ts isWebPublic),
 * where the server allows web-public channels and the organization its spectators
 * (realm.allow_web_public_streams_access). The organization's setting is asked of the users
 * service only for a web-public file, so a visitor's guesses cost one indexed read each.
 * Decision: one organization per server, so a path's realm is the server's: the realm check
 * Zulip makes against the request's host is the attachment's own realm here.
 * Decision: Zulip also limits how often visitors may read one file
 * (rate_limit_spectator_attachment_access_by_file); here the gateway's limit by address applies.
 */
export async function attachmentForCaller(ctx: Caller & { meta: { user?: Identity } }, Attachment: Model<AttachmentDoc>, pathId: string, spectators: SpectatorAccess): Promise<AttachmentDoc> {
	const user = ctx.meta.user;
	if (user) return readableAttachment(Attachment, pathId, user, readableBy(ctx));
	const doc = await Attachment.findOne({ path_id: pathId }).lean();
	if (!doc || !isWebPublic(doc) || !spectators.serverEnabled) throw fileNotFound();
	if (!(await call(ctx, "users.groupGraph", {})).spectator_access) throw fileNotFound();
	return doc;
}

/** What the gateway needs to send a file (services/api/file-download.ts). */
export function openedFile(doc: AttachmentDoc): OpenedFile {
	const name = doc.path_id.slice(doc.path_id.lastIndexOf("/") + 1);
	return sendableFile({ file_id: doc.file_id, length: doc.size, content_type: doc.content_type, name, inline: isInlineType(doc.content_type), stored: doc.create_time });
}
