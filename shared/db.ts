// Each service's own database: one Mongoose connection to `<prefix>_<service>`, and the atomic
// per-entity counters that give the API its integer IDs.
import mongoose, { Connection, Schema } from "mongoose";
import { queryLogOptions, recordQueries } from "./query-log";

/** The service database connections of this process not closed yet, for the health endpoint. */
const connections = new Set<Connection>();
export const openConnections = (): Connection[] => [...connections];

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
 * One findAndModify with $inc and upsert is atomic on MongoDB and on the embedded store (which
 * runs each command under one lock), so any number of processes can allocate from one counter.
 * A first allocation that races another's upsert of the same new counter runs once more.
 */
export function counters(conn: Connection): (entity: string, count?: number) => Promise<number> {
	const Counter = conn.models.Counter ?? conn.model<CounterDoc>("Counter", counterSchema, "counters");
	return async (entity, count = 1) => {
		const doc = await upsertRetrying(() => Counter.findOneAndUpdate({ _id: entity }, { $inc: { seq: count } }, { upsert: true, returnDocument: "after", lean: true }));
		return (doc as CounterDoc).seq - count + 1;
	};
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
