// Avatars: whether a user may change theirs (Zulip's avatar_changes_disabled, which administrators
// pass), the change itself (a new version, its source, an uploaded image's path) and the
// `realm_user` update event's fields (Zulip's notify_avatar_url_change).
import type { Identity } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { isAdmin } from "../../../shared/roles";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { realmSetting } from "../realm/realm-settings";
import { avatarUrl } from "../user-view";

/** Zulip's AVATAR_CHANGES_DISABLED_ERROR, where the organization disabled avatar changes and the caller is no administrator. */
export function checkAvatarChange(db: UsersDb, actor: Identity): void {
	if (realmSetting<boolean>(db.realm, "realm_avatar_changes_disabled") && !isAdmin(actor.role)) throw badRequest("Avatar changes are disabled in this organization.");
}

/**
 * Makes `path` (an uploaded avatar's images) the user's avatar, or none (null: back to the
 * gravatar), as Zulip's do_change_avatar_fields: the version goes up by one. Answers the user as
 * it is now and the previous upload's path, whose images the caller removes.
 */
export async function changeAvatar(db: UsersDb, userId: number, path: string | null): Promise<{ user: UserDoc; previous: string | null }> {
	const before = await db.User.findOneAndUpdate(
		{ _id: userId, realm_id: db.realm._id },
		{ $set: { avatar_source: path ? "U" : "G", avatar_path: path }, $inc: { avatar_version: 1 } },
	).lean();
	if (!before) throw badRequest("No such user");
	const user: UserDoc = { ...before, avatar_source: path ? "U" : "G", avatar_path: path, avatar_version: before.avatar_version + 1 };
	return { user, previous: before.avatar_source === "U" && before.avatar_path ? before.avatar_path : null };
}

/** The changed fields of a `realm_user` update event after an avatar change (Zulip sends the URL even to client_gravatar clients). */
export function avatarEventFields(user: UserDoc): Record<string, unknown> {
	return {
		avatar_source: user.avatar_source,
		avatar_url: avatarUrl(user),
		avatar_url_medium: avatarUrl(user, true),
		avatar_version: user.avatar_version,
	};
}
