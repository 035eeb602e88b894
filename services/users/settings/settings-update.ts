// PATCH /settings: the caller's own settings and account (name, email, password). Every value is
// checked before anything is written; parameters whose value would not change are left alone and
// reported back in ignored_parameters_unsupported, as the API describes.
import { badRequest, missingArgument } from "../../../shared/errors";
import type { Identity } from "../../../shared/actions";
import { p, type Rule } from "../../../shared/params";
import { hashPassword, verifyPassword } from "../../../shared/passwords";
import { isAdmin } from "../../../shared/roles";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { checkFullName, checkPassword, checkUniqueName } from "../accounts/accounts";
import { realmSetting } from "../realm/realm-settings";
import { USER_SETTINGS, canonicalSetting, userSettings, type SettingDef } from "./user-settings";
import { applyUpdate } from "../accounts/user-admin";
import { startEmailChange } from "./email-change";

/** Settings kept as fields of their own on the user document rather than under `settings`. */
const TOP_LEVEL = new Set(["timezone", "email_address_visibility"]);

function ruleFor(def: SettingDef): Rule {
	if (def.type === "bool") return p.bool({ optional: true });
	if (def.values) return p.oneOf([...def.values, ...Object.keys(def.aliases ?? {})], { optional: true });
	if (def.type === "int") return def.outOfRange ? p.int({ optional: true }) : p.int({ optional: true, min: def.min, max: def.max });
	return p.string({ optional: true, max: 100 });
}

/** The action's parameters: every personal setting, plus the account fields. */
export const SETTINGS_PARAMS: Record<string, Rule> = {
	...Object.fromEntries(Object.entries(USER_SETTINGS).map(([name, def]) => [name, ruleFor(def)])),
	full_name: p.string({ optional: true }),
	email: p.string({ optional: true }),
	old_password: p.string({ optional: true }),
	new_password: p.string({ optional: true }),
};

export interface SettingsResult {
	/** What changed, for the users.settingsChanged event. */
	changes: Record<string, unknown>;
	/** Parameters whose value was already the current one. */
	unchanged: string[];
}

export async function updateSettings(db: UsersDb, actor: Identity, user: UserDoc, params: Record<string, unknown>): Promise<SettingsResult> {
	const current = userSettings(user);
	const set: Record<string, unknown> = {};
	const changes: Record<string, unknown> = {};
	const unchanged: string[] = [];

	for (const [name, def] of Object.entries(USER_SETTINGS)) {
		const value = canonicalSetting(def, params[name]);
		if (value === undefined) continue;
		if (def.check && !def.check(value as string)) throw badRequest(`Invalid ${name}`);
		if (def.outOfRange && typeof value === "number" && (value < def.min! || value > def.max!)) throw badRequest(def.outOfRange(value));
		if (value === current[name]) {
			unchanged.push(name);
			continue;
		}
		set[TOP_LEVEL.has(name) ? name : `settings.${name}`] = value;
		changes[name] = value;
	}

	if (typeof params.full_name === "string") {
		const name = checkFullName(params.full_name);
		if (name === user.full_name) unchanged.push("full_name");
		else {
			if (realmSetting(db.realm, "realm_name_changes_disabled") && !isAdmin(actor.role)) {
				throw badRequest("Name changes are disabled in this organization. Contact an administrator to change your name.");
			}
			if (realmSetting(db.realm, "realm_require_unique_names")) await checkUniqueName(db.User, db.realm._id, name, user._id);
			set.full_name = changes.full_name = name;
		}
	}

	if (params.new_password !== undefined || params.old_password !== undefined) {
		if (params.new_password === undefined) throw missingArgument("new_password");
		if (params.old_password === undefined) throw missingArgument("old_password");
		if (!(await verifyPassword(params.old_password as string, user.password_hash))) throw badRequest("Wrong password!");
		checkPassword(params.new_password as string);
		set.password_hash = await hashPassword(params.new_password as string);
	}

	// The address changes only when the link sent to it is opened; this just starts that.
	let emailChange: (() => Promise<void>) | undefined;
	if (typeof params.email === "string") {
		if (params.email.trim().toLowerCase() === user.email_key) unchanged.push("email");
		else emailChange = await startEmailChange(db, actor, user, params.email);
	}

	await applyUpdate(db, user._id, set);
	await emailChange?.();
	return { changes, unchanged };
}
