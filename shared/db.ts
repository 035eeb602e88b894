// Each service's own database: one Mongoose connection to `<prefix>_<service>`, and the atomic
// per-entity counters that give the API its integer IDs.
import mongoose, { Connection, Schema, type Model } from "mongoose";
import { queryLogOptions, recordQueries } from "./query-log";

/** The service database connections of this process not closed yet, for the health endpoint. */
const connections = new Set<Connection>();
export const openConnections = (): Connection[] => [...connections];
/** The same, by database name (`<prefix>_<service>`), for shared/request-records.ts. */
const byName = new Map<string, Connection>();
export const serviceConnection = (dbName: string): Connection | undefined => byName.get(dbName);

export async function connectServiceDb(url: string, prefix: string, service: string): Promise<Connection> {
	const conn = mongoose.createConnection(url, {
		dbName: `${prefix}_${service}`,
		// Indexes are created explicitly at service start (ensureIndexes), not lazily.
		autoIndex: false,
		serverSelectionTimeoutMS: 15_000,
		// With QUERY_LOG set, the commands are recorded for the index coverage test (test/indexes).
		...queryLogOptions(),
	});
	await conn.asPromise();
	recordQueries(conn, service);
	connections.add(conn);
	conn.once("close", () => connections.delete(conn));
	byName.set(`${prefix}_${service}`, conn);
	conn.once("close", () => byName.get(`${prefix}_${service}`) === conn && byName.delete(`${prefix}_${service}`));
	return conn;
}

interface CounterDoc {
	_id: string;
	seq: number;
}

const counterSchema = new Schema<CounterDoc>({ _id: String, seq: Number }, { versionKey: false });

/**
 * Returns a function handing out increasing integers per entity name, starting at 1: each call
 * reserves `count` consecutive IDs and returns the first.
 *
 * Each counter is created once (seq 0) and from then on only `$inc`ed, never upserted: a
 * findAndModify with `$inc` on an existing document is atomic on every store we know, while
 * concurrent `$inc` upserts of one new document are not (MongoDB answers the race with E11000,
 * FerretDB silently loses increments and hands out duplicate IDs). So any number of processes can
 * allocate from one counter. One round trip when the counter exists (every call but the first).
 */
export function counters(conn: Connection): (entity: string, count?: number) => Promise<number> {
	const Counter = conn.models.Counter ?? conn.model<CounterDoc>("Counter", counterSchema, "counters");
	return async (entity, count = 1) => {
		const doc = await incrementCreating(Counter, { _id: entity, seq: 0 }, { seq: count });
		return doc.seq - count + 1;
	};
}

/**
 * `$inc` on the document `initial._id`, created from `initial` first when missing; answers the
 * document after the increment. The shape that stays atomic on every engine: an insert that may
 * fail on the unique _id (another caller created it: fine), then an `$inc` of an existing document,
 * never an upsert whose racing inserts an engine may lose. One round trip when the document exists.
 */
export async function incrementCreating<D extends { _id: unknown }>(model: Model<D>, initial: D, inc: Record<string, number>): Promise<D> {
	const increment = () => model.findOneAndUpdate({ _id: initial._id }, { $inc: inc }, { returnDocument: "after", lean: true }) as unknown as Promise<D | null>;
	const found = await increment();
	if (found) return found;
	await createOnce(model, initial);
	const created = await increment();
	// Only a deletion between the two steps gets here; nothing deletes these documents.
	if (!created) throw new Error(`${model.modelName} ${String(initial._id)} was deleted while being incremented`);
	return created;
}

/**
 * Inserts `doc` unless a document with its _id exists (another caller's insert won: fine).
 * Answers whether this call created it: a unique insert decides that on every store, where an
 * upsert's `upsertedCount` does not (two racing upserts may both report an insert on some
 * MongoDB-compatible engines).
 */
export async function createOnce<D extends { _id: unknown }>(model: Model<D>, doc: D): Promise<boolean> {
	try {
		await model.collection.insertOne(doc as never);
		return true;
	} catch (err) {
		if (!isDuplicateKey(err)) throw err;
		return false;
	}
}

/** Creates every index the connection's models declare (idempotent). */
export async function ensureIndexes(conn: Connection): Promise<void> {
	for (const model of Object.values(conn.models)) await model.createIndexes();
}

/** Whether a write failed on a unique index: two requests raced to create the same thing. */
export function isDuplicateKey(err: unknown): boolean {
	return (err as { code?: number } | null)?.code === 11000;
}

/**
 * Inserts `docs` in one unordered write, each unless a document with its _id exists (another
 * caller's insert won: fine); answers those this call inserted. A unique insert decides that on
 * every store. Any other failure is thrown (the docs inserted before it stay).
 */
export async function insertNew<D>(collection: { insertMany(docs: never[], o: { ordered: false }): Promise<unknown> }, docs: D[]): Promise<D[]> {
	if (!docs.length) return [];
	try {
		await collection.insertMany(docs as never[], { ordered: false });
		return docs;
	} catch (err) {
		const found = (err as { writeErrors?: unknown } | null)?.writeErrors;
		const errors = (Array.isArray(found) ? found : found ? [found] : []) as Array<{ index: number; code?: number }>;
		if (!errors.length || !errors.every(isDuplicateKey)) throw err;
		const lost = new Set(errors.map((e) => e.index));
		return docs.filter((_, i) => !lost.has(i));
	}
}

/**
 * Runs an upsert, once more if it lost a race: two upserts of a new key at once insert twice, and
 * the second fails on the unique key. Run again, it finds the row and updates it.
 */
export async function upsertRetrying<T>(write: () => Promise<T>): Promise<T> {
	try {
		return await write();
	} catch (err) {
		if (!isDuplicateKey(err)) throw err;
		return write();
	}
}

export interface RawFindOptions {
	projection?: object;
	sort?: Record<string, 1 | -1>;
	limit?: number;
	hint?: object;
}

/**
 * A find straight through the driver, lean: for the reads of every message page (the window, flags and reactions, the channel lookup, the users), where building
 * and casting Mongoose's query cost more than the read itself. Nothing is cast, so the filter holds
 * values of the stored types (numbers, strings) already; undefined values are left out, as
 * Mongoose leaves them.
 */
export function rawFind<T>(model: Model<any>, filter: object, opts: RawFindOptions = {}): Promise<T[]> {
	return model.collection.find(filter, { ...opts, ignoreUndefined: true }).toArray() as Promise<T[]>;
}
