// From a sent message to stored notices (Zulip's maybe_enqueue_notifications and the
// missedmessage_emails queue's consumer): the decision for every recipient, then one notice per
// recipient with a trigger (in one unordered insert), under `<message ID>:<user ID>` so every replica that hears the message
// stores it once. An email notice is due email_notifications_batching_period_seconds after it was
// stored; the user's batch goes when their first notice is due and takes every notice of theirs
// waiting then (Zulip's MissedMessageWorker: the batch time is the first one's). The replica whose
// insert counted hands the push half to the push hook. A content edit that newly mentions users
// goes the same way with Zulip's rules for edits (decideEdit): a user already told of the message
// (a notice still waiting under the same key) is not told twice.
import type { ServiceBroker } from "moleculer";
import type { Model } from "mongoose";
import { clock } from "../../../shared/clock";
import { insertNew } from "../../../shared/db";
import type { MissedNoticeDoc } from "../models/missed-notice";
import { decide, type Decide } from "./notification-data";
import { noPush, type PushDue, type PushHook } from "./push-hook";
import { readRecipients } from "./recipients";
import type { SentMessage } from "./sent-message";

export interface EnqueueDeps {
	broker: ServiceBroker;
	Notice: Model<MissedNoticeDoc>;
	pushDue: PushHook;
}

/** Zulip's default email_notifications_batching_period_seconds. */
const DEFAULT_PERIOD_SECONDS = 120;

/** The group a user was mentioned through, not by name (the smallest such group). */
function groupOf(sent: SentMessage, userId: number): { name: string; size: number } | null {
	const g = sent.mentioned_user_groups?.[String(userId)];
	return g ? { name: g.name, size: g.size } : null;
}

/** Stores the notices a sent (or, with decideEdit, edited) message makes; answers how many this replica stored. */
export async function noticeSent(deps: EnqueueDeps, sent: SentMessage, decision: Decide = decide): Promise<number> {
	const recipients = await readRecipients(deps.broker, sent);
	if (!recipients) return 0;
	const decided = decision({ sender_id: sent.sender_id, direct: sent.channel_id === undefined }, recipients.facts, recipients.idle);
	// Push alone is stored only where a push hook listens (nothing to hand on otherwise).
	const decisions = deps.pushDue === noPush ? new Map([...decided].filter(([, d]) => d.email)) : decided;
	if (!decisions.size) return 0;
	const now = clock.nowMs();
	const docs: MissedNoticeDoc[] = [...decisions].map(([user_id, d]) => {
		const period = Number(recipients.users.users[String(user_id)]?.settings.email_notifications_batching_period_seconds ?? DEFAULT_PERIOD_SECONDS);
		return {
			_id: `${sent.message_id}:${user_id}`,
			user_id,
			message_id: sent.message_id,
			email: d.email,
			push: d.push,
			group: d.email === "mentioned" ? groupOf(sent, user_id) : null,
			state: d.email ? "pending" : "push",
			due_at: now + period * 1000,
			batch: null,
			created_at: now,
		};
	});
	// One write for them all; those another replica stored first are left to it.
	const stored = await insertNew(deps.Notice.collection, docs);
	const pushes: PushDue[] = stored.flatMap((n) => (n.push ? [{ user_id: n.user_id, trigger: n.push as PushDue["trigger"] }] : []));
	if (pushes.length) {
		await deps.pushDue(sent, pushes).catch((err: unknown) => deps.broker.logger.error({ err, message_id: sent.message_id }, "push notifications not handed on"));
	}
	return stored.length;
}
