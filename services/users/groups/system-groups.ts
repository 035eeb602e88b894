// The system groups every organization has, and their members, derived from users' roles.
import type { UsersDb } from "../db";
import { insertGroup } from "./group-insert";
import type { UserDoc } from "../models/user";
import type { UserGroupDoc } from "./user-group-model";
import { realmSetting } from "../realm/realm-settings";
import { Role } from "../../../shared/roles";
import { clock } from "../../../shared/clock";

/** Names in creation order; each role group contains the next more privileged one. */
export const SYSTEM_GROUPS = [
	"role:nobody",
	"role:owners",
	"role:administrators",
	"role:moderators",
	"role:fullmembers",
	"role:members",
	"role:everyone",
	"role:internet",
] as const;

export type SystemGroupName = (typeof SYSTEM_GROUPS)[number];

const DESCRIPTIONS: Record<SystemGroupName, string> = {
	"role:nobody": "Nobody",
	"role:owners": "Owners of this organization",
	"role:administrators": "Administrators of this organization, including owners",
	"role:moderators": "Moderators of this organization, including administrators",
	"role:fullmembers": "Members of this organization, not including new accounts and guests",
	"role:members": "Members of this organization, not including guests",
	"role:everyone": "Everyone in this organization, including guests",
	"role:internet": "Everyone on the internet",
};

/** The subgroup each role group contains. */
const SUBGROUP: Partial<Record<SystemGroupName, SystemGroupName>> = {
	"role:administrators": "role:owners",
	"role:moderators": "role:administrators",
	"role:fullmembers": "role:moderators",
	"role:members": "role:fullmembers",
	"role:everyone": "role:members",
	"role:internet": "role:everyone",
};

/** Creates any missing system group (idempotent; the unique name index settles races). */
export async function ensureSystemGroups(db: UsersDb): Promise<void> {
	const existing = new Map((await db.UserGroup.find({ realm_id: db.realm._id, is_system_group: true }).lean()).map((g) => [g.name, g]));
	for (const name of SYSTEM_GROUPS) {
		if (existing.has(name)) continue;
		await insertGroup(db, { name, description: DESCRIPTIONS[name], is_system_group: true, members: [], direct_subgroup_ids: [], creator_id: null, settings: {} });
	}
	// Subgroup links are fixed once every group has its ID.
	const all = new Map((await db.UserGroup.find({ realm_id: db.realm._id, is_system_group: true }).lean()).map((g) => [g.name, g._id]));
	for (const [name, sub] of Object.entries(SUBGROUP)) {
		await db.UserGroup.updateOne({ realm_id: db.realm._id, name }, { $set: { direct_subgroup_ids: [all.get(sub)!] } });
	}
}

/** The role group a user belongs to directly (Zulip's get_system_user_group_for_user). */
function roleGroup(role: number): SystemGroupName | undefined {
	switch (role) {
		case Role.OWNER:
			return "role:owners";
		case Role.ADMINISTRATOR:
			return "role:administrators";
		case Role.MODERATOR:
			return "role:moderators";
		case Role.MEMBER:
			return "role:members";
		case Role.GUEST:
			return "role:everyone";
		default:
			return undefined;
	}
}

/** Whether a user belongs to role:fullmembers directly: a member past the waiting period. */
export function isFullMember(user: Pick<UserDoc, "role" | "date_joined">, waitingDays: number, nowMs: number): boolean {
	// In milliseconds on both sides: whole seconds against a millisecond join time would keep a
	// new member out of role:fullmembers for up to a second with no waiting period.
	return user.role === Role.MEMBER && nowMs - user.date_joined.getTime() >= waitingDays * 86_400_000;
}

/** Which system groups a user belongs to directly, by role (and, for members, account age). */
function directSystemGroups(user: Pick<UserDoc, "role" | "date_joined">, waitingDays: number, nowMs: number): SystemGroupName[] {
	const group = roleGroup(user.role);
	if (!group) return [];
	return isFullMember(user, waitingDays, nowMs) ? ["role:fullmembers", group] : [group];
}

export const waitingDaysOf = (realm: UsersDb["realm"]) => Number(realmSetting(realm, "realm_waiting_period_threshold") ?? 0);

