// Creating accounts: the checks every path that makes a user goes through (POST /users, the
// management CLI, the first owner at bootstrap).
import { isDuplicateKey } from "../../../shared/db";
import type { Model } from "mongoose";
import { badRequest } from "../../../shared/errors";
import { clock } from "../../../shared/clock";
import { hashPassword, randomToken } from "../../../shared/passwords";
import { LIMITS } from "../../../shared/version";
import { Role } from "../../../shared/roles";
import type { UserDoc } from "../models/user";
import { Visibility } from "../user-view";

const EMAIL = /^[^\s@"<>()[\]\\,;:\p{Cc}]+@([A-Za-z0-9-]+\.)*[A-Za-z0-9-]+$/u;
/** Zulip's UserProfile.NAME_INVALID_CHARS. */
const NAME_INVALID_CHARS = /[*`\\>"@]/;
/** What Zulip's check_string_is_printable refuses: controls, lone surrogates, the 66 non-characters. */
const unprintable = (ch: string) => {
	const cp = ch.codePointAt(0)!;
	return /[\p{Cc}\p{Cs}]/u.test(ch) || (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
};
const MIN_FULL_NAME_LENGTH = 2;

export function checkEmail(email: string): string {
	const e = email.trim();
	if (e.length > LIMITS.max_email_length || !EMAIL.test(e)) throw badRequest(`Invalid email '${email}'`);
	return e;
}

/**
 * Zulip's check_full_name, the one rule for every full name set (sign-up, the CLI, bots, PATCH
 * /settings, PATCH /users/{id|email}): trimmed, 2 to 100 characters (code points), nothing
 * unprintable nor any of * ` \ > " @, and not ending in `|` and digits (which would read as a
 * mention's `Name|id`).
 */
export function checkFullName(name: string): string {
	const n = name.trim();
	const chars = [...n];
	if (chars.length > LIMITS.max_full_name_length) throw badRequest("Name too long!");
	if (chars.length < MIN_FULL_NAME_LENGTH) throw badRequest("Name too short!");
	if (chars.some(unprintable) || NAME_INVALID_CHARS.test(n)) throw badRequest("Invalid characters in name!");
	// Zulip tests the untrimmed name with Python's `\|\d+$` ($ also matches before a final newline).
	if (/\|\p{Nd}+\n?$/u.test(name)) throw badRequest("Invalid format!");
	return n;
}

/** A name as Zulip compares names for require_unique_names: NFKC, case-folded. */
const nameKey = (name: string) => name.normalize("NFKC").toUpperCase().toLowerCase();

/**
 * The rest of check_full_name, for organizations with realm_require_unique_names: no other user
 * (active or not, bots too) may have the same name, compared as Zulip does.
 */
export async function checkUniqueName(User: Model<UserDoc>, realmId: number, name: string, selfId: number | null): Promise<void> {
	const key = nameKey(name);
	const users = await User.find({ realm_id: realmId }, { full_name: 1 }).lean();
	if (users.some((u) => u._id !== selfId && nameKey(u.full_name) === key)) throw badRequest("Unique names required in this organization.");
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
	/** The organization's realm_require_unique_names. */
	require_unique_names?: boolean;
	/** A bot's defaults and service, stored with the account (POST /bots). */
	bot_fields?: Pick<UserDoc, "default_sending_stream_id" | "default_events_register_stream_id" | "default_all_public_streams" | "bot_service" | "bot_config"> & Partial<Pick<UserDoc, "avatar_source" | "avatar_path">>;
}

/** Validates and inserts a user; the email must be unused in the realm (case-insensitively). */
export async function createUser(User: Model<UserDoc>, nextId: (entity: string) => Promise<number>, input: NewUser): Promise<UserDoc> {
	const email = checkEmail(input.email);
	const full_name = checkFullName(input.full_name);
	if (input.require_unique_names) await checkUniqueName(User, input.realm_id, full_name, null);
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
		can_create_users: false,
		...(input.is_bot ? input.bot_fields : {}),
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
