// Delivery: every replica sweeps for due scheduled messages and claims each with one conditional
// update ({_id, state: "scheduled"} -> "sending"), atomic on MongoDB and the embedded store, so
// exactly one replica sends it. The send goes through messages.sendScheduled as the sender, with
// the idempotency key `scheduled:<id>`: a claim whose replica died mid-send is taken again after
// the claim timeout, and the repeated send answers the message the first one stored.
import type { ServiceBroker } from "moleculer";
import type { Model } from "mongoose";
import type { ApiUser, Identity } from "../../shared/actions";
import { renderError } from "../../shared/errors";
import { clock } from "../../shared/clock";
import type { ScheduledMessageDoc } from "./models/scheduled-message";
import { LATE_CUTOFF_SECONDS, scheduledView } from "./rules";

export interface DeliveryDeps {
	broker: ServiceBroker;
	ScheduledMessage: Model<ScheduledMessageDoc>;
	claimTimeoutSeconds: number;
	announce(userId: number, change: Record<string, unknown>): Promise<void>;
}

/** At most this many deliveries per sweep; the next sweep takes the rest. */
const BATCH = 100;

/** A failure that sending again cannot fix (an API error: no access any more, a deactivated user). */
class PermanentFailure extends Error {}

/** The sender as they are now: role and status may have changed since they scheduled it. */
async function currentSender(deps: DeliveryDeps, m: ScheduledMessageDoc): Promise<Identity> {
	const { users } = await deps.broker.call<{ users: ApiUser[] }, Record<string, unknown>>(
		"users.getMany",
		{ user_ids: [m.sender_id], client_gravatar: true, include_custom_profile_fields: false },
		{ meta: { user: m.sender } },
	);
	const u = users[0];
	if (!u || !u.is_active) throw new PermanentFailure("Account is deactivated");
	return { ...m.sender, email: u.email, delivery_email: u.delivery_email ?? m.sender.delivery_email, full_name: u.full_name, role: u.role, is_bot: u.is_bot };
}

/** Sends one claimed message; marks it delivered, failed, or gives the claim back for a later sweep. */
async function deliver(deps: DeliveryDeps, m: ScheduledMessageDoc, replica: string): Promise<"delivered" | "failed" | "released"> {
	const mine = { _id: m._id, state: "sending" as const, claimed_by: replica };
	try {
		if (clock.now() > m.scheduled_timestamp + LATE_CUTOFF_SECONDS) throw new PermanentFailure("Message could not be sent at the scheduled time.");
		const sender = await currentSender(deps, m);
		const message = m.type === "stream" ? { type: "channel", to: m.to, topic: m.topic } : { type: "direct", to: m.to };
		const sent = await deps.broker.call<{ id: number }, Record<string, unknown>>(
			"messages.sendScheduled",
			{ ...message, content: m.content, read_by_sender: m.read_by_sender, idempotency_key: `scheduled:${m._id}` },
			{ meta: { user: sender } },
		);
		const done = await deps.ScheduledMessage.updateOne(mine, { $set: { state: "delivered", delivered_message_id: sent.id, claimed_by: null, claimed_at: null } });
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
		if (failed) await deps.announce(m.sender_id, { op: "update", scheduled_message: scheduledView(failed) });
		return "failed";
	}
}

/**
 * One sweep: takes back stale claims, then claims and delivers the due messages one by one.
 * Answers what this replica did, for tests and logs.
 */
export async function sweep(deps: DeliveryDeps, replica: string): Promise<{ delivered: number[]; failed: number[]; released: number[] }> {
	const out = { delivered: [] as number[], failed: [] as number[], released: [] as number[] };
	const staleBefore = clock.nowMs() - deps.claimTimeoutSeconds * 1000;
	const stale = await deps.ScheduledMessage.find({ state: "sending", claimed_at: { $lte: staleBefore } }, { _id: 1, claimed_at: 1 }).limit(BATCH).lean();
	for (const s of stale) {
		// Conditional on the claim seen, so only one replica takes a stale claim back.
		await deps.ScheduledMessage.updateOne({ _id: s._id, state: "sending", claimed_at: s.claimed_at }, { $set: { state: "scheduled", claimed_by: null, claimed_at: null } });
	}
	const due = await deps.ScheduledMessage.find({ state: "scheduled", scheduled_timestamp: { $lte: clock.now() } }, { _id: 1 })
		.sort({ scheduled_timestamp: 1, _id: 1 })
		.limit(BATCH)
		.lean();
	for (const { _id } of due) {
		const claimed = await deps.ScheduledMessage.findOneAndUpdate(
			{ _id, state: "scheduled" },
			{ $set: { state: "sending", claimed_by: replica, claimed_at: clock.nowMs() } },
			{ returnDocument: "after" },
		).lean();
		if (!claimed) continue; // another replica has it, or it was edited or deleted meanwhile
		out[await deliver(deps, claimed, replica)].push(_id);
	}
	return out;
}
