// Forgotten passwords, as Zulip's password reset: anyone may ask for a link by email address; the
// address gets an email either way (a link when it has an active account here, else a note saying
// there is none), so the form never tells who has an account. The link sets a new password once.
// It is also how users imported from a Zulip export, whose passwords exports never hold, set one.
//
// Decisions: a link works for three days (Django's PASSWORD_RESET_TIMEOUT, which Zulip keeps) and
// once; the database keeps only its SHA-256, so a copy of the database opens no account. Asking
// for a new link leaves earlier ones valid until used or expired (as Django's tokens do), and
// setting the password by any link retires all of them. Zulip's per-address budget
// (password_reset_form_by_email: 2 an hour, 5 a day) is counted in the database, one counter per
// window, so every replica shares it and concurrent requests cannot overspend it.
import { createHash } from "node:crypto";
import { badRequest, notFound, rateLimited } from "../../../shared/errors";
import { clock } from "../../../shared/clock";
import { incrementCreating } from "../../../shared/db";
import { hashPassword, randomToken } from "../../../shared/passwords";
import type { UsersDb } from "../db";
import { checkPassword } from "../accounts/accounts";
import { applyUpdate } from "../accounts/user-admin";

export const RESET_LINK_SECONDS = 3 * 24 * 3600;
/** [window seconds, emails allowed in it] for one address. */
export const RESET_BUDGET: ReadonlyArray<readonly [number, number]> = [
	[3600, 2],
	[86400, 5],
];
export const RESET_PATH = "/accounts/password/reset";

const keyHash = (key: string) => createHash("sha256").update(key).digest("hex");

/** Django's EmailField check, as the reset form applies it. */
function formEmail(raw: unknown): string {
	const email = typeof raw === "string" ? raw.trim() : "";
	if (!email) throw badRequest("This field is required.");
	if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw badRequest("Enter a valid email address.");
	return email;
}

/** Spends one of the address's reset emails; throws RATE_LIMIT_HIT (with the wait) when they are spent. */
async function spendBudget(db: UsersDb, address: string): Promise<void> {
	const now = clock.now();
	// Finished windows go, so the collection holds only the live ones.
	await db.PasswordResetBudget.deleteMany({ expires: { $lte: now } });
	for (const [seconds, allowed] of RESET_BUDGET) {
		const window = Math.floor(now / seconds);
		const expires = (window + 1) * seconds;
		const doc = await incrementCreating(db.PasswordResetBudget, { _id: `${seconds}:${window}:${address}`, count: 0, expires }, { count: 1 });
		if (doc.count > allowed) throw rateLimited(Math.max(1, expires - now));
	}
}

/** The reset form: validates the address, spends its budget and sends the email. Answers the address. */
export async function requestPasswordReset(db: UsersDb, rawEmail: unknown): Promise<{ email: string }> {
	const email = formEmail(rawEmail);
	const address = email.toLowerCase();
	await spendBudget(db, address);
	const realm = db.realm;
	const user = realm.deactivated ? null : await db.User.findOne({ realm_id: realm._id, email_key: address }).lean();
	if (user?.is_active) {
		const key = randomToken(32);
		await db.PasswordReset.deleteMany({ expires: { $lte: clock.now() } });
		await db.PasswordReset.create({ _id: keyHash(key), user_id: user._id, expires: clock.now() + RESET_LINK_SECONDS });
		await db.sendEmail({
			template: "password_reset",
			to: user.delivery_email,
			user_id: user._id,
			idempotency_key: `password-reset:${keyHash(key)}`,
			context: { realm_name: realm.name, realm_url: realm.url, email: user.delivery_email, link: `${realm.url}${RESET_PATH}/${key}` },
		});
	} else if (!realm.deactivated) {
		await db.sendEmail({
			template: "password_reset_no_account",
			to: email,
			idempotency_key: `password-reset-none:${randomToken(32)}`,
			context: { realm_name: realm.name, realm_url: realm.url, email, deactivated: !!user },
		});
	}
	return { email };
}

/** The active user a reset link opens; 404 for any link that does not (unknown, used, expired). */
async function linkUser(db: UsersDb, key: unknown) {
	const invalid = () => notFound("The password reset link is invalid, possibly because it has already been used or has expired.");
	if (typeof key !== "string" || !/^[A-Za-z0-9]{32}$/.test(key)) throw invalid();
	const reset = await db.PasswordReset.findById(keyHash(key)).lean();
	if (!reset || reset.expires <= clock.now() || db.realm.deactivated) throw invalid();
	const user = await db.User.findOne({ _id: reset.user_id, realm_id: db.realm._id, is_active: true }).lean();
	if (!user) throw invalid();
	return user;
}

/** What the link's page shows: whose password it sets. */
export async function passwordResetInfo(db: UsersDb, key: unknown): Promise<{ email: string; realm_name: string; realm_url: string }> {
	const user = await linkUser(db, key);
	return { email: user.delivery_email, realm_name: db.realm.name, realm_url: db.realm.url };
}

/** The link's form: both fields equal and strong enough, then the password is set and every link of the user retired. */
export async function resetPassword(db: UsersDb, key: unknown, password: unknown, confirmation: unknown): Promise<{ user_id: number; email: string }> {
	const user = await linkUser(db, key);
	if (typeof password !== "string" || !password || typeof confirmation !== "string" || !confirmation) throw badRequest("This field is required.");
	if (password !== confirmation) throw badRequest("The two password fields didn’t match.");
	checkPassword(password);
	// Retired first: of two submissions racing with one link, one finds it gone.
	const { deletedCount } = await db.PasswordReset.deleteOne({ _id: keyHash(key as string) });
	if (deletedCount !== 1) throw notFound("The password reset link is invalid, possibly because it has already been used or has expired.");
	await applyUpdate(db, user._id, { password_hash: await hashPassword(password) });
	await db.PasswordReset.deleteMany({ user_id: user._id });
	return { user_id: user._id, email: user.delivery_email };
}
