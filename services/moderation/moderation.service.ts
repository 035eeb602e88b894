// The moderation service: message reports (its own database, `<prefix>_moderation`). This file
// wires the service; the endpoint is in actions/, the notice's wording in report-notice.ts and
// the reporters' quota in report-quota.ts.
import type { Connection } from "mongoose";
import type { ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { call } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { GroupGraphCache, groupGraphEvents } from "../../shared/group-settings";
import { reportModel } from "./models/report";
import { reportActions, type ModerationDeps } from "./actions/reports";

export function moderationService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	const deps = { realmUrl: config.externalUrl } as ModerationDeps;

	return {
		name: "moderation",
		actions: { ...reportActions(deps) },

		// The moderation request channel and topics policy come with the organization snapshot.
		events: groupGraphEvents(() => deps.graphs),

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "moderation");
			Object.assign(deps, {
				Report: reportModel(conn),
				nextId: counters(conn),
				graphs: new GroupGraphCache(() => call(this.broker, "users.groupGraph", {})),
			});
			await ensureIndexes(conn);
		},

		async stopped() {
			await conn?.close();
		},
	} as ServiceSchema;
}
