// Muted users, as Zulip's zerver/views/muted_users.py and zerver/lib/muted_users.py: who may be
// muted (any user of the organization, bots and deactivated users included, and the system bots),
// a user's mutes as POST /register and the muted_users event show them, and who muted a sender
// (the messages service marks that sender's new messages read for them).
import { badRequest } from "../../../shared/errors";
import type { UsersDb } from "../db";
import { mutedUserKey } from "./muted-user-model";
import { realmSetting } from "../realm/realm-settings";
import { SYSTEM_REALM_ID } from "../accounts/system-bots";
import { USER_SETTINGS } from "../settings/user-settings";

/** A user's mutes, Zulip's `muted_users` shape (by muted user ID). */
export async function mutesOf(db: UsersDb, userId: number): Promise<Array<{ id: number; timestamp: number }>> {
	const rows = await db.MutedUser.find({ user_id: userId }, { muted_user_id: 1, date_muted: 1 }).sort({ user_id: 1, muted_user_id: 1 }).lean();
	return rows.map((r) => ({ id: r.muted_user_id, timestamp: r.date_muted }));
}

/**
 * The user a mute names, as Zulip's access_user_by_id_including_cross_realm with bots and
 * deactivated users allowed: a user of the organization or a system bot, else "No such user".
 */
export async function muteTarget(db: UsersDb, userId: number): Promise<number> {
	const found = await db.User.exists({ _id: userId, realm_id: { $in: [db.realm._id, SYSTEM_REALM_ID] } });
	if (!found) throw badRequest("No such user");
	return userId;
}

/** Stores a mute; a second one of the same user is "User already muted" (the key refuses it). */
export async function addMute(db: UsersDb, userId: number, mutedUserId: number, now: number): Promise<void> {
	try {
		await db.MutedUser.create({ _id: mutedUserKey(userId, mutedUserId), user_id: userId, muted_user_id: mutedUserId, date_muted: now });
	} catch (err) {
		if ((err as { code?: number } | null)?.code === 11000) throw badRequest("User already muted");
		throw err;
	}
}

/** Removes a mute; none is "User is not muted". */
export async function removeMute(db: UsersDb, userId: number, mutedUserId: number): Promise<void> {
	const { deletedCount } = await db.MutedUser.deleteOne({ _id: mutedUserKey(userId, mutedUserId) });
	if (!deletedCount) throw badRequest("User is not muted");
}

/** Who muted this user (deactivated muters included, as Zulip's get_muting_users). */
export async function mutersOf(db: UsersDb, mutedUserId: number): Promise<number[]> {
	const rows = await db.MutedUser.find({ muted_user_id: mutedUserId }, { user_id: 1 }).sort({ muted_user_id: 1, user_id: 1 }).lean();
	return rows.map((r) => r.user_id);
}

/**
 * Of the users who read a message, those whose read receipt `viewerId` sees, as Zulip's
 * read_receipts view: active users who send read receipts, neither muted by the viewer nor
 * having muted them. Refused when the organization disables read receipts. Ascending IDs.
 */
export async function receiptReaders(db: UsersDb, viewerId: number, readers: number[]): Promise<number[]> {
	if (!realmSetting<boolean>(db.realm, "realm_enable_read_receipts")) throw badRequest("Read receipts are disabled in this organization.");
	if (!readers.length) return [];
	const [users, mutedByViewer, mutedViewer] = await Promise.all([
		db.User.find({ _id: { $in: readers }, realm_id: db.realm._id, is_active: true }, { _id: 1, settings: 1 }).lean(),
		db.MutedUser.find({ user_id: viewerId, muted_user_id: { $in: readers } }, { muted_user_id: 1 }).lean(),
		db.MutedUser.find({ muted_user_id: viewerId, user_id: { $in: readers } }, { user_id: 1 }).lean(),
	]);
	const hidden = new Set([...mutedByViewer.map((r) => r.muted_user_id), ...mutedViewer.map((r) => r.user_id)]);
	const sends = (s: Record<string, unknown> | undefined) => (s?.send_read_receipts ?? USER_SETTINGS.send_read_receipts.default) === true;
	return users
		.filter((u) => sends(u.settings) && !hidden.has(u._id))
		.map((u) => u._id)
		.sort((a, b) => a - b);
}
