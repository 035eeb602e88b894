// Zulip's `realm_export`: the organization's data exports, whole, to its administrators whenever
// one is requested, finishes, fails or is deleted (zerver/actions/realm_export.py).
import type { Context } from "moleculer";
import type { RealmExportsChanged } from "../../shared/org-events";
import type { Deliver } from "./deliver";
import type { QueueRegistry } from "./queues";

export function exportChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	return {
		"uploads.realmExportsChanged"(ctx: Context<RealmExportsChanged>) {
			deliver([...registry().of(new Set(ctx.params.user_ids))], "realm_export", () => ({ exports: ctx.params.exports }));
		},
	};
}
