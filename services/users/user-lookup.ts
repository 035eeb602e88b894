// Finding users as the API names them (by ID, by email as the caller may see it, as principals,
// as a message mentions them) and showing them: the options of a user object, an Identity, some
// of a user's settings, the groups.
import type { Identity, Principal } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { GroupGraphCache } from "../../shared/group-settings";
import { activeUserIds, type UsersDb } from "./db";
import type { UserDoc } from "./models/user";
import { fieldMap } from "./profile-fields/profile-field-store";
import { realmHost } from "./realm/realm-settings";
import { SYSTEM_REALM_ID } from "./accounts/system-bots";
import { loadGroups, groupView } from "./groups/user-group-rules";
import { userSettings } from "./settings/user-settings";
import { apiEmail, canSeeDeliveryEmail, type ViewOptions } from "./user-view";

/** GET /users' options for the user objects. */
export type ViewParams = { client_gravatar: boolean; include_custom_profile_fields: boolean };

export function userLookup(db: UsersDb, graphs: GroupGraphCache) {
	const host = () => realmHost(db.realm);

	async function view(p: Partial<ViewParams>): Promise<ViewOptions> {
		const include = p.include_custom_profile_fields ?? false;
		return {
			clientGravatar: p.client_gravatar ?? true,
			includeCustomProfileFields: include,
			realmHost: host(),
			fields: include ? await fieldMap(db) : undefined,
		};
	}

	const identity = (u: UserDoc): Identity => ({
		user_id: u._id,
		realm_id: u.realm_id,
		email: apiEmail(u, host()),
		delivery_email: u.delivery_email,
		full_name: u.full_name,
		role: u.role,
		is_bot: u.is_bot,
	});

	const noSuchUser = () => badRequest("No such user");

	/** Some of a user's settings, defaults filled in (unknown names are left out). */
	const settingsNamed = (u: UserDoc, names: string[]) => {
		const all = userSettings(u);
		return Object.fromEntries(names.filter((n) => Object.hasOwn(all, n)).map((n) => [n, all[n]]));
	};

	async function findUser(userId: number): Promise<UserDoc> {
		const u = await db.User.findOne({ _id: userId, realm_id: db.realm._id }).lean();
		if (!u) throw noSuchUser();
		return u;
	}

	/** GET /users/{email}: the real address where the caller may see it, else the placeholder. */
	async function userByEmail(viewer: Identity, email: string): Promise<UserDoc> {
		const key = email.trim().toLowerCase();
		const byReal = await db.User.findOne({ realm_id: db.realm._id, email_key: key }).lean();
		if (byReal && canSeeDeliveryEmail(viewer, byReal)) return byReal;
		const m = /^user(\d+)@(.+)$/.exec(key);
		if (m && m[2] === host().toLowerCase()) {
			const byId = await db.User.findOne({ _id: Number(m[1]), realm_id: db.realm._id }).lean();
			if (byId && apiEmail(byId, host()).toLowerCase() === key) return byId;
		}
		throw noSuchUser();
	}

	async function groupsView(includeDeactivated: boolean) {
		const [groups, graph, active] = await Promise.all([loadGroups(db), graphs.get(), activeUserIds(db)]);
		const activeIds = new Set(active);
		return groups.filter((g) => includeDeactivated || !g.deactivated).map((g) => groupView(g, graph, activeIds));
	}

	return { host, view, identity, noSuchUser, settingsNamed, findUser, userByEmail, groupsView };
}

/**
 * Principals (user IDs or emails) as the users they name; unknown or deactivated users are an
 * error, as the subscription endpoints require.
 */
export async function usersByPrincipal(db: UsersDb, principals: Array<number | string>): Promise<Principal[]> {
	const ids = principals.filter((x): x is number => typeof x === "number");
	const emails = principals.filter((x): x is string => typeof x === "string").map((e) => e.trim().toLowerCase());
	const found = await db.User.find({ realm_id: db.realm._id, $or: [{ _id: { $in: ids } }, { email_key: { $in: emails } }] }).lean();
	const byId = new Map(found.map((u) => [u._id, u]));
	const byEmail = new Map(found.map((u) => [u.email_key, u]));
	const users = principals.map((x) => (typeof x === "number" ? byId.get(x) : byEmail.get(x.trim().toLowerCase())));
	if (users.some((u) => !u || !u.is_active)) throw badRequest("No such user");
	const unique = new Map(users.map((u) => [u!._id, u!]));
	return [...unique.values()].map((u) => ({ user_id: u._id, role: u.role, is_bot: u.is_bot, bot_owner_id: u.bot_owner_id }));
}

/**
 * Narrow operands (user IDs or emails) as user IDs, in order, as Zulip's narrows read them
 * (get_user_including_cross_realm): users of the organization, deactivated ones too, and the
 * system bots, whose address wins. Anything else is "No such user".
 */
export async function usersByNarrowOperand(db: UsersDb, refs: Array<number | string>): Promise<number[]> {
	const ids = refs.filter((x): x is number => typeof x === "number");
	const emails = refs.filter((x): x is string => typeof x === "string").map((e) => e.trim().toLowerCase());
	const found = await db.User.find(
		{ realm_id: { $in: [db.realm._id, SYSTEM_REALM_ID] }, $or: [{ _id: { $in: ids } }, { email_key: { $in: emails } }] },
		{ _id: 1, realm_id: 1, email_key: 1 },
	).lean();
	const byId = new Map(found.map((u) => [u._id, u._id]));
	// Organization users first, so that a system bot's entry overwrites one with the same address.
	const byEmail = new Map(found.sort((a, b) => Number(a.realm_id === SYSTEM_REALM_ID) - Number(b.realm_id === SYSTEM_REALM_ID)).map((u) => [u.email_key, u._id]));
	return refs.map((x) => {
		const id = typeof x === "number" ? byId.get(x) : byEmail.get(x.trim().toLowerCase());
		if (id === undefined) throw badRequest("No such user");
		return id;
	});
}

/** The users a message mentions, by exact full name or by ID; a name several active users share is not unique. */
export async function mentionedUsers(db: UsersDb, names: string[], ids: number[]): Promise<Array<{ id: number; full_name: string; unique_name: boolean }>> {
	if (!names.length && !ids.length) return [];
	const found = await db.User.find(
		{ realm_id: db.realm._id, is_active: true, $or: [{ full_name: { $in: names } }, { _id: { $in: ids } }] },
		{ _id: 1, full_name: 1 },
	).lean();
	const byName = new Map<string, number>();
	for (const u of found) byName.set(u.full_name, (byName.get(u.full_name) ?? 0) + 1);
	return found.map((u) => ({ id: u._id, full_name: u.full_name, unique_name: byName.get(u.full_name) === 1 }));
}
