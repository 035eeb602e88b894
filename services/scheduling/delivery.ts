// Delivery: every replica sweeps for due scheduled messages and claims each with one conditional
// update ({_id, state: "scheduled"} -> "sending"), atomic on MongoDB and the embedded store (one
// lock per command), so exactly one replica sends it. The send goes through messages.sendScheduled
// as the sender, with the idempotency key `scheduled:<id>`, which the messages service stores on
// the message under a unique index: a claim whose replica died mid-send is taken again after the
// claim timeout, and the repeated send answers the message the first one stored. A message that
// cannot be sent is marked failed and its sender told by Notification Bot (failure-notice.ts).
import type { ServiceBroker } from "moleculer";
import type { Model } from "mongoose";
import { call, type Identity } from "../../shared/actions";
import { renderError } from "../../shared/errors";
import { clock } from "../../shared/clock";
import type { ScheduledMessageDoc } from "./models/scheduled-message";
import { LATE_CUTOFF_SECONDS, scheduledView } from "./scheduled-message-rules";
import { failureNotice } from "./failure-notice";

export interface DeliveryDeps {
	broker: ServiceBroker;
	ScheduledMessage: Model<ScheduledMessageDoc>;
	claimTimeoutSeconds: number;
	announce(userId: number, change: Record<string, unknown>): Promise<void>;
}

/** Due messages read at a time; a sweep reads again until none is left. */
const BATCH = 100;
/**
 * Deliveries in flight per replica (each is a claim, a send and a mark). The messages service does
 * the work; on the bench's 2 cores 16 delivered about twice what 4 did (README, bench section).
 */
const PARALLEL = 16;

/** A failure that sending again cannot fix; `notify` is false where Zulip sends no notice. */
class PermanentFailure extends Error {
	constructor(
		message: string,
		readonly notify = true,
	) {
		super(message);
	}
}

/** The sender as they are now: role and status may have changed since they scheduled it. */
async function currentSender(deps: DeliveryDeps, m: ScheduledMessageDoc): Promise<Identity> {
	const { users } = await call(
		deps.broker,
		"users.getMany",
		{ user_ids: [m.sender_id], client_gravatar: true, include_custom_profile_fields: false },
		{ meta: { user: m.sender } },
	);
	const u = users[0];
	// Zulip's UserDeactivatedError; no notice goes to a deactivated account.
	if (!u || !u.is_active) throw new PermanentFailure("Account is deactivated", false);
	return { ...m.sender, email: u.email, delivery_email: u.delivery_email ?? m.sender.delivery_email, full_name: u.full_name, role: u.role, is_bot: u.is_bot };
}

/** Notification Bot's direct message about a failure, at most once per failed attempt. */
async function notifyFailure(deps: DeliveryDeps, m: ScheduledMessageDoc, attempt: number): Promise<void> {
	try {
		await call(
			deps.broker,
			"messages.notifyUser",
			{ user_id: m.sender_id, content: failureNotice(m), idempotency_key: `scheduled-failed:${m._id}:${attempt}` },
			{ meta: { user: m.sender } },
		);
	} catch (err) {
		deps.broker.logger.warn({ err, scheduled_message_id: m._id }, "failed scheduled message notice not sent");
	}
}

type Outcome = "delivered" | "failed" | "released";

