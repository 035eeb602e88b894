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

/** Returns a function handing out increasing integers per entity name, starting at 1. */
export function counters(conn: Connection): (entity: string, count?: number) => Promise<number> {
	const Counter = conn.models.Counter ?? conn.model<CounterDoc>("Counter", counterSchema, "counters");
	/** Reserves `count` consecutive IDs and returns the first. */
	return async (entity, count = 1) => {
		const doc = await Counter.findOneAndUpdate(
			{ _id: entity },
			{ $inc: { seq: count } },
			{ upsert: true, returnDocument: "after", lean: true },
		);
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
