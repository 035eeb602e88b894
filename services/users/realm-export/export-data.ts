// The users service's part of an organization export (shared/zulip-format/): the organization
// with the facts that decide whether an export may start, its users page by page (public fields
// only), and each user's consent to a private data export (GET /export/realm/consents).
// Query shapes and their indexes (../models/user.ts):
//   owners / administrators of the organization -> { realm_id, role }
//   the organization's users in ID order, a page  -> { realm_id, _id }
//   the server's system bots (realm 0)              -> { realm_id, _id }
import type { ExportRealm, ExportUser } from "../../../shared/export-rows";
import type { ExportConsentChanged } from "../../../shared/org-events";
import { Role } from "../../../shared/roles";
import type { UsersDb, UsersReads } from "../db";
import type { UserDoc } from "../models/user";
import { REALM_SETTING_DEFAULTS, realmSetting, realmHost } from "../realm/realm-settings";
import { systemBots } from "../accounts/system-bots";
import { listFields } from "../profile-fields/profile-field-store";
import { USER_SETTINGS } from "../settings/user-settings";
import { apiEmail, Visibility } from "../user-view";

/** Address visibilities under which administrators see the real address (Zulip's, for check_public_export_is_usable). */
const SEEN_BY_ADMINS: number[] = [Visibility.EVERYONE, Visibility.MEMBERS, Visibility.ADMINS];

const consentOf = (u: Pick<UserDoc, "settings">): boolean => (u.settings?.allow_private_data_export ?? USER_SETTINGS.allow_private_data_export.default) === true;

/** The organization as an export needs it. */
export async function exportRealm(db: UsersReads): Promise<ExportRealm> {
	const realm = db.realm;
	const admins = await db.User.find({ realm_id: realm._id, role: { $in: [Role.OWNER, Role.ADMINISTRATOR] } }, { _id: 1, role: 1, is_active: 1, is_bot: 1, email_address_visibility: 1, settings: 1 }).lean();
	const humanAdmins = admins.filter((u) => u.is_active && !u.is_bot);
	const owners = humanAdmins.filter((u) => u.role === Role.OWNER);
	const settings: Record<string, unknown> = {};
	for (const key of Object.keys(REALM_SETTING_DEFAULTS)) settings[key.replace(/^realm_/, "")] = realmSetting(realm, key);
	for (const [key, value] of Object.entries(realm.settings ?? {})) settings[key.replace(/^realm_/, "")] ??= value;
	return {
		id: realm._id,
		string_id: realm.string_id,
		name: realm.name,
		description: realm.description,
		url: realm.url,
		date_created: realm.date_created,
		deactivated: realm.deactivated,
		settings,
		public_export_usable: owners.some((u) => SEEN_BY_ADMINS.includes(u.email_address_visibility)),
		consent_export_usable: owners.some(consentOf),
		admin_user_ids: humanAdmins.map((u) => u._id).sort((a, b) => a - b),
		cross_realm_bots: (await systemBots(db.User)).map((b) => ({ id: b._id, email: b.delivery_email })),
		profile_fields: (await listFields(db)).map((f) => ({
			id: f._id,
			name: f.name,
			hint: f.hint,
			field_type: f.type,
			field_data: f.field_data,
			order: f.order,
			display_in_profile_summary: f.display_in_profile_summary,
			required: f.required,
			editable_by_user: f.editable_by_user,
		})),
		user_defaults: Object.fromEntries(Object.entries(USER_SETTINGS).map(([name, def]) => [name, def.default])),
	};
}

/** The users after `afterId` in ID order, at most `limit`, as an export holds them. */
export async function exportUsers(db: UsersReads, afterId: number, limit: number): Promise<ExportUser[]> {
	const host = realmHost(db.realm);
	const users = await db.User.find({ realm_id: db.realm._id, _id: { $gt: afterId } }).sort({ _id: 1 }).limit(limit).lean();
	return users.map((u) => ({
		id: u._id,
		email: apiEmail(u, host),
		delivery_email: u.delivery_email,
		full_name: u.full_name,
		role: u.role,
		is_active: u.is_active,
		is_bot: u.is_bot,
		bot_type: u.bot_type,
		bot_owner_id: u.bot_owner_id,
		is_billing_admin: u.is_billing_admin,
		date_joined: u.date_joined.getTime() / 1000,
		timezone: u.timezone,
		default_language: String(u.settings?.default_language ?? USER_SETTINGS.default_language.default),
		avatar_source: u.avatar_source,
		avatar_version: u.avatar_version,
		email_address_visibility: u.email_address_visibility,
		allow_private_data_export: consentOf(u),
		can_create_users: u.can_create_users ?? false,
		profile_data: u.profile_data ?? {},
	}));
}

/** The active human administrators (owners included), in ID order: who hears of exports and consents. */
export async function humanAdminIds(db: UsersDb): Promise<number[]> {
	const admins = await db.User.find({ realm_id: db.realm._id, role: { $in: [Role.OWNER, Role.ADMINISTRATOR] } }, { _id: 1, is_active: 1, is_bot: 1 }).lean();
	return admins.filter((u) => u.is_active && !u.is_bot).map((u) => u._id).sort((a, b) => a - b);
}

/** Zulip's realm_export_consent for a human user: their consent now, to the administrators (null for a bot or no user). */
export async function consentEvent(db: UsersDb, userId: number): Promise<ExportConsentChanged | null> {
	const user = await db.User.findOne({ _id: userId, realm_id: db.realm._id }, { _id: 1, is_bot: 1, settings: 1 }).lean();
	if (!user || user.is_bot) return null;
	return { user_ids: await humanAdminIds(db), user_id: user._id, consented: consentOf(user) };
}

/** Zulip's get_users_export_consents: each active human user and whether they consent, in ID order. */
export async function exportConsents(db: UsersDb): Promise<Array<{ user_id: number; consented: boolean }>> {
	const users = await db.User.find({ realm_id: db.realm._id, is_active: true, is_bot: false }, { _id: 1, settings: 1 }).sort({ _id: 1 }).lean();
	return users.map((u) => ({ user_id: u._id, consented: consentOf(u) }));
}
