// The system groups every organization has, and their members, derived from users' roles.
import { isDuplicateKey } from "../../shared/db";
import type { UsersDb } from "./db";
import type { UserDoc } from "./models/user";
import type { UserGroupDoc } from "./models/user-group";
import { realmSetting } from "./realm-settings";
import { Role } from "../../shared/roles";
import { clock } from "../../shared/clock";

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
		const id = await db.nextId("user_group");
		try {
			await db.UserGroup.create({
				_id: id,
				realm_id: db.realm._id,
				name,
				description: DESCRIPTIONS[name],
				is_system_group: true,
				members: [],
				direct_subgroup_ids: [],
				deactivated: false,
				creator_id: null,
				date_created: clock.now(),
				settings: {},
			});
		} catch (err) {
			if (!isDuplicateKey(err)) throw err;
		}
	}
	// Subgroup links are fixed once every group has its ID.
	const all = new Map((await db.UserGroup.find({ realm_id: db.realm._id, is_system_group: true }).lean()).map((g) => [g.name, g._id]));
	for (const [name, sub] of Object.entries(SUBGROUP)) {
		await db.UserGroup.updateOne({ realm_id: db.realm._id, name }, { $set: { direct_subgroup_ids: [all.get(sub)!] } });
	}
}

/** Which system group a user belongs to directly, by role (and, for members, account age). */
function directSystemGroups(user: Pick<UserDoc, "role" | "date_joined">, waitingDays: number, nowMs: number): SystemGroupName[] {
	switch (user.role) {
		case Role.OWNER:
			return ["role:owners"];
		case Role.ADMINISTRATOR:
			return ["role:administrators"];
		case Role.MODERATOR:
			return ["role:moderators"];
		case Role.MEMBER: {
			// In milliseconds on both sides: whole seconds against a millisecond join time would keep a
			// new member out of role:fullmembers for up to a second with no waiting period.
			const full = nowMs - user.date_joined.getTime() >= waitingDays * 86_400_000;
			return full ? ["role:fullmembers", "role:members"] : ["role:members"];
		}
		case Role.GUEST:
			return ["role:everyone"];
		default:
			return [];
	}
}

/** Fills in the members of system groups from the users' roles. */
export function withSystemMembers(groups: UserGroupDoc[], users: Pick<UserDoc, "_id" | "role" | "date_joined" | "is_active">[], db: UsersDb): UserGroupDoc[] {
	const waitingDays = Number(realmSetting(db.realm, "realm_waiting_period_threshold") ?? 0);
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
