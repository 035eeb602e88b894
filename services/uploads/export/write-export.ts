// Writes one export's archive: reads the organization's public data from the services in bulk
// (a page of users or messages, or a batch of channels, per call), turns it into Zulip's tables
// (one module per group of tables) and adds the files to the tarball:
//
//   <dir>/messages-000001.json ...  the messages of the public channels, 1,000 a file
//   <dir>/realm.json                the organization, its users, public channels, subscriptions,
//                                   its data exports
//   <dir>/attachment.json           uploaded files (none yet: a later part of the format)
//   <dir>/stats.json                how many rows each table holds
//
// `progress` is called after each page read and each file written, so a stalled export can be
// told from a slow one.
import { call, type Caller } from "../../../shared/actions";
import { EXPORT_CHANNEL_BATCH, EXPORT_PAGE, type ExportRealm, type ExportReaction, type ExportSubscription, type ExportUser } from "../../../shared/export-rows";
import { channelTables } from "./channel-tables";
import { groupTables } from "./group-tables";
import { Clients, MESSAGES_PER_FILE, messageFile, messageFileName, reactionRows } from "./message-files";
import { profileFieldTables } from "./profile-field-tables";
import { realmRows } from "./realm-table";
import { Recipients } from "./recipients";
import type { TarballWriter } from "./tarball";
import type { Tables } from "./tables";
import { ExportType } from "../models/realm-export";
import { crossRealmRows, userRows } from "./user-tables";

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2));

async function allUsers(bus: Caller, progress: () => Promise<void>): Promise<ExportUser[]> {
	const out: ExportUser[] = [];
	for (let after = 0; ; ) {
		const { users } = await call(bus, "users.exportUsers", { after_id: after, limit: EXPORT_PAGE });
		out.push(...users);
		await progress();
		if (users.length < EXPORT_PAGE) return out;
		after = users[users.length - 1].id;
	}
}

async function allSubscriptions(bus: Caller, channelIds: number[], progress: () => Promise<void>): Promise<ExportSubscription[]> {
	const out: ExportSubscription[] = [];
	for (let i = 0; i < channelIds.length; i += EXPORT_CHANNEL_BATCH) {
		const { subscriptions } = await call(bus, "channels.exportSubscriptions", { channel_ids: channelIds.slice(i, i + EXPORT_CHANNEL_BATCH) });
		out.push(...subscriptions);
		await progress();
	}
	return out;
}

/**
 * `ownTables`: the uploads service's own tables (zerver_realmexport), read by the caller. Returns
 * each table's row count (Zulip's `stats`).
 */
export async function writeExport(
	bus: Caller,
	tarball: TarballWriter,
	dir: string,
	realm: ExportRealm,
	exportType: number,
	ownTables: Tables,
	progress: () => Promise<void>,
): Promise<Record<string, number>> {
	const users = await allUsers(bus, progress);
	const { channels, default_channel_ids } = await call(bus, "channels.exportChannels", {});
	const channelIds = channels.map((c) => c.id);
	const subscriptions = await allSubscriptions(bus, channelIds, progress);
	const recipients = new Recipients(
		[...users.map((u) => u.id), ...realm.cross_realm_bots.map((b) => b.id)],
		channelIds,
	);
	const stats: Record<string, number> = {};
	const count = (tables: Tables) => {
		for (const [name, rows] of Object.entries(tables)) stats[name] = (stats[name] ?? 0) + rows.length;
	};

	const clients = new Clients();
	const reactions: ExportReaction[] = [];
	let files = 0;
	for (let after = 0; channelIds.length; ) {
		const page = await call(bus, "messages.exportMessages", { channel_ids: channelIds, after_id: after, limit: MESSAGES_PER_FILE });
		const { messages } = page;
		if (!messages.length) break;
		reactions.push(...page.reactions);
		const file = messageFile(messages, realm.id, recipients, clients);
		count(file);
		await tarball.add(`${dir}/${messageFileName(++files)}`, json(file));
		await progress();
		if (messages.length < MESSAGES_PER_FILE) break;
		after = messages[messages.length - 1].id;
	}

	const graph = await call(bus, "users.groupGraph", {});
	const groups = groupTables(realm.id, graph);
	const groupSettings = Object.fromEntries(Object.entries(graph.realm).map(([key, value]) => [key, groups.settingGroup(value)]));
	const tables: Tables = {
		zerver_realm: realmRows(realm, groupSettings),
		...groups.tables,
		zerver_userprofile: userRows(users, realm.id, recipients, exportType === ExportType.PUBLIC),
		zerver_userprofile_crossrealm: crossRealmRows(realm.cross_realm_bots, recipients),
		...channelTables(realm.id, channels, default_channel_ids, subscriptions, users, recipients, groups.settingGroup),
		zerver_reaction: reactionRows(reactions),
		...profileFieldTables(realm.id, realm.profile_fields, users),
		zerver_client: clients.rows(),
		...ownTables,
	};
	count(tables);
	await tarball.add(`${dir}/realm.json`, json(tables));
	// Zulip's exports always hold attachment.json; uploaded files are a later part of the format.
	const attachments: Tables = { zerver_attachment: [] };
	count(attachments);
	await tarball.add(`${dir}/attachment.json`, json(attachments));
	await tarball.add(`${dir}/stats.json`, json(stats));
	await progress();
	return stats;
}
