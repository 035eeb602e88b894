// The check that an organization keeps an owner, made atomic: every change that can remove an
// owner (deactivation, a role change) reads the owners and writes holding the organization's
// guard. Taking it is one conditional update of one existing document ({_id, held_until < now}),
// atomic on MongoDB and on the embedded store. The guard is created at the service's start (an
// insert that may lose to another replica's on the unique _id), and again should a claim find it
// missing; never by an upsert, whose racing inserts each engine answers its own way.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { apiError } from "../../../shared/errors";
import { createOnce } from "../../../shared/db";
import type { UsersDb } from "../db";

/** How long a holder keeps the guard at most: its work is a few reads and writes. */
const LEASE_MS = 10_000;

export async function withOwnerGuard<T>(db: UsersDb, run: () => Promise<T>): Promise<T> {
	const _id = db.realm._id;
	const token = randomUUID();
	// Waits at most one lease: by then a holder that died has lost the guard.
	const deadline = Date.now() + LEASE_MS + 2_000;
	let ensured = false;
	for (;;) {
		const now = Date.now();
		const res = await db.OwnerGuard.updateOne({ _id, held_until: { $lt: now } }, { $set: { held_until: now + LEASE_MS, token } });
		if (res.modifiedCount) break;
		if (!res.matchedCount && !ensured) {
			// Held, or missing: make sure it exists (once), then claim again.
			await ensureOwnerGuard(db);
			ensured = true;
			continue;
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
	await createOnce(db.OwnerGuard, { _id: db.realm._id, held_until: 0, token: "" });
}
