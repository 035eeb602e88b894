// The catalog service: the organization's linkifiers, code playgrounds and custom emoji (its own
// database, `<prefix>_catalog`). This file wires the service (its database, the group graph, the
// events it follows); each feature's actions and rules are in its folder (linkifiers/,
// playgrounds/, emoji/), its part of POST /register in register/, and the one-time copy of what
// the users database held before this service existed in move-from-users.ts.
import type { Connection } from "mongoose";
import type { ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { call } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { GroupGraphCache, groupGraphEvents } from "../../shared/group-settings";
import { spreadActionGroups } from "../../shared/action-groups";
import { catalogModels, type CatalogDb } from "./db";
import type { ServiceDeps } from "./deps";
import { linkifierActions } from "./linkifiers/actions";
import { playgroundActions } from "./playgrounds/actions";
import { realmEmojiActions } from "./emoji/actions";
import { registerActions } from "./register/actions";
import { moveFromUsers } from "./move-from-users";

const ACTION_GROUPS = [linkifierActions, playgroundActions, realmEmojiActions, registerActions];

export function catalogService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	const deps = { db: { realmId: 1 } } as ServiceDeps;

	return {
		name: "catalog",
		actions: spreadActionGroups("catalog", ACTION_GROUPS, deps),

		// Who may add emoji, and who the organization's active users are, come with the group graph.
		events: groupGraphEvents(() => deps.graphs),

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "catalog");
			Object.assign(deps.db, { ...catalogModels(conn), nextId: counters(conn) } satisfies Omit<CatalogDb, "realmId">);
			deps.graphs = new GroupGraphCache(() => call(this.broker, "users.groupGraph", {}));
			await ensureIndexes(conn);
			await moveFromUsers(conn, () => connectServiceDb(config.mongoUrl, config.dbPrefix, "users"), this.logger);
		},

		async stopped() {
			await conn?.close();
		},
	} as ServiceSchema;
}
