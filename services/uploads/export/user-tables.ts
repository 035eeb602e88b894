// zerver_userprofile: each user's public fields. No credentials (API key, password) and no
// personal settings: a later export format adds what Zulip's holds beyond these.
//
// Zulip's rule for a public export (zerver/lib/export.py): a user's real address goes in only when
// administrators may see it; otherwise delivery_email is the address the API shows (a dummy).
import type { ExportUser } from "../../../shared/export-rows";
import type { Recipients } from "./recipients";
import type { Row } from "./tables";

/** Address visibilities under which administrators see the real address: everyone, members, administrators. */
const SEEN_BY_ADMINS = new Set([1, 2, 3]);

/** zerver_userprofile_crossrealm: the server's system bots, which messages may come from. */
export function crossRealmRows(bots: Array<{ id: number; email: string }>, recipients: Recipients): Row[] {
	return bots.map((b) => ({ id: b.id, email: b.email, recipient_id: recipients.user(b.id) ?? null }));
}

export function userRows(users: ExportUser[], realmId: number, recipients: Recipients, publicOnly: boolean): Row[] {
	return users.map((u) => ({
		id: u.id,
		realm: realmId,
		recipient: recipients.user(u.id) ?? null,
		email: u.email,
		delivery_email: publicOnly && !SEEN_BY_ADMINS.has(u.email_address_visibility) ? u.email : u.delivery_email,
		full_name: u.full_name,
		role: u.role,
		is_active: u.is_active,
		is_bot: u.is_bot,
		bot_type: u.bot_type,
		bot_owner: u.bot_owner_id,
		is_billing_admin: u.is_billing_admin,
		is_mirror_dummy: false,
		date_joined: u.date_joined,
		timezone: u.timezone,
		default_language: u.default_language,
		avatar_source: u.avatar_source,
		avatar_version: u.avatar_version,
		email_address_visibility: u.email_address_visibility,
		allow_private_data_export: u.allow_private_data_export,
	}));
}
