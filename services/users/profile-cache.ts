// The users service's cached answers (Moleculer's cacher, one per node): each user's own profile
// (users.myProfile, keyed by user ID) and the system bots' identities. A change to some users drops
// their entries by key, so its cost does not grow with the number of users cached.
import type { ServiceBroker } from "moleculer";

/** users.myProfile's cache keys: the caller's user ID. */
export const PROFILE_KEYS = ["#user.user_id"];

type KeyedCacher = { getCacheKey(action: { name: string }, opts: { keys?: string[] }, ctx: { params: object; meta: object }): string };

/** Drops the cached profiles of `userIds`, and the system bots' identities (two entries). */
export async function forgetCached(broker: ServiceBroker, userIds: number[]): Promise<void> {
	const cacher = broker.cacher as (NonNullable<ServiceBroker["cacher"]> & KeyedCacher) | undefined;
	if (!cacher) return;
	const keys = userIds.map((user_id) => cacher.getCacheKey({ name: "users.myProfile" }, { keys: PROFILE_KEYS }, { params: {}, meta: { user: { user_id } } }));
	for (const name of ["users.notificationBot", "users.welcomeBot"]) keys.push(cacher.getCacheKey({ name }, {}, { params: {}, meta: {} }));
	await cacher.del(keys);
}
