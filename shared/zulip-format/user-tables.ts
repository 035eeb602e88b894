// zerver_userprofile: each user's public fields, and in a full export their personal settings
// and private fields (never credentials: no API key, no password, as Zulip's export); zerver_service
// and zerver_botconfigdata, bots' outgoing services and configuration (full export).
//
// Zulip's rule for a public export (zerver/lib/export.py): a user's real address goes in only when
// administrators may see it; otherwise delivery_email is the address the API shows (a dummy).
import { isIP } from "node:net";
import type { ExportUser } from "../export-rows";
import type { Recipients } from "./recipients";
import type { Row, Tables } from "./tables";

/** Address visibilities under which administrators see the real address: everyone, members, administrators. */
const SEEN_BY_ADMINS = new Set([1, 2, 3]);

/** zerver_userprofile_crossrealm: the server's system bots, which messages may come from. */
export function crossRealmRows(bots: Array<{ id: number; email: string }>, recipients: Recipients): Row[] {
	return bots.map((b) => ({ id: b.id, email: b.email, recipient_id: recipients.user(b.id) ?? null }));
}

/**
 * An address as Zulip's import accepts it: it validates both of a user's addresses (Django's
 * validate_email), and the dummy addresses the API shows name the organization's host, which may
 * carry a port or be an IP address, neither valid there. The port is dropped and an IP address
 * written as an address literal (`user5@[192.0.2.1]`), the same host in a form Django accepts.
 */
export function importableAddress(address: string): string {
	const at = address.lastIndexOf("@");
	if (at < 0) return address;
	const domain = address.slice(at + 1);
	const host = domain.startsWith("[") ? domain.slice(1, domain.indexOf("]")) : domain.replace(/:\d+$/, "");
	return `${address.slice(0, at)}@${isIP(host) ? `[${host}]` : host}`;
}

export function userRows(users: ExportUser[], realmId: number, recipients: Recipients, publicOnly: boolean): Row[] {
	return users.map((u) => ({
		...u.private?.settings,
		...(u.private && {
			can_change_user_emails: u.private.can_change_user_emails,
			default_sending_stream: u.private.default_sending_stream_id,
			default_events_register_stream: u.private.default_events_register_stream_id,
			default_all_public_streams: u.private.default_all_public_streams,
		}),
		id: u.id,
		realm: realmId,
		recipient: recipients.user(u.id) ?? null,
		email: importableAddress(u.email),
		delivery_email: importableAddress(publicOnly && !SEEN_BY_ADMINS.has(u.email_address_visibility) ? u.email : u.delivery_email),
		full_name: u.full_name,
		role: u.role,
		is_active: u.is_active,
		is_bot: u.is_bot,
		bot_type: u.bot_type,
		bot_owner: u.bot_owner_id,
		is_billing_admin: u.is_billing_admin,
		is_mirror_dummy: false,
		can_create_users: u.can_create_users,
		date_joined: u.date_joined,
		// Zulip's import reads each of its date fields from every row (DATE_FIELDS): none kept here.
		last_login: null,
		last_reminder: null,
		timezone: u.timezone,
		default_language: u.default_language,
		avatar_source: u.avatar_source,
		avatar_version: u.avatar_version,
		email_address_visibility: u.email_address_visibility,
		allow_private_data_export: u.allow_private_data_export,
	}));
}

/** zerver_service and zerver_botconfigdata: what a full export holds of bots. */
export function botTables(users: ExportUser[]): Tables {
	const zerver_service: Row[] = [];
	const zerver_botconfigdata: Row[] = [];
	for (const u of users) {
		const service = u.private?.bot_service;
		if (service) zerver_service.push({ id: zerver_service.length + 1, name: service.name, user_profile: u.id, base_url: service.base_url, token: service.token, interface: service.interface });
		for (const [key, value] of Object.entries(u.private?.bot_config ?? {})) zerver_botconfigdata.push({ id: zerver_botconfigdata.length + 1, bot_profile: u.id, key, value });
	}
	return { zerver_service, zerver_botconfigdata };
}
