// What this server's importer (deploy/import/) makes of the parts of Zulip's export it does not
// turn into a document of its own, beside the row shapes of fl339-shapes.ts: the fields it knows
// and needs no report for, the fields it has no place for (reported per value), and why each
// table of realm.json no phase reads is not kept. Nothing is dropped silently: a field or table
// named nowhere here or in a phase is reported as having no place here yet.
import { REALM_IMAGE_FIELDS } from "./realm-table";

/**
 * zerver_userprofile's fields this server keeps elsewhere or derives, needing no report (its
 * personal settings aside): Zulip's own bookkeeping too (soft deactivation, the avatar's hash, the
 * terms' version its import resets, Django's groups and permissions, which its import drops too).
 */
export const USERPROFILE_HANDLED = new Set([
	"id", "realm", "recipient", "delivery_email", "email", "full_name", "date_joined", "is_active", "is_bot", "bot_type", "bot_owner", "role",
	"is_billing_admin", "timezone", "avatar_source", "avatar_version", "email_address_visibility", "can_change_user_emails", "can_create_users", "default_sending_stream",
	"default_events_register_stream", "default_all_public_streams", "groups", "user_permissions", "long_term_idle", "last_active_message_id",
	"avatar_hash", "tos_version",
]);

/**
 * zerver_userprofile's fields this server has no place for, reported for each user whose value is
 * not Zulip's default (so an export of this server's, which writes the defaults, reports none).
 */
export const USERPROFILE_UNKEPT: Record<string, { unset: (v: unknown) => boolean; why: string }> = {
	last_login: { unset: (v) => v == null, why: "last sign-in times" },
	last_reminder: { unset: (v) => v == null, why: "when the last reminder email was sent" },
	is_superuser: { unset: (v) => v !== true, why: "server administrator (superuser) flags" },
	is_staff: { unset: (v) => v !== true, why: "server staff flags" },
	is_mirror_dummy: { unset: (v) => v !== true, why: "Zephyr mirror dummy flags" },
	can_forge_sender: { unset: (v) => v !== true, why: "can_forge_sender permissions" },
	rate_limits: { unset: (v) => v == null || v === "", why: "per-user rate limits" },
	zoom_token: { unset: (v) => v == null, why: "Zoom accounts' tokens" },
};

/** zerver_realm's fields that are the organization's identity or bookkeeping, not settings (the images' are realm_icons/'s). */
export const REALM_IDENTITY = new Set(["id", "name", "description", "string_id", "uuid", "uuid_owner_secret", "date_created", "deactivated", ...REALM_IMAGE_FIELDS]);

/** Why each table of realm.json that no phase reads is not kept; any other table (one a newer Zulip adds) has no place here yet. */
export const UNREAD_TABLES: Record<string, string> = {
	zerver_presencesequence: "Zulip's presence bookkeeping",
	zerver_realmauditlog: "the organization's audit log (this server keeps none)",
	zerver_useractivity: "usage statistics (recomputed here)",
	zerver_useractivityinterval: "usage statistics (recomputed here)",
	zerver_onboardingstep: "onboarding progress (users see the onboarding hints again)",
	zerver_onboardingusermessage: "onboarding progress (users see the onboarding hints again)",
	zerver_userpresence: "presence (users appear offline until they come back)",
	zerver_realmexport: "the history of exports made on Zulip's server",
	zerver_realmauthenticationmethod: "sign-in methods (this server's own apply)",
	zerver_realmuserdefault: "defaults of new users' settings (fixed here)",
	zerver_realmdomain: "the organization's email domains (no place here yet)",
	zerver_userprofile_mirrordummy: "Zephyr mirror accounts (no place here)",
};
