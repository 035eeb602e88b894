// What Zulip's own import (`manage.py import`: zerver/lib/import_realm.py, do_import_realm and the
// helpers it calls, as of feature level 339) requires of an export beyond the rows the other
// modules write, and the rows this server builds for it. Checked by reading Zulip's code, and by
// the round-trip test's assertions of what that code relies on (docs/migration.md); no Zulip
// server runs here.
//
// The import fails (KeyError, FileNotFoundError) when any of these is missing:
//   - migration_status.json: opened first; its `zulip_version` and `migrations_by_app` must match
//     the importing server's (check_migration_status), or the import refuses to start;
//   - realm.json's tables in REQUIRED_TABLES, read as `data[table]` whatever the export holds;
//   - avatars/records.json and uploads/records.json, opened whatever the export holds
//     (emoji/ and realm_icons/ only when the folder exists; analytics.json only when the file
//     exists, and then all three of its tables);
//   - attachment.json and, per messages-NNNNNN.json, zerver_message and zerver_usermessage.
// Each row becomes its model (`Model(**row)`): an unknown field fails the import (fl339-shapes.ts
// keeps the rows to the feature level's fields) and each field it converts or remaps must be there.
import migrationStatus from "./fl339-migration-status.json";
import type { Row, Tables } from "./tables";

/** The tables do_import_realm reads unconditionally (zerver_usergroup's two only with it). */
export const REQUIRED_TABLES = [
	"zerver_realm", "zerver_userprofile", "zerver_userprofile_mirrordummy", "zerver_userprofile_crossrealm", "zerver_client",
	"zerver_stream", "zerver_huddle", "zerver_recipient", "zerver_subscription", "zerver_defaultstream", "zerver_realmauthenticationmethod",
	"zerver_realmemoji", "zerver_realmdomain", "zerver_realmfilter", "zerver_realmplayground", "zerver_userpresence", "zerver_useractivity",
	"zerver_useractivityinterval", "zerver_customprofilefield", "zerver_customprofilefieldvalue", "zerver_reaction",
	"zerver_usergroupmembership", "zerver_groupgroupmembership",
] as const;

/**
 * Tables the import reads only when present, which Zulip's export always writes: empty here, as
 * this server keeps nothing of them (onboarding hints, Zephyr mirror accounts, usage intervals,
 * outgoing-webhook services, bots' configuration). Written so the export holds every table the
 * sample does. zerver_userpresence (required above) is empty too: presence is not exported.
 */
const EMPTY_TABLES = ["zerver_onboardingstep", "zerver_onboardingusermessage", "zerver_service", "zerver_botconfigdata", "zerver_botstoragedata", "zerver_alertword", "zerver_muteduser", "zerver_usertopic", "zerver_userstatus", "zerver_scheduledmessage"];

/** Zulip's RealmAuditLog event types the export writes (zerver/models/realm_audit_logs.py). */
export const AuditEvent = { REALM_EXPORTED: 206, REALM_CREATED: 215, SUBSCRIPTION_CREATED: 301, SUBSCRIPTION_DEACTIVATED: 303 } as const;

/**
 * zerver_realm's zulip_update_announcements_level: how many of Zulip's "Zulip updates" notices the
 * organization has had. Zulip gives a new organization the latest level (do_create_realm) and its
 * cron job brings every organization up to it, so an organization on a feature level 339 server
 * holds that version's latest: 11, as the sample export shows. Left null, Zulip's import would
 * treat the organization as one that predates the feature (a group DM to the administrators, as
 * for an organization imported from another product); at 11, the imported organization gets only
 * the notices newer than feature level 339, in its zulip_update_announcements_stream.
 */
export const ZULIP_UPDATE_ANNOUNCEMENTS_LEVEL = 11;

/**
 * The export's own REALM_EXPORTED entry: who asked (null for the management CLI, as Zulip's
 * `manage.py export`) and the zerver_realmexport row it writes (none for the CLI).
 */
export interface RealmExported {
	acting_user: number | null;
	realm_export_id: number | null;
}

/** The sign-in method this server has (Zulip's backend name): email and password only. */
export const OWN_AUTH_METHODS = ["Email"];

/**
 * zerver_realmuserdefault's settings: this server's defaults for new users' personal settings
 * (`defaults`, by setting name: fixed here, the users service's; ExportRealm.user_defaults), but
 * the time zone, which is no field of that table. The importer compares a sample's row with it.
 */
export function userDefaults(defaults: Record<string, unknown>): Row {
	const out: Row = {};
	for (const [name, value] of Object.entries(defaults)) if (name !== "timezone") out[name] = value;
	return out;
}

