// Creating accounts: the checks every path that makes a user goes through (POST /users, the
// management CLI, the first owner at bootstrap).
import { isDuplicateKey } from "../../shared/db";
import type { Model } from "mongoose";
import { badRequest } from "../../shared/errors";
import { clock } from "../../shared/clock";
import { hashPassword, randomToken } from "../../shared/passwords";
import { LIMITS } from "../../shared/version";
import { Role } from "../../shared/roles";
import type { UserDoc } from "./models/user";
import { Visibility } from "./user-view";

const EMAIL = /^[^\s@"<>()[\]\\,;:\p{Cc}]+@([A-Za-z0-9-]+\.)*[A-Za-z0-9-]+$/u;
const NAME_INVALID_CHARS = /[*`\\>"@\p{Cc}]/u;

export function checkEmail(email: string): string {
	const e = email.trim();
	if (e.length > LIMITS.max_email_length || !EMAIL.test(e)) throw badRequest(`Invalid email '${email}'`);
	return e;
}

export function checkFullName(name: string): string {
	const n = name.trim();
	if (n.length === 0) throw badRequest("Name too short!");
	if (n.length > LIMITS.max_full_name_length) throw badRequest("Name too long!");
	if (NAME_INVALID_CHARS.test(n)) throw badRequest("Invalid characters in name!");
	return n;
}

export function checkPassword(password: string): string {
	if (password.length < LIMITS.password_min_length) throw badRequest("The password is too weak.");
	if (password.length > LIMITS.password_max_length) throw badRequest("The password is too long.");
	return password;
}

export interface NewUser {
	realm_id: number;
	email: string;
	full_name: string;
	/** null: the account can only use its API key (bots, or users who will set one later). */
	password: string | null;
	role?: number;
	is_bot?: boolean;
	bot_type?: number | null;
	bot_owner_id?: number | null;
	email_address_visibility?: number;
	timezone?: string;
}

/** Validates and inserts a user; the email must be unused in the realm (case-insensitively). */
export async function createUser(User: Model<UserDoc>, nextId: (entity: string) => Promise<number>, input: NewUser): Promise<UserDoc> {
	const email = checkEmail(input.email);
	const full_name = checkFullName(input.full_name);
	if (input.password !== null) checkPassword(input.password);
	const email_key = email.toLowerCase();
	const taken = () => badRequest(`Email '${email}' already in use`);
	if (await User.exists({ realm_id: input.realm_id, email_key })) throw taken();

	const doc: UserDoc = {
		_id: await nextId("user"),
		realm_id: input.realm_id,
		delivery_email: email,
		email_key,
		full_name,
		role: input.role ?? Role.MEMBER,
		is_bot: input.is_bot ?? false,
		bot_type: input.is_bot ? (input.bot_type ?? 1) : null,
		bot_owner_id: input.is_bot ? (input.bot_owner_id ?? null) : null,
		is_active: true,
		is_billing_admin: false,
		api_key: randomToken(32),
		password_hash: input.password === null ? null : await hashPassword(input.password),
		date_joined: new Date(clock.nowMs()),
		timezone: input.timezone ?? "",
		avatar_source: "G",
		avatar_version: 1,
		email_address_visibility: input.email_address_visibility ?? Visibility.EVERYONE,
		settings: {},
		profile_data: {},
		can_change_user_emails: false,
	};
	try {
		await User.create(doc);
	} catch (err) {
		// Two requests for the same address at once: the unique index lets only one in.
		if (isDuplicateKey(err)) throw taken();
		throw err;
	}
	return doc;
}

/** The `zuliprc` a Zulip client reads: where the server is and who to authenticate as. */
export function zuliprc(user: Pick<UserDoc, "delivery_email" | "api_key">, site: string): string {
	return `[api]\nemail=${user.delivery_email}\nkey=${user.api_key}\nsite=${site}\n`;
}
