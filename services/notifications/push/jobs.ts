// Making the bouncer requests off the request path, exactly once across replicas, as the email
// outbox does (outbox/delivery.ts): the replica that stores a job tries it at once, and every
// replica sweeps for jobs due again (PUSH_SWEEP_SECONDS). An attempt starts with a claim, one
// conditional update ({_id, state: "queued", due} -> "sending", attempts + 1), atomic on MongoDB
// and the embedded store, so one replica makes the request. A failure worth retrying (network,
// timeout, 5xx) queues the job again after a doubling wait, until PUSH_MAX_ATTEMPTS; a refusal
// (4xx) fails it at once, kept with the bouncer's reason. A claim whose replica died is queued
// again after CLAIM_TIMEOUT_MS; the bouncer's requests are safe to repeat (a registration is kept
// once, a notification shown twice at worst).
import type { ServiceBroker } from "moleculer";
import type { Model } from "mongoose";
import { call } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { insertNew } from "../../../shared/db";
import type { PushJobDoc, PushSentDoc } from "../models/push-job";
import { claimDue, retryWaitSeconds, sweepClaimed, type FirstAttempts, type JobRunner } from "../claims";
import { keepUntilSettled } from "../background";
import { BOUNCER_TIMEOUT_MS, BouncerError, sendToBouncer, TOKEN_KIND, type BouncerSettings } from "./bouncer";

export interface PushDeps extends JobRunner, FirstAttempts {
	broker: ServiceBroker;
	Job: Model<PushJobDoc>;
	Sent: Model<PushSentDoc>;
	/** Null when push is off (no PUSH_NOTIFICATION_BOUNCER_URL). */
	bouncer: BouncerSettings | null;
	/** Zulip's EXTERNAL_HOST, for the payloads. */
	server: string;
}

/** A request stored to be made: its key, what it is, and its body. */
export interface NewJob {
	_id: string;
	kind: string;
	user_id: number;
	endpoint: string;
	form?: Record<string, string | number>;
	json?: Record<string, unknown>;
}

export type Outcome = "done" | "retrying" | "failed";

/** Two bouncer timeouts and a margin: a live claim is never taken back. */
export const CLAIM_TIMEOUT_MS = 2 * BOUNCER_TIMEOUT_MS + 15_000;

function freshFields(now: number) {
	return { state: "queued" as const, attempts: 0, next_attempt_at: now, claimed_by: null, claimed_at: null, last_error: null, done_at: null };
}

/** Stores the jobs whose keys are not stored yet (one unordered insert), due now; answers those this call stored. */
export async function storeJobs(deps: PushDeps, jobs: NewJob[]): Promise<PushJobDoc[]> {
	const now = clock.nowMs();
	return insertNew(deps.Job.collection, jobs.map((job): PushJobDoc => ({ form: null, json: null, ...job, version: 0, created_at: now, ...freshFields(now) })));
}

/** Stores a job, due now; false when one with this key was stored already. */
export async function storeJob(deps: PushDeps, job: NewJob): Promise<boolean> {
	return (await storeJobs(deps, [job])).length > 0;
}

/**
 * Sets what a keyed job asks for now (a device's register or unregister), whatever it asked
 * before. A job not in flight is queued afresh; one in flight keeps its claim and gets the new
 * version, which its replica sends when the request in flight is answered, so the bouncer sees the
 * changes in order.
 */
export async function replaceJob(deps: PushDeps, job: NewJob): Promise<void> {
	const request = { kind: job.kind, endpoint: job.endpoint, form: job.form ?? null, json: job.json ?? null };
	// Each round trip sees the job in another state than the last; a few are all a race can make.
	for (let round = 0; round < 10; round++) {
		if (await storeJob(deps, job)) return;
		const idle = await deps.Job.updateOne({ _id: job._id, state: { $in: ["queued", "done", "failed"] } }, { $set: { ...request, ...freshFields(clock.nowMs()) }, $inc: { version: 1 } });
		if (idle.matchedCount) return;
		const busy = await deps.Job.updateOne({ _id: job._id, state: "sending" }, { $set: request, $inc: { version: 1 } });
		if (busy.matchedCount) return;
		// It changed state between the reads: look again.
	}
	throw new Error(`push job ${job._id} kept changing state; not replaced`);
}

/** What a successful notify answer asks of this server: forget devices the bouncer dropped; note a refusal of the plan. */
async function afterNotify(deps: PushDeps, job: PushJobDoc, answer: Record<string, unknown>): Promise<void> {
	const deleted = answer.deleted_devices as { android_devices?: unknown; apple_devices?: unknown } | undefined;
	const lists: Array<[number, unknown]> = [
		[TOKEN_KIND.fcm, deleted?.android_devices],
		[TOKEN_KIND.apns, deleted?.apple_devices],
	];
	for (const [kind, tokens] of lists) {
		if (!Array.isArray(tokens) || !tokens.length) continue;
		const strings = tokens.filter((t): t is string => typeof t === "string");
		deps.logger.info({ user_id: job.user_id, kind, count: strings.length }, "deleting push tokens based on response from bouncer");
		await call(deps.broker, "users.forgetPushDevices", { kind, tokens: strings });
	}
	const realm = answer.realm as { can_push?: unknown } | null | undefined;
	if (realm && realm.can_push === false) deps.logger.warn({ user_id: job.user_id }, "the bouncer says this organization's plan does not allow push notifications");
}

