// The users shown beside messages (users.getMany: a page's senders, a sent message's recipients):
// their stored fields a user object is made of, kept per node by user ID and dropped for the users
// each users.changed names (every write to a field a user object shows announces it: user-changes.ts),
// so a page of messages costs no read for its senders in the steady state. The documents are cached,
// not the user objects: what a caller sees of them (delivery_email, client_gravatar) is worked out
// per call by toApiUser. Custom profile data is not cached (asked for rarely; read through).
import { NodeCache } from "../../../shared/node-cache";
import { rawFind } from "../../../shared/db";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { apiUserFields } from "../user-view";
import { SYSTEM_REALM_ID } from "./system-bots";

/** Users remembered at most (the cache starts over past it). */
const MAX_USERS = 20_000;

export type ShownUsers = NodeCache<number, UserDoc>;

export const shownUsersCache = (): ShownUsers => new NodeCache<number, UserDoc>(MAX_USERS);

/** These users of the organization and the system bots (unknown IDs left out), in ID order. */
export async function shownUsers(db: UsersDb, cache: ShownUsers, ids: number[], withProfileData: boolean): Promise<UserDoc[]> {
	// System bots are included: they send messages too.
	const filter = (missing: number[]) => ({ _id: { $in: missing }, realm_id: { $in: [db.realm._id, SYSTEM_REALM_ID] } });
	if (withProfileData) return rawFind<UserDoc>(db.User, filter(ids), { projection: apiUserFields(true) });
	const found = await cache.getMany(ids, async (missing) => {
		const docs = await rawFind<UserDoc>(db.User, filter(missing), { projection: { ...apiUserFields(false), realm_id: 1 } });
		return new Map(docs.map((u) => [u._id, u]));
	});
	return [...found.values()].sort((a, b) => a._id - b._id);
}
