// Bot storage, as Zulip's zerver/lib/bot_storage.py: string keys to string values per bot, the
// bot's total (len(key) + len(value) of every entry, in code points as Python counts) at most the
// server's USER_STATE_SIZE_LIMIT. Every check runs before anything is written.
import { upsertRetrying } from "../../../shared/db";
import { badRequest } from "../../../shared/errors";
import type { UsersDb } from "../db";

/** Zulip's USER_STATE_SIZE_LIMIT. */
export const DEFAULT_BOT_STORAGE_LIMIT = 10_000_000;

const missingKey = () => badRequest("Key does not exist.");

/** Python's len(): code points, not UTF-16 units. */
const length = (s: string) => {
	// UTF-16 units less the second unit of each surrogate pair.
	let n = s.length;
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
			const d = s.charCodeAt(i + 1);
			if (d >= 0xdc00 && d <= 0xdfff) {
				n--;
				i++;
			}
		}
	}
	return n;
};

/** The `storage` parameter as Zulip's Json[dict[str, str]] reads it. */
export function storageEntries(storage: unknown): Array<[string, string]> {
	if (!storage || typeof storage !== "object" || Array.isArray(storage)) throw badRequest("storage is not a dict");
	const entries = Object.entries(storage as Record<string, unknown>);
	for (const [key, value] of entries) if (typeof value !== "string") throw badRequest(`storage["${key}"] is not a string`);
	return entries as Array<[string, string]>;
}

/** The bot's stored characters (keys and values). */
async function totalSize(db: UsersDb, botId: number): Promise<number> {
	const [row] = await db.BotStorage.aggregate<{ size: number }>([{ $match: { bot_id: botId } }, { $group: { _id: null, size: { $sum: "$size" } } }]);
	return row?.size ?? 0;
}

/**
 * Stores the entries, each key once per bot (the unique index): refused whole, writing nothing,
 * when the bot's total would pass the limit. The entries are written in one bulk command.
 */
export async function setStorage(db: UsersDb, botId: number, entries: Array<[string, string]>, limit: number): Promise<void> {
	if (!entries.length) return;
	const keys = entries.map(([k]) => k);
	const old = new Map((await db.BotStorage.find({ bot_id: botId, key: { $in: keys } }, { key: 1, size: 1 }).lean()).map((e) => [e.key, e.size]));
	let difference = 0;
	for (const [key, value] of entries) difference += length(key) + length(value) - (old.get(key) ?? 0);
	const newSize = (await totalSize(db, botId)) + difference;
	if (newSize > limit) throw badRequest(`Request exceeds storage limit by ${newSize - limit} characters. The limit is ${limit} characters.`);
	const ops = entries.map(([key, value]) => ({
		updateOne: { filter: { bot_id: botId, key }, update: { $set: { value, size: length(key) + length(value) } }, upsert: true },
	}));
	// Two requests creating one new key at once: the loser's upsert fails on the unique key, and
	// runs once more as an update (every operation is an idempotent $set).
	await upsertRetrying(() => db.BotStorage.bulkWrite(ops, { ordered: true }));
}

/** The values of `keys` (all the bot's keys when none are named), in the order asked. */
export async function getStorage(db: UsersDb, botId: number, keys: string[] | undefined): Promise<Record<string, string>> {
	const filter = keys === undefined ? { bot_id: botId } : { bot_id: botId, key: { $in: keys } };
	const rows = keys?.length === 0 ? [] : await db.BotStorage.find(filter, { key: 1, value: 1 }).sort({ key: 1 }).lean();
	const found = new Map(rows.map((r) => [r.key, r.value]));
	// No prototype: a key named "__proto__" is an entry like any other.
	const out = Object.create(null) as Record<string, string>;
	for (const key of keys ?? [...found.keys()]) {
		const value = found.get(key);
		if (value === undefined) throw missingKey();
		out[key] = value;
	}
	return out;
}

/** Removes `keys` (every key when none are named); one unknown key refuses them all, as Zulip. */
export async function removeStorage(db: UsersDb, botId: number, keys: string[] | undefined): Promise<void> {
	if (keys === undefined) {
		await db.BotStorage.deleteMany({ bot_id: botId });
		return;
	}
	if (!keys.length) return;
	const found = await db.BotStorage.countDocuments({ bot_id: botId, key: { $in: keys } });
	// Zulip compares the rows found with the keys named, so a key named twice is refused too.
	if (found < keys.length) throw missingKey();
	await db.BotStorage.deleteMany({ bot_id: botId, key: { $in: keys } });
}
