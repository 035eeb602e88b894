// The catalog's data stored before the catalog service existed: linkifiers, code playgrounds and
// custom emoji were the users service's, in the users database (`<prefix>_users`: realm_filters,
// realm_playgrounds, realm_emoji, and their ID counters realm_filter, realm_playground,
// realm_emoji).
//
// Decision: the catalog service copies them into its own database once, at its first start, and
// reads only its own from then on. The first replica to start claims a marker document
// (catalog_moves, _id "from-users": a unique _id, so exactly one insert wins) and copies; every
// other replica starting meanwhile waits in `started()` (so it serves nothing) until the marker says
// done. A claimer that dies mid-copy stops stamping the marker; after CLAIM_STALE_MS another
// replica takes the claim over (a compare-and-set on the stamp it read) and copies again: the
// copy is idempotent (documents keep their _id, a duplicate is skipped; counters only rise, with
// $max). The copy runs only while the catalog's own collections are empty, or to finish a copy
// begun: a database the importer wrote (deploy/import/) holds its data already and copies nothing.
// Once done, the marker stays: the copy never runs again, so a linkifier deleted later does not
// come back from the old collections.
//
// The old collections are left in the users database, untouched (nothing reads them any more): a
// backup of the data as it was, which an operator may drop (docs/operations.md).
import type { Connection } from "mongoose";
import { clock } from "../../shared/clock";
import { isDuplicateKey } from "../../shared/db";
import { CATALOG_COUNTERS } from "./db";

/** The collections that move, by their name in both databases (the models keep the names). */
const MOVED_COLLECTIONS = ["realm_filters", "realm_playgrounds", "realm_emoji"] as const;
const MARKER = "from-users";
/** A claim not stamped for this long belongs to a replica that died: another takes it over. */
export const CLAIM_STALE_MS = 30_000;
/** How often a waiting replica looks at the marker again. */
const WAIT_POLL_MS = 200;

interface MoveMarker {
	_id: string;
	state: "copying" | "done";
	/** When the claimer last showed it is alive (UNIX ms). */
	stamped_at: number;
	/** How many documents of each collection were copied (for the operator's curiosity). */
	copied?: Record<string, number>;
}

interface MoveLog {
	info(...args: unknown[]): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Makes sure the users database's catalog data is in the catalog database (`catalog`), once.
 * `openUsers` opens the users database, only when there is something to do.
 */
export async function moveFromUsers(catalog: Connection, openUsers: () => Promise<Connection>, log: MoveLog): Promise<void> {
	const markers = catalog.db!.collection<MoveMarker>("catalog_moves");
	for (;;) {
		const marker = await markers.findOne({ _id: MARKER });
		if (marker?.state === "done") return;
		let claimed = false;
		if (!marker) {
			try {
				await markers.insertOne({ _id: MARKER, state: "copying", stamped_at: clock.nowMs() });
				claimed = true;
			} catch (err) {
				if (!isDuplicateKey(err)) throw err;
			}
		} else if (clock.nowMs() - marker.stamped_at > CLAIM_STALE_MS) {
			// Taken over only if no one else took it over since it was read.
			const res = await markers.updateOne({ _id: MARKER, state: "copying", stamped_at: marker.stamped_at }, { $set: { stamped_at: clock.nowMs() } });
			claimed = res.modifiedCount === 1;
			if (claimed) log.info("catalog: taking over the copy from the users database of a replica that stopped");
		}
		if (!claimed) {
			await sleep(WAIT_POLL_MS);
			continue;
		}
		// A first claim on a catalog that holds data already (an import's) has nothing to copy.
		const resuming = !!marker;
		const copied = resuming || !(await holdsData(catalog)) ? await copyAll(catalog, openUsers, () => markers.updateOne({ _id: MARKER }, { $set: { stamped_at: clock.nowMs() } })) : {};
		await markers.updateOne({ _id: MARKER }, { $set: { state: "done", stamped_at: clock.nowMs(), copied } });
		if (Object.values(copied).some((n) => n > 0)) log.info({ copied }, "catalog: linkifiers, playgrounds and custom emoji copied from the users database");
		return;
	}
}

/**
 * Whether the catalog's data is in the catalog database: copied there (the marker says done), or
 * written there by an import. Otherwise it is still where a server before the catalog service kept
 * it, in the users database (what the full export reads then: deploy/export/export-zulip.ts).
 */
export async function catalogDataMoved(catalog: Connection): Promise<boolean> {
	const marker = await catalog.db!.collection<MoveMarker>("catalog_moves").findOne({ _id: MARKER });
	return marker?.state === "done" || (await holdsData(catalog));
}

async function holdsData(catalog: Connection): Promise<boolean> {
	for (const name of MOVED_COLLECTIONS) if (await catalog.db!.collection(name).findOne({}, { projection: { _id: 1 } })) return true;
	return false;
}

async function copyAll(catalog: Connection, openUsers: () => Promise<Connection>, stamp: () => Promise<unknown>): Promise<Record<string, number>> {
	const users = await openUsers();
	try {
		const copied: Record<string, number> = {};
		for (const name of MOVED_COLLECTIONS) {
			const docs = await users.db!.collection(name).find({}).toArray();
			copied[name] = docs.length;
			// One at a time: these collections are small (an organization's dozens or hundreds).
			for (const doc of docs) await insertOnce(catalog, name, doc);
			await stamp();
		}
		const counters = catalog.db!.collection<{ _id: string; seq: number }>("counters");
		const old = await users.db!.collection<{ _id: string; seq: number }>("counters").find({ _id: { $in: [...CATALOG_COUNTERS] } }).toArray();
		for (const { _id, seq } of old) {
			// The counters' own shape (shared/db.ts): created once, then only raised, never upserted.
			await insertOnce(catalog, "counters", { _id, seq: 0 });
			await counters.updateOne({ _id }, { $max: { seq } });
		}
		return copied;
	} finally {
		await users.close();
	}
}

/** Inserts the document unless one with its _id is there: a copy run again adds nothing twice. */
async function insertOnce(catalog: Connection, name: string, doc: Record<string, unknown>): Promise<void> {
	try {
		await catalog.db!.collection(name).insertOne(doc as never);
	} catch (err) {
		if (!isDuplicateKey(err)) throw err;
	}
}