export interface ImportTableInput {
	realmId: number;
	/** The defaults of new users' personal settings, by setting name (ExportRealm.user_defaults). */
	userDefaults: Record<string, unknown>;
	/** zerver_realm's date_created (UNIX seconds). */
	dateCreated: number;
	/** The subscriptions the export holds (zerver_subscription) and the channel recipients' IDs. */
	subscriptions: Row[];
	channelRecipients: Map<number, number>;
	/** The highest message ID the export holds (-1 for none), as Zulip's own synthesized entries carry. */
	lastMessageId: number;
	/** When the export is written (UNIX seconds, with their fraction). */
	now: number;
	exported: RealmExported;
}

/**
 * The tables Zulip's import needs that no other module writes, added where `tables` lacks them.
 *
 * Decisions (each where Zulip's import would otherwise go wrong):
 *   - zerver_presencesequence: one row. Zulip creates the realm's PresenceSequence only when the
 *     table is absent; an empty list would leave the realm without one, which its presence code
 *     requires. last_update_id 0: no presence is exported.
 *   - zerver_realmauthenticationmethod: a row per sign-in method this server has, so the imported
 *     organization can sign in by email and password (an empty table would enable none).
 *   - zerver_realmuserdefault: the defaults this server gives new users (Zulip would otherwise
 *     make its own defaults, which differ: dense_mode, user_list_style).
 *   - zerver_realmauditlog: this server keeps no audit log. With the table present (even empty)
 *     Zulip skips what it does for exports without one (subscription_created entries, which its
 *     soft deactivation reads to give returning users their messages), so those entries are
 *     written here as Zulip would make them (and a subscription_deactivated for a subscription
 *     left since), with the realm_created entry its invariant wants;
 *     all marked `backfilled` (reconstructed, not history), which is how this server's importer
 *     tells them from a real audit log.
 *   - and a REALM_EXPORTED entry (not backfilled: the export is a real event), as Zulip's export
 *     writes one for each export (export_realm_wrapper: the acting user, `realm_export_id` in its
 *     extra data). Feature level 339's import takes an organization with such an entry for one
 *     that comes from another Zulip server; without it, it sends the administrators the "Zulip
 *     updates" group DM meant for an organization imported from another product.
 */
export function withImportTables(tables: Tables, x: ImportTableInput): Tables {
	const out: Tables = {
		zerver_presencesequence: [{ id: 1, realm: x.realmId, last_update_id: 0 }],
		zerver_realmauthenticationmethod: OWN_AUTH_METHODS.map((name, i) => ({ id: i + 1, realm: x.realmId, name })),
		zerver_realmuserdefault: [{ id: 1, realm: x.realmId, ...userDefaults(x.userDefaults) }],
		zerver_realmauditlog: auditLogRows(x),
		...tables,
	};
	for (const name of [...REQUIRED_TABLES, ...EMPTY_TABLES]) out[name] ??= [];
	return out;
}

function auditLogRows(x: ImportTableInput): Row[] {
	const entry = (event_type: number, event_time: number, who: number | null, stream: number | null): Row => ({
		event_time,
		backfilled: true,
		extra_data: {},
		event_type,
		realm: x.realmId,
		acting_user: who,
		modified_user: who,
		modified_stream: stream,
		modified_user_group: null,
		event_last_message_id: stream === null ? null : x.lastMessageId,
	});
	const rows = [entry(AuditEvent.REALM_CREATED, x.dateCreated, null, null)];
	rows.push({
		...entry(AuditEvent.REALM_EXPORTED, x.now, x.exported.acting_user, null),
		backfilled: false,
		modified_user: null,
		extra_data: x.exported.realm_export_id === null ? {} : { realm_export_id: x.exported.realm_export_id },
	});
	const streamOf = new Map([...x.channelRecipients].map(([channel, recipient]) => [recipient, channel]));
	for (const sub of x.subscriptions) {
		const stream = streamOf.get(sub.recipient as number);
		if (stream === undefined) continue;
		rows.push(entry(AuditEvent.SUBSCRIPTION_CREATED, x.now, sub.user_profile as number, stream));
		// One left since: its subscription's history ends, as soft deactivation reads it.
		if (sub.active === false) rows.push(entry(AuditEvent.SUBSCRIPTION_DEACTIVATED, x.now, sub.user_profile as number, stream));
	}
	return rows.map((r, i) => ({ id: i + 1, ...r }));
}

/**
 * migration_status.json: feature level 339's (the sample's, Zulip 10.0-dev). Zulip's import
 * compares it with the importing server's own and refuses any difference, so the export says
 * plainly which Zulip it is shaped for; importing into another version needs that version's file.
 */
export const MIGRATION_STATUS = migrationStatus;

/** analytics.json: the three tables Zulip's import reads once the file exists; this server exports no statistics. */
export const ANALYTICS: Tables = { analytics_realmcount: [], analytics_usercount: [], analytics_streamcount: [] };

/**
 * realm.json's `import_source`: newer Zulip imports pop it unconditionally (and then skip what they
 * do for other products' exports: Welcome Bot messages, default announcement channels); feature
 * level 339's import ignores it.
 */
export const IMPORT_SOURCE = "zulip";
