// GET /export/realm/consents (administrators), and what the uploads service reads of this service
// for an organization export (export-data.ts): the organization and its users, page by page.
import type { Ctx } from "../../../shared/actions";
import { EXPORT_PAGE } from "../../../shared/export-rows";
import { p, params } from "../../../shared/params";
import { exportConsents, exportRealm, exportUsers } from "./export-data";
import { requireAdmin, type ServiceDeps } from "../deps";

export function realmExportActions({ db }: ServiceDeps) {
	return {
		exportConsents: {
			params: params({}),
			async handler(ctx: Ctx) {
				requireAdmin(ctx);
				return { export_consents: await exportConsents(db) };
			},
		},
		exportRealm: {
			visibility: "public",
			params: params({}),
			handler: () => exportRealm(db),
		},
		exportUsers: {
			visibility: "public",
			params: params({ after_id: p.int(), limit: p.int({ min: 1, max: EXPORT_PAGE }) }),
			async handler(ctx: Ctx<{ after_id: number; limit: number }>) {
				return { users: await exportUsers(db, ctx.params.after_id, ctx.params.limit) };
			},
		},
	};
}
