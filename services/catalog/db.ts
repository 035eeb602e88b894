// The catalog service's database handles, shared by its modules: each feature's collections (their
// models live in the feature's folder), the organization's ID, and the ID counters.
import type { Connection } from "mongoose";
import { linkifierModel } from "./linkifiers/linkifier-model";
import { playgroundModel } from "./playgrounds/playground-model";
import { realmEmojiModel } from "./emoji/realm-emoji-model";

/** Every collection of the catalog service, on this connection. */
export function catalogModels(conn: Connection) {
	return {
		Linkifier: linkifierModel(conn),
		Playground: playgroundModel(conn),
		RealmEmoji: realmEmojiModel(conn),
	};
}

/** The counters these collections take their IDs from (the names they had in the users database). */
export const CATALOG_COUNTERS = ["realm_filter", "realm_playground", "realm_emoji"] as const;

export interface CatalogDb extends ReturnType<typeof catalogModels> {
	/** The organization (one per server). */
	realmId: number;
	nextId: (entity: (typeof CATALOG_COUNTERS)[number]) => Promise<number>;
}
