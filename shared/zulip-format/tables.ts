// Zulip's export format (feature level 339's), both directions: this folder is where it lives.
// Writing: write-export.ts reads an organization through a source (source.ts) and turns it into
// Zulip's tables, a module per group of tables (realm-table.ts, user-tables.ts, channel-tables.ts,
// group-tables.ts, message-files.ts, ...; a later table is a new module whose rows the writer adds
// to realm.json), shaped to the feature level's fields (fl339-shapes.ts), with what Zulip's own
// import requires (zulip-import-tables.ts). Reading (the importer, deploy/import/): an export's
// tarball or directory (export-reader.ts), its files and records (records.ts, file-records.ts), and
// what the importer makes of what it keeps no document for (import-coverage.ts).
//
// What the modules share: a table is a list of rows, as Zulip's export holds them
// (zerver/lib/export.py: one JSON object of tables per file), and Zulip's values both directions name.

export type Row = Record<string, unknown>;
export type Tables = Record<string, Row[]>;

/** Zulip's Recipient.type values. */
export const RecipientType = { PERSONAL: 1, STREAM: 2, DIRECT_MESSAGE_GROUP: 3 } as const;

/** Zulip's Message.type values: an ordinary message, or a resolved-topic notice. */
export const MessageType = { NORMAL: 1, RESOLVE_TOPIC_NOTIFICATION: 2 } as const;

/** Zulip's ScheduledMessage.delivery_type values: a message sent later, or a reminder. */
export const DeliveryType = { SEND_LATER: 1, REMINDER: 2 } as const;

/**
 * The folders of stored files, each with its records.json (Zulip's layout: uploads/ message
 * attachments, emoji/ custom emoji images, avatars/ uploaded avatars, realm_icons/ the
 * organization's icon and logos).
 */
export const FILE_FOLDERS = ["uploads", "emoji", "avatars", "realm_icons"] as const;
export type FileFolder = (typeof FILE_FOLDERS)[number];

/** The export's JSON files beside the message files (message-files.ts) and the folders' records.json. */
export const JsonFile = {
	REALM: "realm.json",
	ATTACHMENTS: "attachment.json",
	ANALYTICS: "analytics.json",
	MIGRATION_STATUS: "migration_status.json",
	STATS: "stats.json",
} as const;
