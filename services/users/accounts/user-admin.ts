// PATCH /users/{user_id} and PATCH /users/{email}: an administrator changes another user's name,
// role, email or custom profile data. Every change is checked before anything is written, and
// all of them are written in one update. Who may deactivate a user, and when users may deactivate
// themselves, at the end.
import { isDuplicateKey } from "../../../shared/db";
import { apiError, badRequest, insufficientPermission, ownerRequired, unauthorized } from "../../../shared/errors";
import type { Identity } from "../../../shared/actions";
import { isAdmin, isOwner, Role } from "../../../shared/roles";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { checkEmail, checkFullName, checkUniqueName } from "./accounts";
import { realmSetting } from "../realm/realm-settings";
import { profileDataUpdate } from "../profile-fields/profile-data";

export interface UserChanges {
	full_name?: string;
	role?: number;
	new_email?: string;
	profile_data?: Array<{ id: number; value: unknown }>;
}

/** Returns the fields that changed (for the users.changed event); writes nothing if a check fails. */
export async function updateUser(db: UsersDb, actor: Identity, target: UserDoc, changes: UserChanges): Promise<Record<string, unknown>> {
	const set: Record<string, unknown> = {};
	const unset: Record<string, ""> = {};
	const changed: Record<string, unknown> = {};

	if (changes.full_name !== undefined) {
		const name = checkFullName(changes.full_name);
		if (name !== target.full_name) {
			if (realmSetting(db.realm, "realm_require_unique_names")) await checkUniqueName(db.User, db.realm._id, name, target._id);
			set.full_name = changed.full_name = name;
		}
	}

	if (changes.role !== undefined && changes.role !== target.role) {
		const role = changes.role;
		if ((role === Role.OWNER || target.role === Role.OWNER) && !isOwner(actor.role)) throw ownerRequired();
		// The spec's example: a guest is not made an administrator in one step.
		if (target.role === Role.GUEST && isAdmin(role)) throw badRequest("Guests cannot be organization administrators");
		if (target.role === Role.OWNER) {
			const owners = await db.User.countDocuments({ realm_id: db.realm._id, role: Role.OWNER, is_active: true });
			if (owners <= 1 && target.is_active) throw badRequest("The owner permission cannot be removed from the only organization owner.");
		}
		set.role = changed.role = role;
	}

	if (changes.new_email !== undefined) {
		const me = await db.User.findById(actor.user_id).lean();
		if (!isOwner(actor.role) || !me?.can_change_user_emails) throw insufficientPermission();
		const email = checkEmail(changes.new_email);
		if (email.toLowerCase() !== target.email_key) {
			if (await db.User.exists({ realm_id: db.realm._id, email_key: email.toLowerCase() })) throw badRequest(`Email '${email}' already in use`);
			set.delivery_email = changed.delivery_email = email;
			set.email_key = email.toLowerCase();
		} else if (email !== target.delivery_email) {
			set.delivery_email = changed.delivery_email = email;
		}
	}

	if (changes.profile_data !== undefined) {
		const update = await profileDataUpdate(db, changes.profile_data);
		Object.assign(set, update.set);
		Object.assign(unset, update.unset);
		if (update.changed) changed.profile_data = changes.profile_data;
	}

	await applyUpdate(db, target._id, set, unset);
	return changed;
}

export async function applyUpdate(db: UsersDb, userId: number, set: Record<string, unknown>, unset: Record<string, ""> = {}): Promise<void> {
	const update: Record<string, unknown> = {};
	if (Object.keys(set).length) update.$set = set;
	if (Object.keys(unset).length) update.$unset = unset;
	if (!Object.keys(update).length) return;
	try {
		await db.User.updateOne({ _id: userId }, update);
	} catch (err) {
		// Two changes to the same address at once: the unique index lets one through.
		if (isDuplicateKey(err)) throw badRequest(`Email '${String(set.delivery_email)}' already in use`);
		throw err;
	}
}

/** DELETE /users/{user_id}: an active human, and an owner only by an owner and never the last one. */
export async function checkDeactivation(db: UsersDb, actor: Identity, target: UserDoc): Promise<void> {
	if (!target.is_active || target.is_bot) throw badRequest("No such user");
	if (isOwner(target.role)) {
		if (!isOwner(actor.role)) throw ownerRequired();
		const owners = await db.User.countDocuments({ realm_id: db.realm._id, role: Role.OWNER, is_active: true });
		if (owners <= 1) throw badRequest("Cannot deactivate the only organization owner");
	}
}

/** Zulip's CannotDeactivateLastUserError. */
const lastUser = (isLastOwner: boolean) => {
	const entity = isLastOwner ? "organization owner" : "user";
	return apiError(400, "CANNOT_DEACTIVATE_LAST_USER", `Cannot deactivate the only ${entity}.`, { is_last_owner: isLastOwner, entity });
};

/**
 * DELETE /users/me, as Zulip's deactivate_user_own_backend: not the organization's only active
 * account (bots count), nor its only human owner. Bots may deactivate themselves.
 */
export async function checkOwnDeactivation(db: UsersDb, self: UserDoc): Promise<void> {
	// Deactivated by a request that ran just before this one: what authentication now answers.
	if (!self.is_active) throw unauthorized("Account is deactivated");
	if ((await db.User.countDocuments({ realm_id: db.realm._id, is_active: true })) === 1) throw lastUser(false);
	if (isOwner(self.role) && !self.is_bot) {
		const owners = await db.User.countDocuments({ realm_id: db.realm._id, role: Role.OWNER, is_active: true, is_bot: false });
		if (owners === 1) throw lastUser(true);
	}
}
