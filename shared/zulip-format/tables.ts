// What the modules of an export share: a table is a list of rows, as Zulip's export holds them
// (zerver/lib/export.py: one JSON object of tables per file). Each group of tables has a module of
// its own (realm-table.ts, user-tables.ts, channel-tables.ts, message-files.ts); a later table is
// a new module whose rows the writer (write-export.ts) adds to realm.json.

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
export const ExportFile = {
	REALM: "realm.json",
	ATTACHMENTS: "attachment.json",
	ANALYTICS: "analytics.json",
	MIGRATION_STATUS: "migration_status.json",
	STATS: "stats.json",
} as const;
