// The check that an organization keeps an owner, made atomic: every change that can remove an
// owner (deactivation, a role change) reads the owners and writes holding the organization's
// guard. Taking it is one conditional update of one document ({_id, held_until < now}), atomic on
// MongoDB and on the embedded store. The guard is created at the service's start; should it be
// missing, the same update's upsert creates it, and an upsert that races it fails on the unique
// _id, which counts as "held".
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { apiError } from "../../shared/errors";
import { isDuplicateKey, upsertRetrying } from "../../shared/db";
import type { UsersDb } from "./db";

/** How long a holder keeps the guard at most: its work is a few reads and writes. */
const LEASE_MS = 10_000;

export async function withOwnerGuard<T>(db: UsersDb, run: () => Promise<T>): Promise<T> {
	const _id = db.realm._id;
	const token = randomUUID();
	// Waits at most one lease: by then a holder that died has lost the guard.
	const deadline = Date.now() + LEASE_MS + 2_000;
	for (;;) {
		const now = Date.now();
		try {
			const res = await db.OwnerGuard.updateOne({ _id, held_until: { $lt: now } }, { $set: { held_until: now + LEASE_MS, token } }, { upsert: true });
			if (res.modifiedCount || res.upsertedCount) break;
		} catch (err) {
			if (!isDuplicateKey(err)) throw err;
		}
		if (now > deadline) throw apiError(503, "SERVICE_UNAVAILABLE", "Another change to the organization's owners is in progress; try again.");
		await sleep(2 + Math.random() * 8);
	}
	try {
		return await run();
	} finally {
		await db.OwnerGuard.updateOne({ _id, token }, { $set: { held_until: 0, token: "" } });
	}
}

/** At the service's start: the organization's guard, free, unless it exists. */
export async function ensureOwnerGuard(db: UsersDb): Promise<void> {
	await upsertRetrying(() => db.OwnerGuard.updateOne({ _id: db.realm._id }, { $setOnInsert: { held_until: 0, token: "" } }, { upsert: true }));
}
