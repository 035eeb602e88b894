// What the modules of an export share: a table is a list of rows, as Zulip's export holds them
// (zerver/lib/export.py: one JSON object of tables per file). Each group of tables has a module of
// its own (realm-table.ts, user-tables.ts, channel-tables.ts, message-files.ts); a later table is
// a new module whose rows the writer (write-export.ts) adds to realm.json.

export type Row = Record<string, unknown>;
export type Tables = Record<string, Row[]>;

/** Zulip's Recipient.type values. */
export const RecipientType = { PERSONAL: 1, STREAM: 2, DIRECT_MESSAGE_GROUP: 3 } as const;
