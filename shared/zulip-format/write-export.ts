// Writes one export's archive: reads the organization's data through a source (source.ts: the
// public data through the services, or everything from the management CLI) in bulk (a page of
// users or messages, or a batch of channels, per call), turns it into Zulip's tables (one module
// per group of tables) and adds the files to the tarball:
//
//   <dir>/messages-000001.json ...  the messages, 1,000 a file (a full export: direct messages
//                                   too, and every user's flags on each)
//   <dir>/realm.json                the organization, its users, channels, subscriptions, groups,
//                                   its data exports; a full export: users' settings, topics,
//                                   alert words, muted users, linkifiers, emoji, scheduled messages...
//   <dir>/attachment.json           uploaded files (a full export's; none in a public one)
//   <dir>/uploads/ emoji/ avatars/ realm_icons/   the stored files with their records.json (full)
//   <dir>/stats.json                how many rows each table holds
//   <dir>/migration_status.json     the Zulip version the export is shaped for
//   <dir>/analytics.json            usage statistics (empty: this server exports none)
//
// What Zulip's own import requires of these files beyond the rows is in zulip-import-tables.ts.
//
// Memory stays flat in the messages: one page (a file's worth) is held at a time; what realm.json
// needs of them (reactions, the sending clients, group DMs) is gathered as they pass.
//
// `progress` is called after each page read and each file written (with the phase and how many
// items the step wrote, for a progress line), so a stalled export can be
// told from a slow one.
import { EXPORT_CHANNEL_BATCH, EXPORT_PAGE, type ExportRealm, type ExportReaction, type ExportSubscription, type ExportUser } from "../export-rows";
import { channelTables, withGroupDms } from "./channel-tables";
import { FileFolders } from "./file-folders";
import { inFl339Shapes } from "./fl339-shapes";
import { attachmentRows, fullTables } from "./full-tables";
import { groupTables } from "./group-tables";
import { Clients, MESSAGES_PER_FILE, messageFile, messageFileName, reactionRows } from "./message-files";
import { profileFieldTables } from "./profile-field-tables";
import { realmRows } from "./realm-table";
import { Recipients } from "./recipients";
import type { ExportSource, FullExtras } from "./source";
import { JsonFile, type Tables } from "./tables";
import { botTables, crossRealmRows, userRows } from "./user-tables";
import { ANALYTICS, IMPORT_SOURCE, MIGRATION_STATUS, withImportTables, type RealmExported } from "./zulip-import-tables";
import { clock } from "../clock";
import { messageFileMoved } from "../transfer-garbage";

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2));

/** One step of an export: its phase, and how many users, subscriptions, messages, files or tables it wrote. */
export interface ExportStep {
	phase: "users" | "subscriptions" | "messages" | "files" | "tables";
	count: number;
}
export type ExportProgress = (step: ExportStep) => Promise<void>;

/** Where the files go, one at a time: the .tar.gz (the uploads service's worker, the management CLI). */
export interface ExportArchive {
	add(name: string, data: Buffer): Promise<void>;
}

async function allUsers(source: ExportSource, progress: ExportProgress): Promise<ExportUser[]> {
	const out: ExportUser[] = [];
	for (let after = 0; ; ) {
		const users = await source.users(after, EXPORT_PAGE);
		out.push(...users);
		await progress({ phase: "users", count: users.length });
		if (users.length < EXPORT_PAGE) return out;
		after = users[users.length - 1].id;
	}
}

async function allSubscriptions(source: ExportSource, channelIds: number[], progress: ExportProgress): Promise<ExportSubscription[]> {
	const out: ExportSubscription[] = [];
	for (let i = 0; i < channelIds.length; i += EXPORT_CHANNEL_BATCH) {
		const batch = await source.subscriptions(channelIds.slice(i, i + EXPORT_CHANNEL_BATCH));
		out.push(...batch);
		await progress({ phase: "subscriptions", count: batch.length });
	}
	return out;
}

/**
 * `publicOnly`: Zulip's public export (a hidden address replaced by the one the API shows).
 * `ownTables`: the uploads service's own tables (zerver_realmexport), read by the caller.
 * `exported`: who asked for this export and its zerver_realmexport row, for its REALM_EXPORTED
 * audit entry (none for the management CLI's). Returns each table's row count (Zulip's `stats`).
 */
