// One digest pass, as Zulip's enqueue_emails and bulk_handle_digest_email: on the organization's
// digest weekday (UTC, Monday 0) with digest_emails_enabled, each active human with
// enable_digest_emails who has not been active for DIGEST_CUTOFF_DAYS gets the period's hot
// conversations in their channels and the new channels, unless there is nothing to say or a digest
// went to them in the last 12 hours. The data comes in one call per service per batch of readers.
//
// Exactly once per reader and period (the UTC date) with any number of replicas: the email's
// outbox key is `digest:<user ID>:<date>`, stored by a unique insert (outbox/outbox.ts), so of
// replicas racing for one reader one stores it and the others store nothing. Passes repeat through
// the day (the timer), each skipping the readers already served.
import { call } from "../../../shared/actions";
import type { DigestChannels, DigestRecipients, DigestSample, DigestTopicRef } from "../../../shared/digest";
import { mailMany, type MailerDeps } from "../outbox/mailer";
import type { Footer } from "../templates/layout";
import { unsubscribeLinks } from "../unsubscribe/unsubscribe-links";
import { DIGEST_CUTOFF_DAYS, hotTopics, weighTopics, type DigestTopic, type Sender } from "./hot-topics";
import { digestEmail, type DigestConversation } from "./digest-email";

const DAY_MS = 86_400_000;
/** Zulip's rule: no second digest within 12 hours (its RealmAuditLog check). */
const RESEND_GUARD_MS = 12 * 3_600_000;
/** Readers per batch: each batch is one call to each service (bounded answers on the bus). */
const BATCH = 500;

export interface DigestPassResult {
	/** The period served (UTC date), or null when today is not the organization's digest day. */
	period: string | null;
	/** Readers whose digest this pass stored. */
	sent: number[];
}

/** Python's date.weekday(): Monday 0 .. Sunday 6 (UTC, as Zulip's timezone_now()). */
export const zulipWeekday = (ms: number) => (new Date(ms).getUTCDay() + 6) % 7;

export const digestKey = (userId: number, period: string) => `digest:${userId}:${period}`;

type Reader = DigestRecipients["users"][number];

export async function digestPass(deps: MailerDeps, nowMs: number): Promise<DigestPassResult> {
	const cutoffMs = Math.max(0, nowMs - DIGEST_CUTOFF_DAYS * DAY_MS);
	const { realm, users } = await call(deps.broker, "users.digestRecipients", { inactive_since_ms: cutoffMs });
	if (!realm.digest_emails_enabled || zulipWeekday(nowMs) !== realm.digest_weekday) return { period: null, sent: [] };
	const period = new Date(nowMs).toISOString().slice(0, 10);
	const result: DigestPassResult = { period, sent: [] };
	for (let i = 0; i < users.length; i += BATCH) {
		const due = await notServed(deps, users.slice(i, i + BATCH), period, nowMs);
		if (due.length) result.sent.push(...(await digestBatch(deps, realm, due, period, cutoffMs)));
	}
	if (result.sent.length) deps.logger.info({ period, digests: result.sent.length }, "digest emails stored");
	return result;
}

/** The readers without a digest for this period or in the last 12 hours. */
async function notServed(deps: MailerDeps, readers: Reader[], period: string, nowMs: number): Promise<Reader[]> {
	const ids = readers.map((r) => r.user.user_id);
	const served = await deps.Outbox.find(
		{ user_id: { $in: ids }, $or: [{ _id: { $in: ids.map((id) => digestKey(id, period)) } }, { kind: "digest", created_at: { $gt: nowMs - RESEND_GUARD_MS } }] },
		{ user_id: 1 },
	).lean();
	const skip = new Set(served.map((d) => d.user_id));
	return readers.filter((r) => !skip.has(r.user.user_id));
}

async function digestBatch(deps: MailerDeps, realm: DigestRecipients["realm"], readers: Reader[], period: string, cutoffMs: number): Promise<number[]> {
	const channels = await call(deps.broker, "channels.digestChannels", { user_ids: readers.map((r) => r.user.user_id), since_ms: cutoffMs });
	const channelIds = [...new Set(Object.values(channels.subscriptions).flat())];
	const { topics } = await call(deps.broker, "messages.digestTopics", { channel_ids: channelIds, since: Math.floor(cutoffMs / 1000) });
	const senderIds = [...new Set(topics.flatMap((t) => t.senders.map(([id]) => id)))];
	const { users: senderRows } = senderIds.length ? await call(deps.broker, "users.getMany", { user_ids: senderIds }) : { users: [] };
	const weighed = weighTopics(topics, new Map<number, Sender>(senderRows.map((u) => [u.user_id, u])));

	const plans = readers.map((r) => ({
		reader: r,
		hot: hotTopics(weighed, new Set(channels.subscriptions[String(r.user.user_id)] ?? [])),
		// Zulip's gather_new_streams: public channels, or only web-public ones for guests.
		newChannels: channels.new_channels.filter((c) => (r.guest ? c.is_web_public : !c.invite_only)),
	}));
	// Zulip's enough_traffic: nothing to say, no email.
	const worth = plans.filter((p) => p.hot.length || p.newChannels.length);
	const samples = await sampled(deps, worth.flatMap((p) => p.hot));

	// One unsubscribe link per reader and one insert of their emails for the batch.
	const links = await unsubscribeLinks(deps, realm.url, "digest", worth.map(({ reader }) => ({ user_id: reader.user.user_id, as: reader.user })));
	const stored = await mailMany(
		deps,
		worth.map(({ reader, hot, newChannels }) => {
			const { user } = reader;
			const context = {
				realm_name: realm.name,
				realm_url: realm.url,
				conversations: hot.map((t) => conversation(t, channels, samples)),
				new_channels: newChannels.map((c) => ({ id: c.id, name: c.name })),
			};
			return {
				key: digestKey(user.user_id, period),
				kind: "digest",
				to: user.delivery_email,
				user_id: user.user_id,
				realm_url: realm.url,
				unsubscribe: { type: "digest" as const, as: user, link: links.get(user.user_id) },
				render: (footer: Footer) => digestEmail(context, footer),
			};
		}),
	);
	const keys = new Set(stored);
	return worth.flatMap(({ reader }) => (keys.has(digestKey(reader.user.user_id, period)) ? [reader.user.user_id] : []));
}

const topicId = (t: DigestTopicRef) => JSON.stringify([t.channel_id, t.topic_key]);

/** The first messages of every topic shown, in one call. */
async function sampled(deps: MailerDeps, topics: DigestTopic[]): Promise<Map<string, DigestSample>> {
	const refs = new Map(topics.map((t) => [topicId(t.stats), { channel_id: t.stats.channel_id, topic_key: t.stats.topic_key, first_id: t.stats.first_id }]));
	if (!refs.size) return new Map();
	const { samples } = await call(deps.broker, "messages.digestSamples", { topics: [...refs.values()] });
	return new Map(samples.map((s) => [topicId({ ...s, first_id: 0 }), s]));
}

function conversation(t: DigestTopic, channels: DigestChannels, samples: Map<string, DigestSample>): DigestConversation {
	const sample = samples.get(topicId(t.stats));
	const messages = sample?.messages ?? [];
	return {
		channel_id: t.stats.channel_id,
		channel_name: channels.names[String(t.stats.channel_id)] ?? "",
		topic: sample?.topic ?? t.stats.topic_key,
		messages,
		// Zulip's teaser count: human messages beyond the samples shown.
		more: Math.max(0, t.length - messages.length),
		participants: t.participants,
	};
}
