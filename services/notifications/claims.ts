// What the notifications service's claimable jobs share (the email outbox, the bouncer requests):
// their delivery fields and the indexes a sweep reads by, the doubling wait between attempts, and
// the sweep itself: stale claims (their replica died) taken back, then the due jobs run a few at a
// time. Each kind claims and runs one job in its own module (outbox/delivery.ts, push/jobs.ts).
import type { Model, Schema } from "mongoose";
import { clock } from "../../shared/clock";

/** A claimable job's delivery fields. */
export interface Claimable<State extends string> {
	state: State;
	/** Attempts started (claims taken). */
	attempts: number;
	/** When it may be claimed (milliseconds). */
	next_attempt_at: number;
	claimed_by: string | null;
	claimed_at: number | null;
	/** Why the last attempt failed. */
	last_error: string | null;
}

/** What runs a kind of job: its retry settings and a logger. */
export interface JobRunner {
	maxAttempts: number;
	retrySeconds: number;
	logger: { info(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void };
}

/** A replica that stores jobs and starts their first attempts itself, in the background. */
export interface FirstAttempts {
	/** This replica's name in claims. */
	replica: () => string;
	/** First attempts running in the background (a sweep waits for them: tests see settled states). */
	inflight: Set<Promise<unknown>>;
}

/** A claimable job's delivery fields, for its schema. */
export const claimFields = {
	state: { type: String, required: true },
	/** Attempts started (claims taken). */
	attempts: { type: Number, default: 0 },
	/** When it may be claimed (milliseconds). */
	next_attempt_at: { type: Number, required: true },
	claimed_by: { type: String, default: null },
	claimed_at: { type: Number, default: null },
	/** Why the last attempt failed. */
	last_error: { type: String, default: null },
};

/** The sweep's query shapes: due ones, oldest first -> { state, next_attempt_at }; stale claims -> { state, claimed_at }. */
export function indexClaims(schema: Schema): void {
	schema.index({ state: 1, next_attempt_at: 1 });
	schema.index({ state: 1, claimed_at: 1 });
}

/** The sweep's claimant: this replica, or a named part of it (tests race two on one node). */
export const claimant = (replica: string, part?: string) => (part ? `${replica}/${part}` : replica);

/**
 * Claims a due job for `replica`: one conditional update ({_id, state: "queued", due} ->
 * "sending", attempts + 1), atomic on MongoDB and the embedded store, then the job as claimed;
 * null when another replica has it (or it is not due).
 */
export async function claimDue<D>(Jobs: Model<any>, _id: string, replica: string): Promise<D | null> {
	const now = clock.nowMs();
	const done = await Jobs.updateOne({ _id, state: "queued", next_attempt_at: { $lte: now } }, { $set: { state: "sending", claimed_by: replica, claimed_at: now }, $inc: { attempts: 1 } });
	if (!done.modifiedCount) return null;
	return Jobs.findOne({ _id, state: "sending", claimed_by: replica }).lean<D>();
}

/** The longest wait between two attempts. */
const MAX_WAIT_SECONDS = 3600;
/** Due jobs read per sweep; the rest wait for the next one. */
const BATCH = 200;
/** Jobs in flight per replica. */
const PARALLEL = 5;

/** The wait after the `attempts`-th failed attempt: retrySeconds, doubled each time, at most an hour. */
export const retryWaitSeconds = (retrySeconds: number, attempts: number) => Math.min(MAX_WAIT_SECONDS, retrySeconds * 2 ** Math.max(0, attempts - 1));

/**
 * One sweep of a job collection: takes back claims older than `claimTimeoutMs` (conditional on the
 * claim seen, so one replica does), then runs the due jobs; answers what `run` made of each it claimed.
 */
export async function sweepClaimed<O extends string>(
	Jobs: Model<any>,
	claimTimeoutMs: number,
	outcomes: readonly O[],
	run: (id: string) => Promise<O | null>,
): Promise<Record<O, string[]>> {
	const out = Object.fromEntries(outcomes.map((o) => [o, [] as string[]])) as Record<O, string[]>;
	const now = clock.nowMs();
	const stale: Array<{ _id: string; claimed_at: number }> = await Jobs.find({ state: "sending", claimed_at: { $lte: now - claimTimeoutMs } }, { _id: 1, claimed_at: 1 }).limit(BATCH).lean();
	for (const s of stale) {
		await Jobs.updateOne({ _id: s._id, state: "sending", claimed_at: s.claimed_at }, { $set: { state: "queued", next_attempt_at: now, claimed_by: null, claimed_at: null } });
	}
	const due: Array<{ _id: string }> = await Jobs.find({ state: "queued", next_attempt_at: { $lte: now } }, { _id: 1 }).sort({ next_attempt_at: 1 }).limit(BATCH).lean();
	const worker = async () => {
		for (let next = due.shift(); next; next = due.shift()) {
			const outcome = await run(next._id);
			if (outcome) out[outcome].push(next._id);
		}
	};
	await Promise.all(Array.from({ length: PARALLEL }, worker));
	return out;
}
