// Imports a Zulip export (a directory or its .tar.gz, as `manage.py export` writes it) into a
// database prefix that holds no organization yet. The phases run in the order their IDs are
// needed; a failure in any of them drops what was written (import-target.ts).
import fs from "node:fs";
import path from "node:path";
import type { ImportContext } from "./context";
import { importAvatars } from "./avatars";
import { importChannels } from "./channels";
import { importEmoji } from "./emoji";
import { openExport } from "../../shared/zulip-format/export-reader";
import { importExtras, importProfileFields } from "./extras";
import { importGroups } from "./groups";
import { Ids } from "./ids";
import { openTarget } from "./import-target";
import { countMessages, importMessages, importReactions, messageFiles } from "./messages";
import { Progress } from "../progress";
import { importRealm } from "./realm";
import { reportReconstructed } from "./reconstructed";
import { mergeNewerFields, NEWER_FIELDS_TABLE } from "../../shared/zulip-format/fl339-shapes";
import { importRealmImages } from "./realm-images";
import { importScheduled } from "./scheduled";
import { UNREAD_TABLES } from "../../shared/zulip-format/import-coverage";
import { MESSAGE_FILE } from "../../shared/zulip-format/message-files";
import { TableFile } from "../../shared/zulip-format/records";
import { JsonFile } from "../../shared/zulip-format/tables";
import { NotKept } from "./report";
import { importUploads, readAttachments } from "./uploads";
import { importUsers, type Credential } from "./users";

export interface ImportOptions {
	/** The export: a directory holding realm.json, or its .tar.gz. */
	source: string;
	/** The organization's name, instead of the export's. */
	realmName?: string;
	mongoUrl: string;
	/** The database prefix to import into (DB_PREFIX): it must hold nothing yet. */
	prefix: string;
	/** The organization's URL (EXTERNAL_URL). */
	url: string;
	progress?: Progress;
}

export interface ImportResult {
	credentials: Credential[];
	notKept: NotKept;
	/** What was imported, by what it is. */
	counts: Record<string, number>;
}

// This server holds one organization per database prefix, with this ID (services/users/bootstrap.ts).
const REALM_ID = 1;

export async function importZulip(o: ImportOptions): Promise<ImportResult> {
	const progress = o.progress ?? new Progress();
	const opened = await openExport(o.source);
	try {
		const realm = TableFile.read(opened.dir, JsonFile.REALM);
		const files = messageFiles(opened.dir);
		const attachments = readAttachments(opened.dir);
		const target = await openTarget(o.mongoUrl, o.prefix);
		const ctx: ImportContext = { dir: opened.dir, realm, ids: new Ids(), target, notKept: new NotKept(), progress, realmId: REALM_ID, url: o.url, read: new Set() };
		try {
			// This server's own exports keep the fields newer than feature level 339 apart: back into their rows first.
			ctx.read.add(NEWER_FIELDS_TABLE);
			mergeNewerFields(realm);
			const credentials = await importUsers(ctx);
			const avatars = await importAvatars(ctx);
			const groups = await importGroups(ctx);
			await importChannels(ctx, groups);
			await importRealm(ctx, groups, o.realmName);
			const realmImages = await importRealmImages(ctx);
			await importEmoji(ctx);
			const claimed = new Set(attachments.flatMap((r) => r.ints("messages")));
			const where = await importMessages(ctx, claimed, countMessages(opened.dir, files));
			await importReactions(ctx);
			await importUploads(ctx, attachments, where);
			await importExtras(ctx);
			await importProfileFields(ctx);
			const scheduled = await importScheduled(ctx);
			await target.finishIndexes();
			reportUnread(ctx);
			const counts: Record<string, number> = {
				users: credentials.length,
				"uploaded avatars": avatars,
				"organization icon and logos": realmImages,
				"user groups": realm.count("zerver_namedusergroup"),
				channels: realm.count("zerver_stream"),
				subscriptions: await target.m.Subscription.countDocuments(),
				messages: await target.m.Message.countDocuments(),
				"per-user message rows": await target.m.UserMessage.countDocuments(),
				reactions: realm.count("zerver_reaction"),
				"user topics": realm.count("zerver_usertopic"),
				"custom emoji": realm.count("zerver_realmemoji"),
				"custom profile fields": realm.count("zerver_customprofilefield"),
				uploads: attachments.length,
				"scheduled messages": scheduled,
			};
			return { credentials, notKept: ctx.notKept, counts };
		} catch (err) {
			await target.dropAll();
			throw err;
		} finally {
			await target.close();
		}
	} finally {
		await opened.close();
	}
}

/** Every table no phase read, with its count: not kept (or Zulip's own bookkeeping). */
function reportUnread(ctx: ImportContext): void {
	for (const name of ctx.realm.names()) {
		if (ctx.read.has(name)) continue;
		const why = UNREAD_TABLES[name] ?? "no place for it on this server yet";
		if (!reportReconstructed(ctx, name, why)) ctx.notKept.add(name, why, ctx.realm.count(name));
	}
	// The other files of the export: statistics (analytics.json) and such.
	for (const f of fs.readdirSync(ctx.dir)) {
		if (!f.endsWith(".json") || MESSAGE_FILE.test(f)) continue;
		if (([JsonFile.REALM, JsonFile.ATTACHMENTS, JsonFile.STATS, JsonFile.MIGRATION_STATUS] as string[]).includes(f)) continue;
		let file: TableFile;
		try {
			file = TableFile.read(ctx.dir, f);
		} catch {
			continue;
		}
		for (const name of file.names()) ctx.notKept.add(`${path.basename(f, ".json")}/${name}`, "usage statistics (recomputed here)", file.count(name));
	}
}
