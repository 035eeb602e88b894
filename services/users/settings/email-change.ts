// Changing one's email address: PATCH /settings stores the new address as pending and sends a
// confirmation link to it; opening the link makes the change.
import type { Identity } from "../../../shared/actions";
import { badRequest, notFound } from "../../../shared/errors";
import { clock } from "../../../shared/clock";
import { randomToken } from "../../../shared/passwords";
import { isAdmin } from "../../../shared/roles";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { checkEmail } from "../accounts/accounts";
import { realmSetting } from "../realm/realm-settings";
import { applyUpdate } from "../accounts/user-admin";

const LINK_VALIDITY_SECONDS = 24 * 3600;

/** Checks the new address; returns the step that records it and sends the link. */
export async function startEmailChange(db: UsersDb, actor: Identity, user: UserDoc, newEmail: string): Promise<() => Promise<void>> {
	if (realmSetting(db.realm, "realm_email_changes_disabled") && !isAdmin(actor.role)) {
		throw badRequest("Email address changes are disabled in this organization.");
	}
	const email = checkEmail(newEmail);
	if (await db.User.exists({ realm_id: db.realm._id, email_key: email.toLowerCase() })) throw badRequest(`Email '${email}' already in use`);
	return async () => {
		const key = randomToken(32);
		// One pending change per user: a new request replaces the old link.
		await db.EmailChange.deleteMany({ user_id: user._id });
		await db.EmailChange.create({ _id: key, user_id: user._id, new_email: email, expires: clock.now() + LINK_VALIDITY_SECONDS });
		const link = `${db.realm.url}/accounts/confirm_new_email/${key}`;
		await db.sendEmail({
			template: "confirm_new_email",
			to: email,
			user_id: user._id,
			idempotency_key: `confirm-new-email:${key}`,
			context: { realm_name: db.realm.name, realm_url: db.realm.url, full_name: user.full_name, old_email: user.delivery_email, new_email: email, link },
		});
	};
}

/** Opens a confirmation link: the address changes, the link is used up. */
export async function confirmEmailChange(db: UsersDb, key: string): Promise<{ user_id: number; email: string }> {
	const pending = await db.EmailChange.findById(key).lean();
	if (!pending || pending.expires < clock.now()) throw notFound("This confirmation link has expired or has already been used.");
	const email = pending.new_email;
	if (await db.User.exists({ realm_id: db.realm._id, email_key: email.toLowerCase(), _id: { $ne: pending.user_id } })) {
		throw badRequest(`Email '${email}' already in use`);
	}
	await applyUpdate(db, pending.user_id, { delivery_email: email, email_key: email.toLowerCase() });
	await db.EmailChange.deleteOne({ _id: key });
	return { user_id: pending.user_id, email };
}
