// From a sent message to stored notices (Zulip's maybe_enqueue_notifications and the
// missedmessage_emails queue's consumer): the decision for every recipient, then one notice per
// recipient with a trigger, under `<message ID>:<user ID>` so every replica that hears the message
// stores it once. An email notice is due at the user's batch time: that of a notice of theirs
// already waiting, else now + email_notifications_batching_period_seconds (Zulip's
// MissedMessageWorker). The replica whose insert counted hands the push half to the push hook.
import type { ServiceBroker } from "moleculer";
import type { Model } from "mongoose";
import { clock } from "../../../shared/clock";
import { isDuplicateKey } from "../../../shared/db";
import type { MissedNoticeDoc } from "../models/missed-notice";
import { decide } from "./notification-data";
import type { PushDue, PushHook } from "./push-hook";
import { readRecipients } from "./recipients";
import type { SentMessage } from "./sent-message";

export interface EnqueueDeps {
	broker: ServiceBroker;
	Notice: Model<MissedNoticeDoc>;
	pushDue: PushHook;
}

/** Zulip's default email_notifications_batching_period_seconds. */
const DEFAULT_PERIOD_SECONDS = 120;

/** Stores the notices a sent message makes; answers how many this replica stored. */
export async function noticeSent(deps: EnqueueDeps, sent: SentMessage): Promise<number> {
	const recipients = await readRecipients(deps.broker, sent);
	if (!recipients) return 0;
	const decisions = decide({ sender_id: sent.sender_id, direct: sent.channel_id === undefined }, recipients.facts, recipients.idle);
	if (!decisions.size) return 0;
	const now = clock.nowMs();
	const emailed = [...decisions].filter(([, d]) => d.email).map(([u]) => u);
	const waiting = emailed.length ? await deps.Notice.find({ user_id: { $in: emailed }, state: "pending" }, { user_id: 1, due_at: 1 }).lean() : [];
	const batchTime = new Map(waiting.map((w) => [w.user_id, w.due_at]));
	const pushes: PushDue[] = [];
	let stored = 0;
	await Promise.all(
		[...decisions].map(async ([user_id, d]) => {
			const period = Number(recipients.users.users[String(user_id)]?.settings.email_notifications_batching_period_seconds ?? DEFAULT_PERIOD_SECONDS);
			const doc: MissedNoticeDoc = {
				_id: `${sent.message_id}:${user_id}`,
				user_id,
				message_id: sent.message_id,
				email: d.email,
				push: d.push,
				state: d.email ? "pending" : "push",
				due_at: batchTime.get(user_id) ?? now + period * 1000,
				batch: null,
				created_at: now,
			};
			try {
				await deps.Notice.collection.insertOne(doc as never);
			} catch (err) {
				if (isDuplicateKey(err)) return; // another replica stored it
				throw err;
			}
			stored++;
			if (d.push) pushes.push({ user_id, trigger: d.push });
		}),
	);
	if (pushes.length) {
		await deps.pushDue(sent, pushes).catch((err: unknown) => deps.broker.logger.error({ err, message_id: sent.message_id }, "push notifications not handed on"));
	}
	return stored;
}
