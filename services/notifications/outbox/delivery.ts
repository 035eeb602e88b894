// Delivery: the replica that stores an email sends it at once, and every replica sweeps for emails
// due again (EMAIL_SWEEP_SECONDS). An email is stored already claimed by the replica storing it
// (state "sending", its first attempt counted), so its first attempt needs no claim of its own, and
// the emails stored together (a sweep's missed-message batches) are sent together and recorded sent
// in one update. A retry starts with a claim, one conditional update of the email's document
// ({_id, state: "queued", due} -> "sending", attempts + 1), atomic on MongoDB and the embedded
// store, so exactly one replica sends it. A failed attempt queues it again after a doubling wait;
// the last allowed one makes it a dead letter, logged with the reason and kept. A claim whose
// replica died is queued again after CLAIM_TIMEOUT_MS (the attempt counted): the email may then go
// out twice, with one Message-ID.
import type { Model } from "mongoose";
import { clock } from "../../../shared/clock";
import type { OutboxEmailDoc } from "../models/outbox-email";
import { claimDue, retryWaitSeconds, sweepClaimed, type JobRunner } from "../claims";
import { SMTP_TIMEOUTS, type Transport } from "./transports";

export { retryWaitSeconds };

export interface DeliveryDeps extends JobRunner {
	Outbox: Model<OutboxEmailDoc>;
	transport: Transport;
}

/** Longer than any one SMTP exchange can take (its three timeouts), so a live claim is never taken. */
export const CLAIM_TIMEOUT_MS = 2 * (SMTP_TIMEOUTS.connectionTimeout + SMTP_TIMEOUTS.greetingTimeout + SMTP_TIMEOUTS.socketTimeout);
export type Outcome = "sent" | "retrying" | "dead";
/** Emails sent at once by one replica: the SMTP pool's size. */
const SEND_PARALLEL = 5;

/** The reason an attempt failed, as the SMTP server or the socket gave it. */
function reason(err: unknown): string {
	const e = err as { response?: string; responseCode?: number; code?: string; message?: string };
	return (e.response ?? e.message ?? String(err)).slice(0, 1000) + (e.code ? ` (${e.code})` : "");
}

/** Records a failed attempt: queued again after its wait, or a dead letter after the last one. */
async function failed(deps: DeliveryDeps, email: OutboxEmailDoc, replica: string, err: unknown): Promise<Outcome> {
	const mine = { _id: email._id, state: "sending" as const, claimed_by: replica };
	const log = { email: email._id, kind: email.kind, attempt: email.attempts, transport: deps.transport.kind };
	const why = reason(err);
	const now = clock.nowMs();
	if (email.attempts >= deps.maxAttempts) {
		await deps.Outbox.updateOne(mine, { $set: { state: "dead", last_error: why, failed_at: now, claimed_by: null, claimed_at: null } });
		deps.logger.error({ ...log, reason: why }, "email not delivered after its last attempt: kept as a dead letter");
		return "dead";
	}
	const next = now + retryWaitSeconds(deps.retrySeconds, email.attempts) * 1000;
	await deps.Outbox.updateOne(mine, { $set: { state: "queued", last_error: why, next_attempt_at: next, claimed_by: null, claimed_at: null } });
	deps.logger.warn({ ...log, reason: why, next_attempt_at: new Date(next).toISOString() }, "email delivery failed; will retry");
	return "retrying";
}

/**
 * One attempt at each of these emails, claimed by this replica (SEND_PARALLEL at a time, the SMTP
 * pool's size); the ones sent are recorded in one update (only while the claim is still this
 * replica's), each failure on its own. Answers each email's outcome, by key.
 */
export async function attemptClaimed(deps: DeliveryDeps, emails: OutboxEmailDoc[], replica: string): Promise<Map<string, Outcome>> {
	const outcomes = new Map<string, Outcome>();
	const queue = [...emails];
	const worker = async () => {
		for (let email = queue.shift(); email; email = queue.shift()) {
			try {
				await deps.transport.send(email);
				outcomes.set(email._id, "sent");
			} catch (err) {
				outcomes.set(email._id, await failed(deps, email, replica, err));
			}
		}
	};
	await Promise.all(Array.from({ length: SEND_PARALLEL }, worker));
	const sent = [...outcomes].flatMap(([id, o]) => (o === "sent" ? [id] : []));
	// The body goes once sent: its links (a password reset's) open accounts; the envelope stays.
	if (sent.length) {
		await deps.Outbox.updateMany(
			{ _id: { $in: sent }, state: "sending", claimed_by: replica },
			{ $set: { state: "sent", sent_at: clock.nowMs(), text: "", html: "", last_error: null, claimed_by: null, claimed_at: null } },
		);
	}
	return outcomes;
}

/** Claims and sends one email now, if it is due and no replica has it; null when not claimed. */
export async function deliverNow(deps: DeliveryDeps, _id: string, replica: string): Promise<Outcome | null> {
	const email = await claimDue<OutboxEmailDoc>(deps.Outbox, _id, replica);
	return email ? (await attemptClaimed(deps, [email], replica)).get(email._id)! : null;
}

/** One sweep: takes back stale claims, then claims and sends the due emails (5 at a time, the SMTP pool's size). Answers what this replica did. */
export function sweep(deps: DeliveryDeps, replica: string): Promise<Record<Outcome, string[]>> {
	return sweepClaimed(deps.Outbox, CLAIM_TIMEOUT_MS, ["sent", "retrying", "dead"], (id) => deliverNow(deps, id, replica));
}
