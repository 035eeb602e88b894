// Sending the due batches (Zulip's maybe_send_batched_emails and handle_missedmessage_emails):
// every sweep finds the users whose batch time has come, and one replica takes each user's batch.
// Its claim is the insert of the user's ID (a unique key, atomic on every store), given back when
// done; a claim left by a dead replica is taken back after CLAIM_TIMEOUT_MS. The replica marks the
// batch's notices `batched` under a name, asks the messages service once which of them are still
// there and unread, and stores one email per conversation in the outbox under `<batch>:<hash of the
// conversation>`; a batch taken again after a crash has the same name and so the same keys, and
// the outbox stores each email once. Nothing goes to a user who turned
// enable_offline_email_notifications off, as Zulip's handle_missedmessage_emails drops it.
import { createHash } from "node:crypto";
import type { Model } from "mongoose";
import { call } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { isDuplicateKey } from "../../../shared/db";
import type { MissedClaimDoc, MissedNoticeDoc } from "../models/missed-notice";
import { mail, type MailerDeps } from "../outbox/mailer";
import { CLAIM_TIMEOUT_MS } from "../outbox/delivery";
import { conversationKey, missedEmail, type Missed, type MissedEmailFacts, type ShownMessage } from "./missed-email";
import type { NotificationTrigger } from "./notification-data";

export interface BatchDeps extends MailerDeps {
	Notice: Model<MissedNoticeDoc>;
	Claim: Model<MissedClaimDoc>;
}

/** Users whose batches one sweep takes; the rest wait for the next. */
const USERS_PER_SWEEP = 500;
/** Batches in flight per replica. */
const PARALLEL = 5;
/** How long a push-only notice is kept as a record of the decision. */
const KEEP_PUSH_MS = 24 * 3600 * 1000;
const EMAIL_SETTINGS = ["enable_offline_email_notifications", "message_content_in_email_notifications", "realm_name_in_email_notifications_policy"];
/** realm_name_in_email_notifications_policy: 2 always names the organization; 1 (automatic) only for people in several, and this server holds one. */
const REALM_NAME_ALWAYS = 2;

/** The emails' keys this replica stored, and the batches it sent nothing for (all read, deleted, or emails off). */
export interface SweepResult {
	stored: string[];
	empty: string[];
}