/** Sends one claimed message; marks it delivered, failed, or gives the claim back for a later sweep. */
async function deliver(deps: DeliveryDeps, m: ScheduledMessageDoc, replica: string, senders: Map<number, Promise<Identity>>): Promise<Outcome> {
	const mine = { _id: m._id, state: "sending" as const, claimed_by: replica };
	try {
		if (!senders.has(m.sender_id)) senders.set(m.sender_id, currentSender(deps, m));
		const sender = await senders.get(m.sender_id)!;
		const message = m.type === "stream" ? { type: "channel", to: m.to, topic: m.topic } : { type: "direct", to: m.to };
		// Lateness (Zulip's cutoff) is judged by the messages service after it looks up the key, so
		// a message an earlier attempt sent is recognised as sent however late this attempt is.
		const sent = await call(
			deps.broker,
			"messages.sendScheduled",
			{ ...message, content: m.content, read_by_sender: m.read_by_sender, idempotency_key: `scheduled:${m._id}`, deliver_by: m.scheduled_timestamp + LATE_CUTOFF_SECONDS },
			{ meta: { user: sender } },
		);
		const done = await deps.ScheduledMessage.updateOne(mine, { $set: { state: "delivered", delivered_message_id: sent.id, delivered_at: clock.nowMs(), claimed_by: null, claimed_at: null } });
		if (done.modifiedCount) await deps.announce(m.sender_id, { op: "remove", scheduled_message_id: m._id });
		return "delivered";
	} catch (err) {
		const rendered = renderError(err);
		const permanent = err instanceof PermanentFailure || rendered.status < 500;
		if (!permanent) {
			// The bus or a service is unavailable: a later sweep tries again (the send is idempotent).
			deps.broker.logger.warn({ err, scheduled_message_id: m._id }, "scheduled message delivery will be retried");
			await deps.ScheduledMessage.updateOne(mine, { $set: { state: "scheduled", claimed_by: null, claimed_at: null } });
			return "released";
		}
		const message = err instanceof PermanentFailure ? err.message : rendered.body.msg;
		const failed = await deps.ScheduledMessage.findOneAndUpdate(
			mine,
			{ $set: { state: "failed", failure_message: message, claimed_by: null, claimed_at: null } },
			{ returnDocument: "after" },
		).lean();
		if (failed && !(err instanceof PermanentFailure && !err.notify)) {
			await deps.announce(m.sender_id, { op: "update", scheduled_message: scheduledView(failed) });
			// After the mark, so a replica dying in between loses the notice rather than the mark.
			await notifyFailure(deps, failed, m.claimed_at ?? 0);
		}
		return "failed";
	}
}

/** Claims a due message for this replica; null when another replica (or an edit) got there first. */
function claim(deps: DeliveryDeps, _id: number, replica: string) {
	return deps.ScheduledMessage.findOneAndUpdate(
		{ _id, state: "scheduled", scheduled_timestamp: { $lte: clock.now() } },
		{ $set: { state: "sending", claimed_by: replica, claimed_at: clock.nowMs() } },
		{ returnDocument: "after" },
	).lean();
}

/**
 * One sweep: takes back stale claims, then claims and delivers the due messages, PARALLEL at a
 * time, until none is left. Answers what this replica did, for tests and logs.
 */
export async function sweep(deps: DeliveryDeps, replica: string): Promise<Record<Outcome, number[]>> {
	const out: Record<Outcome, number[]> = { delivered: [], failed: [], released: [] };
	const staleBefore = clock.nowMs() - deps.claimTimeoutSeconds * 1000;
	const stale = await deps.ScheduledMessage.find({ state: "sending", claimed_at: { $lte: staleBefore } }, { _id: 1, claimed_at: 1 }).limit(BATCH).lean();
	for (const s of stale) {
		// Conditional on the claim seen, so only one replica takes a stale claim back.
		await deps.ScheduledMessage.updateOne({ _id: s._id, state: "sending", claimed_at: s.claimed_at }, { $set: { state: "scheduled", claimed_by: null, claimed_at: null } });
	}
	// The sender's current identity, looked up once per sweep.
	const senders = new Map<number, Promise<Identity>>();
	for (;;) {
		const due = await deps.ScheduledMessage.find({ state: "scheduled", scheduled_timestamp: { $lte: clock.now() } }, { _id: 1 })
			.sort({ scheduled_timestamp: 1, _id: 1 })
			.limit(BATCH)
			.lean();
		const worker = async () => {
			for (let next = due.shift(); next; next = due.shift()) {
				const m = await claim(deps, next._id, replica);
				if (!m) continue; // another replica has it, or it was edited or deleted meanwhile
				out[await deliver(deps, m, replica, senders)].push(m._id);
			}
		};
		const read = due.length;
		await Promise.all(Array.from({ length: PARALLEL }, worker));
		// Done when the last read held everything due; released ones wait for the next sweep.
		if (read < BATCH || out.released.length) break;
	}
	return out;
}
