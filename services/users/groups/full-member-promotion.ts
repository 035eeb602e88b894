// Promotion to role:fullmembers by the passing of time (Zulip's daily promote_new_full_members):
// a member joins the group once past the organization's waiting period, which clients learn from a
// user_group add_members event. A member waiting for it carries full_member_pending; a run claims
// each member past the period with one conditional update, so with any number of users replicas
// each member is announced once. Creations, role changes and a new waiting period keep the marker
// true exactly for the members short of the period (they announce the others themselves).
import { clock } from "../../../shared/clock";
import type { GroupsChanged } from "../../../shared/org-events";
import { Role } from "../../../shared/roles";
import { activeUserIds, type UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { isFullMember, systemGroupIds, waitingDaysOf } from "./system-groups";

const DAY_MS = 86_400_000;

/** The earliest instant a Date holds (ECMAScript's time range). */
const EARLIEST_MS = -8.64e15;

/** Members who joined before this are past the waiting period (the earliest date for a period reaching past it). */
const cutoff = (days: number) => new Date(Math.max(clock.nowMs() - days * DAY_MS, EARLIEST_MS));

/** After a user's creation or role change: whether it now waits to be announced a full member. */
export async function markPending(db: UsersDb, user: Pick<UserDoc, "_id" | "role" | "date_joined">): Promise<void> {
	const pending = user.role === Role.MEMBER && !isFullMember(user, waitingDaysOf(db.realm), clock.nowMs());
	await db.User.updateOne({ _id: user._id }, { $set: { full_member_pending: pending } });
}

/** After a new waiting period (announced by its change): members short of it wait again, the others not. */
export async function resetPending(db: UsersDb): Promise<void> {
	const before = cutoff(waitingDaysOf(db.realm));
	await db.User.updateMany({ realm_id: db.realm._id, role: Role.MEMBER, date_joined: { $gt: before } }, { $set: { full_member_pending: true } });
	await db.User.updateMany({ realm_id: db.realm._id, full_member_pending: true, date_joined: { $lte: before } }, { $set: { full_member_pending: false } });
}

/** Users stored before the marker existed: the members short of the waiting period wait for it. */
export async function backfillPending(db: UsersDb): Promise<void> {
	const days = waitingDaysOf(db.realm);
	if (days <= 0) return;
	await db.User.updateMany(
		{ realm_id: db.realm._id, role: Role.MEMBER, full_member_pending: { $exists: false }, date_joined: { $gt: cutoff(days) } },
		{ $set: { full_member_pending: true } },
	);
}

/**
 * One run: claims the active members past the waiting period whose promotion is not announced
 * yet, and announces those this run claimed. Answers their IDs.
 */
export async function promoteFullMembers(db: UsersDb, broadcast: (event: string, payload: unknown) => unknown): Promise<number[]> {
	// The waiting period as stored now, not as this replica last heard of it.
	const realm = (await db.Realm.findById(db.realm._id).lean()) ?? db.realm;
	const days = waitingDaysOf(realm);
	// As Zulip's job, organizations without a waiting period are left alone: their members are full at once.
	if (days <= 0) return [];
	const due = await db.User.find({ realm_id: realm._id, full_member_pending: true, date_joined: { $lte: cutoff(days) }, role: Role.MEMBER, is_active: true }, { _id: 1 }).lean();
	const claimed: number[] = [];
	for (const { _id } of due) {
		const res = await db.User.updateOne({ _id, full_member_pending: true, role: Role.MEMBER, is_active: true }, { $set: { full_member_pending: false } });
		if (res.modifiedCount === 1) claimed.push(_id);
	}
	const group_id = (await systemGroupIds(db)).get("role:fullmembers");
	if (!claimed.length || group_id === undefined) return claimed;
	claimed.sort((a, b) => a - b);
	await broadcast("users.groupsChanged", {
		realm_id: realm._id,
		events: [{ op: "add_members", group_id, user_ids: claimed }],
		user_ids: await activeUserIds(db),
	} satisfies GroupsChanged);
	return claimed;
}
