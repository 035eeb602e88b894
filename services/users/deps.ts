// What the users service's action groups share: the database handles, the group graph, how users
// are found and shown (user-lookup.ts), and how changes are announced (user-changes.ts).
import { requireUser, type Ctx, type Identity } from "../../shared/actions";
import type { Config } from "../../shared/config";
import { adminRequired } from "../../shared/errors";
import type { GroupGraphCache } from "../../shared/group-settings";
import { isAdmin } from "../../shared/roles";
import type { UsersDb } from "./db";
import type { userChanges } from "./user-changes";
import type { userLookup } from "./user-lookup";

export type { Ctx } from "../../shared/actions";

export interface ServiceDeps extends ReturnType<typeof userLookup>, ReturnType<typeof userChanges> {
	db: UsersDb;
	graphs: GroupGraphCache;
	config: Config;
}

/** The caller, who must be an organization administrator. */
export function requireAdmin(ctx: Ctx<any>): Identity {
	const user = requireUser(ctx);
	if (!isAdmin(user.role)) throw adminRequired();
	return user;
}
