// Who a request comes from: an API key with its email (every request the gateway routes), or an
// email and password (POST /fetch_api_key), each refused with Zulip's reasons in Zulip's order.
import { authenticationFailed, realmDeactivated, unauthorized, userDeactivated } from "../../../shared/errors";
import { API_KEY_PATTERN, verifyPassword } from "../../../shared/passwords";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { apiEmail } from "../user-view";

/**
 * The active user an API key belongs to, with the email it was sent with (the address or the API
 * email); `null` for the email: the key alone, as Zulip's webhook URLs carry it.
 */
export async function userByApiKey(db: UsersDb, host: string, rawEmail: string | null, apiKey: string): Promise<UserDoc> {
	const key = apiKey.trim();
	// Every refusal is 401 UNAUTHORIZED with Zulip's reason, in Zulip's order
	// (decorator.py: access_user_by_api_key, validate_account_and_subdomain).
	if (!API_KEY_PATTERN.test(key)) throw unauthorized("Malformed API key");
	const user = await db.User.findOne({ api_key: key }).lean();
	// System bots (another realm) never authenticate.
	if (!user || user.realm_id !== db.realm._id) throw unauthorized("Invalid API key");
	const email = rawEmail?.toLowerCase();
	if (email !== undefined && email !== user.email_key && email !== apiEmail(user, host).toLowerCase()) throw unauthorized("Invalid API key");
	if (db.realm.deactivated) throw unauthorized("This organization has been deactivated");
	if (!user.is_active) throw unauthorized("Account is deactivated");
	return user;
}

/** POST /fetch_api_key: the active user with this address and password. */
export async function userByPassword(db: UsersDb, username: string, password: string): Promise<UserDoc> {
	const user = await db.User.findOne({ realm_id: db.realm._id, email_key: username.trim().toLowerCase() }).lean();
	// Unknown address and wrong password answer alike, so addresses are not revealed.
	if (!user || !(await verifyPassword(password, user.password_hash))) throw authenticationFailed();
	if (!user.is_active) throw userDeactivated();
	if (db.realm.deactivated) throw realmDeactivated();
	return user;
}
