// Zulip's `realm_export`: the organization's data exports, whole, to its administrators whenever
// one is requested, finishes, fails or is deleted (zerver/actions/realm_export.py); and
// `realm_export_consent`: a user's consent to a private data export changed, to the administrators.
import type { Context } from "moleculer";
import type { ExportConsentChanged, RealmExportsChanged } from "../../shared/org-events";
import type { Deliver } from "./deliver";
import type { QueueRegistry } from "./queues";

export function exportChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	return {
		"uploads.realmExportsChanged"(ctx: Context<RealmExportsChanged>) {
			deliver([...registry().of(new Set(ctx.params.user_ids))], "realm_export", () => ({ exports: ctx.params.exports }));
		},
		"users.exportConsentChanged"(ctx: Context<ExportConsentChanged>) {
			deliver([...registry().of(new Set(ctx.params.user_ids))], "realm_export_consent", () => ({ user_id: ctx.params.user_id, consented: ctx.params.consented }));
		},
	};
}