/** Whether a refusal means the request's work is done anyway (a device already unregistered). */
const refusalIsDone = (job: PushJobDoc, err: BouncerError) => job.kind === "unregister" && err.message === "Token does not exist";

/** One attempt at a claimed job; records the outcome while the claim is still this replica's ("changed": a newer request is due now). */
async function attempt(deps: PushDeps, job: PushJobDoc, replica: string): Promise<Outcome | "changed"> {
	const mine = { _id: job._id, state: "sending" as const, claimed_by: replica };
	const log = { job: job._id, kind: job.kind, attempt: job.attempts };
	const release = { claimed_by: null, claimed_at: null };
	let outcome: Outcome;
	let update: Record<string, unknown>;
	try {
		if (!deps.bouncer) throw new BouncerError("PUSH_NOTIFICATION_BOUNCER_URL is not set", "server");
		const answer = await sendToBouncer(deps.bouncer, job.endpoint, job.json ? { json: job.json } : { form: job.form ?? {} });
		if (job.kind === "message" || job.kind === "remove") {
			// The request is made: what its answer asks of this server must not make it again.
			await afterNotify(deps, job, answer).catch((err: unknown) => deps.logger.warn({ ...log, err }, "the bouncer's answer to a notification not acted on"));
		}
		outcome = "done";
		update = { state: "done", done_at: clock.nowMs(), last_error: null, ...release };
	} catch (err) {
		if (!(err instanceof BouncerError)) throw err;
		const now = clock.nowMs();
		if (err.failure !== "retry" && refusalIsDone(job, err)) {
			outcome = "done";
			update = { state: "done", done_at: now, last_error: err.message, ...release };
		} else if (err.failure === "retry" && job.attempts < deps.maxAttempts) {
			const next = now + retryWaitSeconds(deps.retrySeconds, job.attempts) * 1000;
			deps.logger.warn({ ...log, reason: err.message, next_attempt_at: new Date(next).toISOString() }, "push bouncer request failed; will retry");
			outcome = "retrying";
			update = { state: "queued", next_attempt_at: next, last_error: err.message, ...release };
		} else {
			deps.logger.error({ ...log, reason: err.message, code: err.code }, "push bouncer request failed for good");
			outcome = "failed";
			update = { state: "failed", done_at: now, last_error: err.message, ...release };
		}
	}
	const recorded = await deps.Job.updateOne({ ...mine, version: job.version }, { $set: update });
	if (recorded.matchedCount) return outcome;
	// The request changed while in flight (a device added, then removed): the newer one is due now.
	await deps.Job.updateOne(mine, { $set: { ...freshFields(clock.nowMs()) } });
	return "changed";
}

/** Claims and makes one request now, if it is due and no replica has it; null when not claimed. */
export async function runNow(deps: PushDeps, _id: string, replica: string): Promise<Outcome | null> {
	const claim = () => claimDue<PushJobDoc>(deps.Job, _id, replica);
	for (let job = await claim(); job; job = await claim()) {
		const outcome = await attempt(deps, job, replica);
		if (outcome !== "changed") return outcome;
	}
	return null;
}

/** Starts a job's first attempt in the background (the sweep retries what fails). */
export function startNow(deps: PushDeps, _id: string): void {
	const first = runNow(deps, _id, deps.replica()).catch((err: unknown) => {
		deps.logger.warn({ err, job: _id }, "first attempt at a push bouncer request failed; the sweep will retry");
	});
	keepUntilSettled(deps.inflight, first);
}

/** A notification made is kept this long (a repeated hand-over within it is recognised), then forgotten. */
export const KEEP_DONE_MS = 24 * 3600 * 1000;

/**
 * One sweep: takes back stale claims, then claims and makes the due requests; forgets
 * notifications made over a day ago (a device's registration stays: it is one per device).
 * Answers what this replica did.
 */
export async function sweepPush(deps: PushDeps, replica: string): Promise<Record<Outcome, string[]>> {
	const out = await sweepClaimed(deps.Job, CLAIM_TIMEOUT_MS, ["done", "retrying", "failed"], (id) => runNow(deps, id, replica));
	await deps.Job.deleteMany({ state: "done", done_at: { $lte: clock.nowMs() - KEEP_DONE_MS }, kind: { $in: ["message", "remove"] } });
	return out;
}