export async function writeExport(
	source: ExportSource,
	tarball: ExportArchive,
	dir: string,
	realm: ExportRealm,
	publicOnly: boolean,
	ownTables: Tables,
	progress: ExportProgress,
	exported: RealmExported = { acting_user: null, realm_export_id: null },
): Promise<Record<string, number>> {
	const users = await allUsers(source, progress);
	const { channels, default_channel_ids } = await source.channels();
	const channelIds = channels.map((c) => c.id);
	const subscriptions = await allSubscriptions(source, channelIds, progress);
	const recipients = new Recipients(
		users.map((u) => u.id),
		channelIds,
		realm.cross_realm_bots.map((b) => b.id),
	);
	// Only the organization's users have per-user message rows in Zulip's export (its
	// fetch_usermessages reads the realm's users): none for a system bot.
	const realmUserIds = new Set(users.map((u) => u.id));
	const stats: Record<string, number> = {};
	const count = (tables: Tables) => {
		for (const [name, rows] of Object.entries(tables)) stats[name] = (stats[name] ?? 0) + rows.length;
	};

	const clients = new Clients();
	const reactions: ExportReaction[] = [];
	const rowIds = { next: 1 };
	let files = 0;
	let lastMessageId = -1;
	for (let after = 0; channelIds.length || source.full; ) {
		const page = await source.messages(channelIds, after, MESSAGES_PER_FILE);
		const { messages } = page;
		if (!messages.length) break;
		lastMessageId = Math.max(lastMessageId, ...messages.map((m) => m.id));
		reactions.push(...page.reactions);
		const userMessages = source.full ? (await source.full.userMessages(messages.map((m) => m.id))).filter((r) => realmUserIds.has(r.user_id)) : [];
		const file = messageFile(messages, realm.id, recipients, clients, userMessages, rowIds);
		count(file);
		await tarball.add(`${dir}/${messageFileName(++files)}`, json(file));
		messageFileMoved();
		await progress({ phase: "messages", count: messages.length });
		if (messages.length < MESSAGES_PER_FILE) break;
		after = messages[messages.length - 1].id;
	}

	const extras = source.full ? await source.full.extras() : undefined;
	const folders = new FileFolders(realm.id, new Map(users.map((u) => [u.id, u])));
	if (source.full) {
		for await (const f of source.full.files()) {
			await tarball.add(`${dir}/${folders.add(f)}`, f.bytes);
			await progress({ phase: "files", count: 1 });
		}
	}

	const graph = await source.groupGraph();
	const groups = groupTables(realm.id, graph, await source.full?.groupDetails());
	const groupSettings = Object.fromEntries(Object.entries(graph.realm).map(([key, value]) => [key, groups.settingGroup(value)]));
	const everyone = graph.groups.find((g) => g.name === "role:everyone")?.id ?? 0;
	const written: Tables = {
		zerver_realm: realmRows(realm, { ...groupSettings, ...realmImageFields(extras) }),
		...groups.tables,
		zerver_userprofile: userRows(users, realm.id, recipients, publicOnly),
		zerver_userprofile_crossrealm: crossRealmRows(realm.cross_realm_bots, recipients),
		...(extras && fullTables(realm.id, extras, recipients, clients)),
		...(extras && botTables(users)),
		...withGroupDms(channelTables(realm.id, channels, default_channel_ids, subscriptions, users, recipients, groups.settingGroup), recipients, users),
		zerver_reaction: reactionRows(reactions),
		...profileFieldTables(realm.id, realm.profile_fields, users),
		zerver_client: clients.rows(),
		...ownTables,
	};
	const tables = inFl339Shapes(withImportTables(written, {
		realmId: realm.id,
		userDefaults: realm.user_defaults,
		dateCreated: realm.date_created,
		subscriptions: written.zerver_subscription,
		channelRecipients: new Map(channelIds.map((id) => [id, recipients.channel(id)!])),
		lastMessageId,
		// With its milliseconds: Zulip's timestamps are floats (microseconds).
		now: clock.nowMs() / 1000,
		exported,
	}), everyone);
	count(tables);
	await tarball.add(`${dir}/${JsonFile.REALM}`, json({ ...tables, import_source: IMPORT_SOURCE }));
	const attachments: Tables = { zerver_attachment: extras ? attachmentRows(realm.id, extras) : [] };
	count(attachments);
	await tarball.add(`${dir}/${JsonFile.ATTACHMENTS}`, json(attachments));
	// Every folder's records.json, even a public export's (empty): Zulip's import opens avatars/ and uploads/ whatever the export holds.
	for (const [name, rows] of folders.recordFiles()) await tarball.add(`${dir}/${name}`, json(rows));
	count(ANALYTICS);
	await tarball.add(`${dir}/${JsonFile.ANALYTICS}`, json(ANALYTICS));
	await tarball.add(`${dir}/${JsonFile.MIGRATION_STATUS}`, json(MIGRATION_STATUS));
	await tarball.add(`${dir}/${JsonFile.STATS}`, json(stats));
	await progress({ phase: "tables", count: Object.keys(stats).length });
	return stats;
}

/** zerver_realm's icon and logo fields: uploaded ("U") with their versions, where a full export holds them. */
function realmImageFields(extras: FullExtras | undefined): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [kind, image] of Object.entries(extras?.realm_images ?? {})) Object.assign(out, { [`${kind}_source`]: "U", [`${kind}_version`]: image.version });
	return out;
}
