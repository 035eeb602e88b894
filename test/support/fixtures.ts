// Large fixtures built straight in a test app's databases, so that a test needing 1,000 messages
// does not spend 1,000 requests (whose time depends on the machine) to make them.
import mongoose from "mongoose";
import type { TestApp } from "./app";

/** Some MongoDB-compatible engines take at most 25,000 operations in one bulk write. */
const BULK_LIMIT = 10_000;

async function insertInBatches(collection: { insertMany(docs: never[]): Promise<unknown> }, docs: object[]): Promise<void> {
	for (let i = 0; i < docs.length; i += BULK_LIMIT) await collection.insertMany(docs.slice(i, i + BULK_LIMIT) as never[]);
}

/**
 * `count` copies of the stored message `messageId`, each with every user's row of it (same
 * conversation, content and flags), under new IDs reserved from the messages service's counter as
 * a send reserves them: later sends get higher IDs, and no ID is used twice. The copies' IDs are
 * returned in ascending order. Caches the service keeps (a user's newest message ID) learn of them
 * only when they expire: a test reads what it checks from the database-backed answers.
 */
export async function copyMessage(app: TestApp, messageId: number, count: number): Promise<number[]> {
	const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!, { dbName: `${app.node.config.dbPrefix}_messages` }).asPromise();
	try {
		const db = conn.db!;
		const message = await db.collection("messages").findOne({ _id: messageId as never });
		if (!message) throw new Error(`no message ${messageId} to copy`);
		const rows = await db.collection("user_messages").find({ message_id: messageId }).toArray();
		const counter = await db.collection("counters").findOneAndUpdate({ _id: "message" as never }, { $inc: { seq: count } }, { returnDocument: "after" });
		const first = (counter!.seq as number) - count + 1;
		const ids = Array.from({ length: count }, (_, i) => first + i);
		// A copy is not the original's send: the original's idempotency key (unique) stays its own.
		const copied = { ...message };
		delete copied.idempotency_key;
		await insertInBatches(db.collection("messages"), ids.map((id) => ({ ...copied, _id: id })));
		await insertInBatches(db.collection("user_messages"), ids.flatMap((id) => rows.map((r) => ({ ...r, _id: `${r.user_id}:${id}`, message_id: id }))));
		return ids;
	} finally {
		await conn.close();
	}
}

/**
 * Grants a user a special permission (as the operator's `npm run manage -- grant` does) straight
 * in the users database of `dbPrefix` on `mongoUrl`: for cluster tests, whose services run in
 * other processes. The permission is read from the database on each use.
 */
export async function grantInDatabase(mongoUrl: string, dbPrefix: string, email: string, permission: "can_create_users" | "can_change_user_emails"): Promise<void> {
	const conn = await mongoose.createConnection(mongoUrl, { dbName: `${dbPrefix}_users` }).asPromise();
	try {
		const done = await conn.db!.collection("users").updateOne({ email_key: email.toLowerCase() }, { $set: { [permission]: true } });
		if (!done.matchedCount) throw new Error(`no user ${email} to grant ${permission}`);
	} finally {
		await conn.close();
	}
}