export async function systemGroupIds(db: UsersDb): Promise<Map<string, number>> {
	return new Map((await db.UserGroup.find({ realm_id: db.realm._id, is_system_group: true }, { _id: 1, name: 1 }).lean()).map((g) => [g.name, g._id]));
}

export type MembersEvent = { op: "add_members" | "remove_members"; group_id: number; user_ids: number[] };

/**
 * Zulip's user_group events for one user's moves between system groups, in its order: out of the
 * old role's group, into the new one's, then in or out of role:fullmembers (do_change_user_role;
 * do_create_user when `oldRole` is undefined, a new user).
 */
export async function systemGroupMoves(db: UsersDb, user: Pick<UserDoc, "_id" | "role" | "date_joined" | "full_member_pending">, oldRole?: number): Promise<MembersEvent[]> {
	const ids = await systemGroupIds(db);
	const waitingDays = waitingDaysOf(db.realm);
	const nowMs = clock.nowMs();
	const events: MembersEvent[] = [];
	const move = (op: MembersEvent["op"], name: SystemGroupName | undefined) => {
		const group_id = name && ids.get(name);
		if (group_id !== undefined) events.push({ op, group_id, user_ids: [user._id] });
	};
	const [was, now] = [oldRole === undefined ? undefined : roleGroup(oldRole), roleGroup(user.role)];
	if (was !== now) {
		move("remove_members", was);
		move("add_members", now);
	}
	// A member past the waiting period whose promotion was not announced yet was not one for clients.
	const wasFull = oldRole !== undefined && isFullMember({ ...user, role: oldRole }, waitingDays, nowMs) && !user.full_member_pending;
	const isFull = isFullMember(user, waitingDays, nowMs);
	if (wasFull && !isFull) move("remove_members", "role:fullmembers");
	if (!wasFull && isFull) move("add_members", "role:fullmembers");
	return events;
}

/**
 * The active users who are direct members of role:fullmembers now; with `announced`, only those
 * clients were told of (not the members whose promotion by time is still to be announced).
 */
export async function fullMemberIds(db: UsersDb, announced = false): Promise<Set<number>> {
	const members = await db.User.find({ realm_id: db.realm._id, is_active: true, role: Role.MEMBER }, { _id: 1, role: 1, date_joined: 1, full_member_pending: 1 }).lean();
	const waitingDays = waitingDaysOf(db.realm);
	const nowMs = clock.nowMs();
	return new Set(members.filter((u) => isFullMember(u, waitingDays, nowMs) && !(announced && u.full_member_pending)).map((u) => u._id));
}

/** role:fullmembers' changes between two snapshots, as Zulip sends them: removals first. */
export async function fullMembersChange(db: UsersDb, before: Set<number>, after: Set<number>): Promise<MembersEvent[]> {
	const group_id = (await systemGroupIds(db)).get("role:fullmembers");
	if (group_id === undefined) return [];
	const removed = [...before].filter((u) => !after.has(u)).sort((a, b) => a - b);
	const added = [...after].filter((u) => !before.has(u)).sort((a, b) => a - b);
	return [
		...(removed.length ? [{ op: "remove_members" as const, group_id, user_ids: removed }] : []),
		...(added.length ? [{ op: "add_members" as const, group_id, user_ids: added }] : []),
	];
}

/** Fills in the members of system groups from the users' roles. */
export function withSystemMembers(groups: UserGroupDoc[], users: Pick<UserDoc, "_id" | "role" | "date_joined" | "is_active">[], db: Pick<UsersDb, "realm">): UserGroupDoc[] {
	const waitingDays = waitingDaysOf(db.realm);
	const nowMs = clock.nowMs();
	const members = new Map<string, number[]>();
	for (const u of users) {
		if (!u.is_active) continue;
		for (const name of directSystemGroups(u, waitingDays, nowMs)) {
			if (!members.has(name)) members.set(name, []);
			members.get(name)!.push(u._id);
		}
	}
	return groups.map((g) => (g.is_system_group ? { ...g, members: members.get(g.name) ?? [] } : g));
}