async function claimUser(deps: BatchDeps, userId: number, replica: string): Promise<boolean> {
	try {
		await deps.Claim.collection.insertOne({ _id: userId, claimed_by: replica, claimed_at: clock.nowMs() } as never);
		return true;
	} catch (err) {
		if (isDuplicateKey(err)) return false;
		throw err;
	}
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

/** Sends one batch's emails (one per conversation, the least recently active first); answers their keys. */
async function deliverBatch(deps: BatchDeps, userId: number, batch: string, notices: MissedNoticeDoc[]): Promise<string[]> {
	const { users, realm } = await call(deps.broker, "users.notificationFacts", { user_ids: [userId], names: EMAIL_SETTINGS });
	const user = users[String(userId)];
	if (!user?.is_active || user.identity.is_bot || user.settings.enable_offline_email_notifications === false) return [];
	const { messages } = await call(deps.broker, "messages.unreadForNotice", { user_id: userId, message_ids: notices.map((n) => n.message_id) });
	if (!messages.length) return [];
	const byMessage = new Map(notices.map((n) => [n.message_id, n]));
	const buckets = new Map<string, Missed[]>();
	for (const m of messages as unknown as ShownMessage[]) {
		const key = conversationKey(m);
		const notice = byMessage.get(m.id)!;
		buckets.set(key, [...(buckets.get(key) ?? []), { message: m, trigger: notice.email as NotificationTrigger, group: notice.group ?? null }]);
	}
	const contentAllowed = realm.message_content_allowed_in_email_notifications;
	const facts: MissedEmailFacts = {
		user_id: userId,
		realm_name: realm.name,
		realm_url: realm.url,
		show_content: contentAllowed && user.settings.message_content_in_email_notifications !== false,
		hidden_by_realm: !contentAllowed,
		realm_in_subject: user.settings.realm_name_in_email_notifications_policy === REALM_NAME_ALWAYS,
	};
	const byActivity = [...buckets].sort(([, a], [, b]) => a[a.length - 1].message.id - b[b.length - 1].message.id);
	const keys: string[] = [];
	for (const [conversation, list] of byActivity) {
		const key = `${batch}:${hash(conversation)}`;
		await mail(deps, {
			key,
			kind: "missed_message",
			to: user.identity.delivery_email,
			user_id: userId,
			realm_url: realm.url,
			unsubscribe: { type: "missed_messages", as: user.identity },
			headers: { "Reply-To": deps.noreply },
			render: (footer) => missedEmail(list, facts, footer),
		});
		keys.push(key);
	}
	return keys;
}

/** Takes one user's due batch if no replica has it; answers the emails' keys, or null when not taken. */
export async function sendBatch(deps: BatchDeps, userId: number, replica: string): Promise<{ batch: string; keys: string[] } | null> {
	if (!(await claimUser(deps, userId, replica))) return null;
	try {
		// A batch a dead replica took first; else every waiting notice, once the first is due.
		let notices = await deps.Notice.find({ user_id: userId, state: "batched" }).lean();
		if (!notices.length) {
			const waiting = await deps.Notice.find({ user_id: userId, state: "pending" }).lean();
			if (!waiting.some((n) => n.due_at <= clock.nowMs())) return null;
			const batch = `missed-message:${userId}:${Math.min(...waiting.map((n) => n.message_id))}`;
			// Under this user's claim no other replica batches them.
			await deps.Notice.updateMany({ _id: { $in: waiting.map((n) => n._id) }, state: "pending" }, { $set: { state: "batched", batch } });
			notices = waiting.map((n) => ({ ...n, state: "batched" as const, batch }));
		}
		const batch = notices[0].batch!;
		const mine = notices.filter((n) => n.batch === batch);
		const keys = await deliverBatch(deps, userId, batch, mine);
		await deps.Notice.deleteMany({ _id: { $in: mine.map((n) => n._id) } });
		return { batch, keys };
	} finally {
		await deps.Claim.deleteOne({ _id: userId, claimed_by: replica });
	}
}

/** One sweep: takes back stale claims, then sends the due batches; answers what this replica did. */
export async function sweepMissed(deps: BatchDeps, replica: string): Promise<SweepResult> {
	const now = clock.nowMs();
	const stale = await deps.Claim.find({ claimed_at: { $lte: now - CLAIM_TIMEOUT_MS } }).lean();
	// Conditional on the claim seen, so a claim taken again meanwhile stays.
	for (const s of stale) await deps.Claim.deleteOne({ _id: s._id, claimed_at: s.claimed_at });
	await deps.Notice.deleteMany({ state: "push", created_at: { $lte: now - KEEP_PUSH_MS } });
	const [due, left] = await Promise.all([
		deps.Notice.find({ state: "pending", due_at: { $lte: now } }, { user_id: 1 }).sort({ due_at: 1 }).limit(USERS_PER_SWEEP).lean(),
		deps.Notice.find({ state: "batched" }, { user_id: 1 }).limit(USERS_PER_SWEEP).lean(),
	]);
	const users = [...new Set([...left, ...due].map((n) => n.user_id))];
	const out: SweepResult = { stored: [], empty: [] };
	const worker = async () => {
		for (let user = users.shift(); user !== undefined; user = users.shift()) {
			try {
				const done = await sendBatch(deps, user, replica);
				if (!done) continue;
				if (done.keys.length) out.stored.push(...done.keys);
				else out.empty.push(done.batch);
			} catch (err) {
				// The bus or a store failed: the batch stays `batched` and a later sweep sends it.
				deps.logger.warn({ err, user_id: user }, "missed-message batch not sent; a later sweep retries");
			}
		}
	};
	await Promise.all(Array.from({ length: PARALLEL }, worker));
	return out;
}
