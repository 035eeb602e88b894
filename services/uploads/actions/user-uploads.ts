// POST /user_uploads (a file for a message), and reading files back: the download the gateway
// serves at /user_uploads/{realm_id}/{path} (open), the temporary URL of
// GET /api/v1/user_uploads/{realm_id}/{filename} and the download it leads to (openTemporary).
// As Zulip's zerver/views/upload.py.
import { requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { contentTypeOf, messageUploadPath, originalName, sanitizeName } from "../file-names";
import { attachmentForCaller, fileNotFound, openedFile, readableAttachment, readableBy } from "../file-access";
import { completeUpload, pendingUpload } from "../transfer";
import { pathOfToken, temporaryToken } from "../temporary-urls";
import { addMessageAttachment } from "../message-attachment";
import type { UploadsDeps } from "./deps";

export const USER_UPLOAD = "uploads.userUpload";

export function userUploadActions(deps: UploadsDeps) {
	return {
		userUpload: {
			params: params({}),
			async handler(ctx: Ctx) {
				const user = requireUser(ctx);
				const upload = ctx.meta.upload;
				if (!upload) throw badRequest("You must specify a file to upload");
				const pending = await pendingUpload(deps.Pending, upload.upload_id, user, USER_UPLOAD);
				await deps.space.checkRoomFor(user.realm_id, upload.length);
				const fileName = originalName(upload.file_name);
				const pathId = messageUploadPath(user.realm_id, sanitizeName(fileName));
				const contentType = contentTypeOf(fileName, upload.content_type);
				const fileId = await completeUpload(deps.store, deps.Pending, pending, upload.length, fileName, { path_id: pathId, content_type: contentType });
				const { url, filename } = await addMessageAttachment(ctx, deps, user, { fileId, pathId, fileName, contentType, size: upload.length });
				return { uri: url, url, filename };
			},
		},
		/** A file the caller may read (or, called without a user, a visitor), for the gateway to send. */
		open: {
			visibility: "public",
			params: params({ path_id: p.string({ max: 2000 }) }),
			async handler(ctx: Ctx<{ path_id: string }>) {
				return openedFile(await attachmentForCaller(ctx, deps.Attachment, ctx.params.path_id, deps.spectators));
			},
		},
		temporaryUrl: {
			params: params({ realm_id: p.int(), filename: p.string({ max: 2000 }) }),
			async handler(ctx: Ctx<{ realm_id: number; filename: string }>) {
				const doc = await readableAttachment(deps.Attachment, `${ctx.params.realm_id}/${ctx.params.filename}`, requireUser(ctx), readableBy(ctx));
				const name = doc.path_id.slice(doc.path_id.lastIndexOf("/") + 1);
				return { url: `/user_uploads/temporary/${temporaryToken(deps.urlKey, doc.path_id)}/${name}` };
			},
		},
		/** The file a temporary URL names, without credentials. */
		openTemporary: {
			visibility: "public",
			params: params({ token: p.string({ max: 8000 }), filename: p.string({ max: 2000 }) }),
			async handler(ctx: Ctx<{ token: string; filename: string }>) {
				const pathId = pathOfToken(deps.urlKey, ctx.params.token);
				if (pathId === null) throw badRequest("Invalid token");
				if (pathId.slice(pathId.lastIndexOf("/") + 1) !== ctx.params.filename) throw badRequest("Invalid filename");
				const doc = await deps.Attachment.findOne({ path_id: pathId }).lean();
				if (!doc) throw fileNotFound();
				return openedFile(doc);
			},
		},
	};
}
