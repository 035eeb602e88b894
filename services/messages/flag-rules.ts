// Personal message flags: POST /messages/flags and the bulk mark-as-read endpoints.
//
// Large updates run in batches of BATCH rows, each one updateMany whose filter repeats the
// condition it changes. Every row is updated atomically on its own, and the count is the
// store's own count of modified rows, so a failure part-way leaves each message either updated
// or not and the figures reported always match what changed. Between batches the handler yields
// to the event loop, so other requests are served while a large update runs.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { badRequest } from "../../shared/errors";
import { isDuplicateKey } from "../../shared/db";
import type { MessagesDb } from "./db";
import type { MessageDoc } from "./models/message";
import { userMessageRow } from "./models/user-message";

/** The flags a user may add and remove. */
export const EDITABLE_FLAGS = ["read", "starred", "collapsed"] as const;
/** Flags the server sets (mentions, alert words, historical); naming them is an error. */
const SERVER_FLAGS = ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "wildcard_mentioned", "has_alert_word", "historical"];

export const BATCH = 1000;

export type FlagOp = "add" | "remove";

export function checkFlag(flag: string): void {
	if (SERVER_FLAGS.includes(flag)) throw badRequest(`Flag not editable: '${flag}'`);
	if (!(EDITABLE_FLAGS as readonly string[]).includes(flag)) throw badRequest(`Invalid flag: '${flag}'`);
}

/** The filter that matches rows the operation would change, and the change itself. */
function change(op: FlagOp, flag: string) {
	return op === "add"
		? { unchanged: { flags: { $ne: flag } }, update: { $addToSet: { flags: flag } } }
		: { unchanged: { flags: flag }, update: { $pull: { flags: flag } } };
}

/**
 * Sets or clears a flag on the user's rows for `received`, and gives each message in
 * `unreceived` (already checked accessible) a row marked historical and read, the operation
 * applied. Returns the IDs that changed, ascending.
 */
export async function updateFlags(db: MessagesDb, userId: number, op: FlagOp, flag: string, received: number[], unreceived: MessageDoc[]): Promise<number[]> {
	const { unchanged, update } = change(op, flag);
	const changed: number[] = [];
	for (let i = 0; i < received.length; i += BATCH) {
		const batch = received.slice(i, i + BATCH);
		const rows = await db.UserMessage.find({ user_id: userId, message_id: { $in: batch }, ...unchanged }, { message_id: 1 }).lean();
		if (!rows.length) continue;
		await db.UserMessage.updateMany({ _id: { $in: rows.map((r) => r._id) }, ...unchanged }, update);
		changed.push(...rows.map((r) => r.message_id));
	}
	if (unreceived.length) {
		const base = ["read", "historical"];
		await addHistoricalRows(db, userId, unreceived, op === "add" ? [...new Set([...base, flag])] : base.filter((f) => f !== flag));
		changed.push(...unreceived.map((m) => m._id));
	}
	return changed.sort((a, b) => a - b);
}

/**
 * Gives a user rows for messages they see through an open channel history but never received
 * (starring or reacting to one makes it part of their history), flagged `historical`.
 */
export async function addHistoricalRows(db: MessagesDb, userId: number, messages: MessageDoc[], flags = ["read", "historical"]): Promise<void> {
	if (!messages.length) return;
	await db.UserMessage.insertMany(
		messages.map((m) => userMessageRow(userId, m, flags)),
		{ ordered: false },
	).catch((err) => {
		// A concurrent request created some of the rows first: theirs stand.
		if (!isDuplicateKey(err)) throw err;
	});
}

/**
 * Marks the user's unread rows matching `filter` read, newest first, in batches. Stops after
 * `budgetMs` (the caller then reports the work incomplete). Returns the IDs now read and how
 * many rows this call changed (a row another request marked in between is not counted).
 */
export async function markRead(db: MessagesDb, filter: Record<string, unknown>, budgetMs = Infinity): Promise<{ ids: number[]; count: number; complete: boolean }> {
	const deadline = Date.now() + budgetMs;
	const ids: number[] = [];
	let count = 0;
	for (;;) {
		const rows = await db.UserMessage.find({ ...filter, flags: { $ne: "read" } }, { message_id: 1 }).sort({ message_id: -1 }).limit(BATCH).lean();
		if (rows.length) {
			const done = await db.UserMessage.updateMany({ _id: { $in: rows.map((r) => r._id) }, flags: { $ne: "read" } }, { $addToSet: { flags: "read" } });
			count += done.modifiedCount;
			ids.push(...rows.map((r) => r.message_id));
		}
		if (rows.length < BATCH) return { ids, count, complete: true };
		if (Date.now() > deadline) return { ids, count, complete: false };
		await yieldToLoop();
	}
}
