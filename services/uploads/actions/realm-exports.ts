// Organization data exports (administrators): POST /export/realm starts one in the background and
// answers its ID at once, GET /export/realm lists them, DELETE /export/realm/{export_id} removes
// one's file; each change is Zulip's `realm_export` event to the administrators. The archive is
// downloaded at its export_url (/user_uploads/exports/...), by administrators only
// (`openExport`, called by the gateway). As Zulip's zerver/views/realm_export.py.
//
// Decision: the export records and endpoints live in this service, beside the file they describe
// (GridFS); GET /export/realm/consents is the users service's (each user's setting).
// Decision: a standard export (export_type 2, "full with member consent") is accepted with
// Zulip's checks and, for now, holds the same public data as a public export; the private data
// of consenting members comes with the export format's own issue.
import { call, requireAdmin, requireUser, type Ctx, type OpenedFile } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { isAdmin } from "../../../shared/roles";
import { fileNotFound } from "../file-access";
import { sendableFile } from "../opened-file";
import { ExportStatus, ExportType } from "../models/realm-export";
import { checkCanStart, deletableExport, listExports, recentExports } from "../realm-export-rules";
import { announceExports, runInBackground, type ExportDeps } from "../export/run-export";

export function realmExportActions(deps: ExportDeps) {
	return {
		startExport: {
			params: params({ export_type: p.oneOf([ExportType.PUBLIC, ExportType.FULL_WITH_CONSENT], { optional: true }) }),
			async handler(ctx: Ctx<{ export_type?: number }>) {
				const user = requireAdmin(ctx);
				const type = ctx.params.export_type ?? ExportType.PUBLIC;
				const now = clock.nowMs();
				const [realm, { channels }] = await Promise.all([call(ctx, "users.exportRealm", {}), call(ctx, "channels.exportChannels", {})]);
				const [recent, { count }, uploadBytes] = await Promise.all([
					recentExports(deps.Export, user.realm_id, now),
					call(ctx, "messages.exportCount", { channel_ids: channels.map((c) => c.id) }),
					deps.space.used(user.realm_id),
				]);
				checkCanStart(type, { realm, recent, messages: count, uploadBytes, supportEmail: deps.supportEmail });
				const id = await deps.nextId("realm_export");
				await deps.Export.create({ _id: id, realm_id: user.realm_id, acting_user_id: user.user_id, type, status: ExportStatus.REQUESTED, date_requested: now, progress_at: now });
				await announceExports(deps, user.realm_id, realm.admin_user_ids);
				runInBackground(deps, id, realm);
				return { id };
			},
		},

		listExports: {
			params: params({}),
			async handler(ctx: Ctx) {
				const user = requireAdmin(ctx);
				return { exports: await listExports(deps.Export, user.realm_id, deps.siteUrl) };
			},
		},

		deleteExport: {
			params: params({ export_id: p.int() }),
			async handler(ctx: Ctx<{ export_id: number }>) {
				const user = requireAdmin(ctx);
				const doc = await deletableExport(deps.Export, user.realm_id, ctx.params.export_id);
				// Marked deleted first (a request racing this one finds it so), then the file goes.
				const marked = await deps.Export.updateOne({ _id: doc._id, status: ExportStatus.SUCCEEDED }, { $set: { status: ExportStatus.DELETED, date_deleted: clock.nowMs(), file_id: null } });
				if (!marked.modifiedCount) throw badRequest("Export already deleted");
				if (doc.file_id) await deps.store.remove(doc.file_id);
				await announceExports(deps, user.realm_id);
				return {};
			},
		},

		/** An export's archive for the gateway to send: administrators of its organization only, else "File not found." */
		openExport: {
			visibility: "public",
			params: params({ path_id: p.string({ max: 2000 }) }),
			async handler(ctx: Ctx<{ path_id: string }>): Promise<OpenedFile> {
				const user = requireUser(ctx);
				const doc = await deps.Export.findOne({ path_id: ctx.params.path_id }).lean();
				if (!doc || !isAdmin(user.role) || doc.realm_id !== user.realm_id || doc.status !== ExportStatus.SUCCEEDED || !doc.file_id) throw fileNotFound();
				const name = doc.path_id!.slice(doc.path_id!.lastIndexOf("/") + 1);
				return sendableFile({ file_id: doc.file_id, length: doc.tarball_size_bytes ?? 0, content_type: "application/gzip", name, inline: false, stored: doc.date_succeeded ?? doc.date_requested });
			},
		},
	};
}
