// Sending the due batches (Zulip's maybe_send_batched_emails and handle_missedmessage_emails):
// every sweep finds the users whose batch time has come, and one replica takes each user's batch.
// Its claim is the insert of the user's ID (a unique key, atomic on every store; one unordered
// insert for the sweep's users), given back when done; a claim left by a dead replica is taken
// back after CLAIM_TIMEOUT_MS. The replica marks each batch's notices `batched` under a name, asks
// the users and messages services once for a group of users (their settings; which of their
// messages are still there and unread, and the earlier messages of their channel topics quoted as
// context), makes one unsubscribe link per batch, and stores one email
// per conversation in the outbox under `<batch>:<hash of the conversation>`; a batch taken again
// after a crash has the same name and so the same keys, and the outbox stores each email once.
// Nothing goes to a user who turned enable_offline_email_notifications off, as Zulip's
// handle_missedmessage_emails drops it.
import { createHash } from "node:crypto";
import type { Model } from "mongoose";
import { call, type Identity } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { insertNew } from "../../../shared/db";
import type { NotificationFacts } from "../../../shared/notification-facts";
import type { MissedClaimDoc, MissedNoticeDoc } from "../models/missed-notice";
import { mailMany, type MailerDeps, type Outgoing } from "../outbox/mailer";
import type { Footer } from "../templates/layout";
import { CLAIM_TIMEOUT_MS } from "../outbox/delivery";
import { unsubscribeLinks } from "../unsubscribe/unsubscribe-links";
import { conversationKey, missedEmail, type Missed, type MissedEmailFacts, type ShownMessage } from "./missed-email";
import type { NotificationTrigger } from "./notification-data";

export interface BatchDeps extends MailerDeps {
	Notice: Model<MissedNoticeDoc>;
	Claim: Model<MissedClaimDoc>;
}

/** Users whose batches one sweep takes; the rest wait for the next. */
const USERS_PER_SWEEP = 500;
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

/** A group of users asked for in one call to each service: at most this many users, or notices. */
const USERS_PER_CALL = 100;
const NOTICES_PER_CALL = 5_000;

interface Batch {
	user_id: number;
	batch: string;
	notices: MissedNoticeDoc[];
}

/** Claims what no replica has of `userIds`; answers those this replica claimed. */
async function claimUsers(deps: BatchDeps, userIds: number[], replica: string): Promise<number[]> {
	const now = clock.nowMs();
	try {
		const mine = await insertNew(deps.Claim.collection, userIds.map((_id) => ({ _id, claimed_by: replica, claimed_at: now })));
		return mine.map((c) => c._id);
	} catch (err) {
		await releaseUsers(deps, userIds, replica);
		throw err;
	}
}

const releaseUsers = (deps: BatchDeps, userIds: number[], replica: string) => deps.Claim.deleteMany({ _id: { $in: userIds }, claimed_by: replica });

/**
 * The batches of the claimed users: one a dead replica took first, else every waiting notice once
 * the first is due (marked `batched`, under the user's claim so no other replica batches them).
 */
async function takeBatches(deps: BatchDeps, userIds: number[]): Promise<Batch[]> {
	const notices = await deps.Notice.find({ user_id: { $in: userIds }, state: { $in: ["pending", "batched"] } }).lean();
	const byUser = new Map<number, MissedNoticeDoc[]>();
	for (const n of notices) byUser.set(n.user_id, [...(byUser.get(n.user_id) ?? []), n]);
	const now = clock.nowMs();
	const batches: Batch[] = [];
	const marks = [];
	for (const [user_id, theirs] of byUser) {
		const left = theirs.filter((n) => n.state === "batched");
		if (left.length) {
			const batch = left[0].batch!;
			batches.push({ user_id, batch, notices: left.filter((n) => n.batch === batch) });
			continue;
		}
		if (!theirs.some((n) => n.due_at <= now)) continue;
		const batch = `missed-message:${user_id}:${Math.min(...theirs.map((n) => n.message_id))}`;
		marks.push({ updateMany: { filter: { _id: { $in: theirs.map((n) => n._id) }, state: "pending" }, update: { $set: { state: "batched", batch } } } });
		batches.push({ user_id, batch, notices: theirs.map((n) => ({ ...n, state: "batched" as const, batch })) });
	}
	if (marks.length) await deps.Notice.bulkWrite(marks as never[], { ordered: false });
	return batches;
}

