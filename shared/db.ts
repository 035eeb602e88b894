// Each service's own database: one Mongoose connection to `<prefix>_<service>`, and the atomic
// per-entity counters that give the API its integer IDs.
import mongoose, { Connection, Schema } from "mongoose";

export async function connectServiceDb(url: string, prefix: string, service: string): Promise<Connection> {
	const conn = mongoose.createConnection(url, {
		dbName: `${prefix}_${service}`,
		// Indexes are created explicitly at service start (ensureIndexes), not lazily.
		autoIndex: false,
		serverSelectionTimeoutMS: 15_000,
	});
	await conn.asPromise();
	return conn;
}

interface CounterDoc {
	_id: string;
	seq: number;
}

const counterSchema = new Schema<CounterDoc>({ _id: String, seq: Number }, { versionKey: false });

/**
 * Returns a function handing out increasing integers per entity name, starting at 1.
 *
 * On MongoDB the $inc is atomic. The embedded store (FerretDB) runs findAndModify as a read and a
 * write, so two concurrent reservations can return the same number; reservations are therefore
 * also queued per entity within the process. Replicas of one service that allocate the same
 * entity need MongoDB (as any production deployment has).
 */
export function counters(conn: Connection): (entity: string, count?: number) => Promise<number> {
	const Counter = conn.models.Counter ?? conn.model<CounterDoc>("Counter", counterSchema, "counters");
	const reserve = async (entity: string, count: number) => {
		const doc = await upsertRetrying(() => Counter.findOneAndUpdate({ _id: entity }, { $inc: { seq: count } }, { upsert: true, returnDocument: "after", lean: true }));
		return (doc as CounterDoc).seq - count + 1;
	};
	const queues = new Map<string, Promise<number>>();
	/** Reserves `count` consecutive IDs and returns the first. */
	return (entity, count = 1) => {
		const next = (queues.get(entity) ?? Promise.resolve(0)).catch(() => 0).then(() => reserve(entity, count));
		queues.set(entity, next);
		return next;
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
