// What every action group of the users service is handed, the one argument each takes: the
// database handles, the group graph, the configuration, how users are found and shown
// (user-lookup.ts), and how changes are announced (user-changes.ts).
import type { Config } from "../../shared/config";
import type { GroupGraphCache } from "../../shared/group-settings";
import type { UsersDb } from "./db";
import { userChanges } from "./user-changes";
import { userLookup } from "./user-lookup";
import { shownUsersCache, type ShownUsers } from "./accounts/shown-users";

export type { Ctx } from "../../shared/actions";
export { requireAdmin } from "../../shared/actions";

export interface ServiceDeps extends ReturnType<typeof userLookup>, ReturnType<typeof userChanges> {
	db: UsersDb;
	graphs: GroupGraphCache;
	config: Config;
	/** The users shown beside messages, per node (accounts/shown-users.ts). */
	shown: ShownUsers;
}

/** A feature's actions (Moleculer action definitions by name), made from the service's deps. */
export type ActionGroup = (deps: ServiceDeps) => Record<string, unknown>;

export function serviceDeps(db: UsersDb, graphs: GroupGraphCache, config: Config): ServiceDeps {
	const lookup = userLookup(db, graphs);
	return { db, graphs, config, shown: shownUsersCache(), ...lookup, ...userChanges(db, graphs, lookup.host, lookup.view) };
}