/** Groups of batches for one call each. */
function callGroups(batches: Batch[]): Batch[][] {
	const groups: Batch[][] = [];
	let notices = Infinity;
	for (const b of batches) {
		const last = groups[groups.length - 1];
		if (!last || last.length >= USERS_PER_CALL || notices + b.notices.length > NOTICES_PER_CALL) {
			groups.push([b]);
			notices = b.notices.length;
		} else {
			last.push(b);
			notices += b.notices.length;
		}
	}
	return groups;
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

interface Mailing {
	batch: Batch;
	to: string;
	facts: MissedEmailFacts;
	messages: ShownMessage[];
	/** Earlier messages of the channel topics, quoted as context (Zulip's get_context_for_message). */
	context: ShownMessage[];
	as: Identity;
}

/** One batch's emails (one per conversation, the least recently active first). */
function batchEmails(deps: BatchDeps, m: Mailing, realmUrl: string, link: string | undefined): Outgoing[] {
	const byMessage = new Map(m.batch.notices.map((n) => [n.message_id, n]));
	const buckets = new Map<string, Missed[]>();
	for (const message of m.messages) {
		const key = conversationKey(message);
		const notice = byMessage.get(message.id)!;
		buckets.set(key, [...(buckets.get(key) ?? []), { message, trigger: notice.email as NotificationTrigger, group: notice.group ?? null }]);
	}
	// Context joins its topic's email, in message order; a message both missed and context is shown once, as missed.
	for (const message of m.context) {
		const list = buckets.get(conversationKey(message));
		if (list && !list.some((x) => x.message.id === message.id)) list.push({ message, trigger: null, group: null });
	}
	for (const list of buckets.values()) list.sort((x, y) => x.message.id - y.message.id);
	const byActivity = [...buckets].sort(([, a], [, b]) => a[a.length - 1].message.id - b[b.length - 1].message.id);
	return byActivity.map(([conversation, list]) => ({
		key: `${m.batch.batch}:${hash(conversation)}`,
		kind: "missed_message",
		to: m.to,
		user_id: m.batch.user_id,
		realm_url: realmUrl,
		unsubscribe: { type: "missed_messages" as const, as: m.as, link },
		headers: { "Reply-To": deps.noreply },
		render: (footer: Footer) => missedEmail(list, m.facts, footer),
	}));
}

/** What each batch's emails show: for users with emails on, their messages still there and unread. */
async function mailings(deps: BatchDeps, batches: Batch[]): Promise<{ mailings: Mailing[]; realm: NotificationFacts["realm"] }> {
	const { users, realm } = await call(deps.broker, "users.notificationFacts", { user_ids: batches.map((b) => b.user_id), names: EMAIL_SETTINGS });
	const wanted = batches.filter((b) => {
		const user = users[String(b.user_id)];
		return user?.is_active && !user.identity.is_bot && user.settings.enable_offline_email_notifications !== false;
	});
	if (!wanted.length) return { mailings: [], realm };
	const message_ids = [...new Set(wanted.flatMap((b) => b.notices.map((n) => n.message_id)))];
	const context_for = wanted.map((b) => ({ user_id: b.user_id, message_ids: b.notices.map((n) => n.message_id) }));
	const { messages, unread, context } = await call(deps.broker, "messages.unreadForNotices", { user_ids: wanted.map((b) => b.user_id), message_ids, context_for });
	const shown = new Map((messages as unknown as ShownMessage[]).map((m) => [m.id, m]));
	const contentAllowed = realm.message_content_allowed_in_email_notifications;
	const out: Mailing[] = [];
	for (const b of wanted) {
		const user = users[String(b.user_id)];
		const theirs = new Set(unread[String(b.user_id)] ?? []);
		const list = b.notices.flatMap((n) => (theirs.has(n.message_id) && shown.has(n.message_id) ? [shown.get(n.message_id)!] : [])).sort((x, y) => x.id - y.id);
		if (!list.length) continue;
		const facts: MissedEmailFacts = {
			user_id: b.user_id,
			realm_name: realm.name,
			realm_url: realm.url,
			show_content: contentAllowed && user.settings.message_content_in_email_notifications !== false,
			hidden_by_realm: !contentAllowed,
			realm_in_subject: user.settings.realm_name_in_email_notifications_policy === REALM_NAME_ALWAYS,
		};
		const quoted = (context[String(b.user_id)] ?? []).flatMap((id) => (shown.has(id) ? [shown.get(id)!] : []));
		out.push({ batch: b, to: user.identity.delivery_email, facts, messages: list, context: quoted, as: user.identity });
	}
	return { mailings: out, realm };
}

/**
 * Sends a group of batches: two calls, one insert of unsubscribe keys, one of the emails (their
 * keys named after the batches, so a group sent again after a failure stores nothing twice). If it
 * fails, its batches stay `batched` for a later sweep.
 */
async function sendGroup(deps: BatchDeps, batches: Batch[], out: SweepResult): Promise<void> {
	const { mailings: todo, realm } = await mailings(deps, batches);
	const links = await unsubscribeLinks(deps, realm.url, "missed_messages", todo.map((m) => ({ user_id: m.batch.user_id, as: m.as })));
	const emails = new Map(todo.map((m) => [m.batch, batchEmails(deps, m, realm.url, links.get(m.batch.user_id))]));
	await mailMany(deps, [...emails.values()].flat());
	await deps.Notice.deleteMany({ _id: { $in: batches.flatMap((b) => b.notices.map((n) => n._id)) } });
	for (const b of batches) {
		const keys = (emails.get(b) ?? []).map((e) => e.key);
		if (keys.length) out.stored.push(...keys);
		else out.empty.push(b.batch);
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
	if (!users.length) return out;
	const claimed = await claimUsers(deps, users, replica);
	try {
		for (const group of callGroups(await takeBatches(deps, claimed))) {
			try {
				await sendGroup(deps, group, out);
			} catch (err) {
				// The bus or a store failed: the batches stay `batched` and a later sweep sends them.
				deps.logger.warn({ err, user_ids: group.map((b) => b.user_id) }, "missed-message batches not sent; a later sweep retries");
			}
		}
	} catch (err) {
		deps.logger.warn({ err }, "missed-message batches not taken; a later sweep retries");
	} finally {
		await releaseUsers(deps, claimed, replica);
	}
	return out;
}
