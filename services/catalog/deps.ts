// What every action group of the catalog service is handed: the database handles and the group
// graph (set when the service starts; it also says who the organization's active users are: who
// hears of each change).
import type { GroupGraphCache } from "../../shared/group-settings";
import type { CatalogDb } from "./db";

export type { Ctx } from "../../shared/actions";

export interface ServiceDeps {
	db: CatalogDb;
	graphs: GroupGraphCache;
}

/** The organization's active users now. */
export const activeUserIds = async (deps: ServiceDeps) => (await deps.graphs.get()).activeUserIds();
