// Calls of outgoing webhook bots, off the sender's request path. Every replica hears
// `message.sent` and stores one job per bot the message triggers under the key
// `<message ID>:<bot ID>` (a second insert of the key fails, so replicas create it once); a job
// is claimed with one conditional update ({_id, state: "pending"} -> "sending"), atomic on
// MongoDB and the embedded store, so exactly one replica calls the bot. A claim whose replica
// died is taken back after the call's timeout and a margin. What the bot's answer causes (its
// reply, Zulip's "Failure!" replies, the notice to its owner) is sent under idempotency keys
// derived from the job, so a job run twice after a lost claim posts each once.
//
// Outcomes, as Zulip's do_rest_call: a 2xx answer posts the reply its interface reads; another
// status is a failure ("Failure! Third party responded with N" in the conversation, a notice to
// the owner); a timeout or a connection error is retried MAX_REQUEST_RETRIES times, with backoff,
// then "Failure! Bot is unavailable" and the notice; a refused address is the 407 Smokescreen
// would answer; any other error of the call (an answer over the size limit among them) is
// Zulip's "An exception of type ..." failure.
import type { ServiceBroker } from "moleculer";
import type { Model } from "mongoose";
import { call, type OutgoingBot } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { isDuplicateKey } from "../../../shared/db";
import { renderError } from "../../../shared/errors";
import { post, type CallOutcome, type HttpLimits } from "./http-call";
import { BadAnswer, buildRequest, replyOf } from "./interfaces";
import type { OutgoingJobDoc } from "./models/outgoing-job";
import { ownerNotice, type NoticeFacts } from "./owner-notice";
import { mayTrigger, payloadMessage, triggersOf, type SentFacts } from "./triggers";

/** Zulip's MAX_REQUEST_RETRIES: retries after the first call, for timeouts and connection errors. */
export const MAX_REQUEST_RETRIES = 3;
/** Due jobs read at a time by a sweep. */
const BATCH = 100;

export interface OutgoingDeps extends HttpLimits {
	broker: ServiceBroker;
	Job: Model<OutgoingJobDoc>;
	externalUrl: string;
	retryMs: number;
	/** The organization's outgoing webhook bots, as users.outgoingBots answers (outgoing-bots.ts keeps them). */
	bots(): Promise<OutgoingBot[]>;
}

/** Stores the jobs a sent message makes; answers their IDs (those another replica stored too). */
export async function enqueue(deps: OutgoingDeps, sent: SentFacts): Promise<string[]> {
	if (sent.sender_is_bot || !mayTrigger(sent)) return [];
	const triggers = triggersOf(sent, await deps.bots());
	if (!triggers.length) return [];
	if (!sent.event) {
		deps.broker.logger.warn({ message_id: sent.message_id }, "message.sent without the message: outgoing webhooks not called");
		return [];
	}
	const message = payloadMessage({ ...sent, event: sent.event });
	const now = clock.nowMs();
	const ids: string[] = [];
	for (const t of triggers) {
		const _id = `${sent.message_id}:${t.bot.user_id}`;
		try {
			await deps.Job.create({ _id, message_id: sent.message_id, bot_id: t.bot.user_id, trigger: t.trigger, message, state: "pending", failed_tries: 0, next_at: now, claimed_by: null, claimed_at: null, created_at: now });
		} catch (err) {
			if (!isDuplicateKey(err)) throw err;
		}
		ids.push(_id);
	}
	return ids;
}

/** Claims a due job for this replica; null when another replica has it or it is not due. */
function claim(deps: OutgoingDeps, _id: string, replica: string) {
	return deps.Job.findOneAndUpdate({ _id, state: "pending", next_at: { $lte: clock.nowMs() } }, { $set: { state: "sending", claimed_by: replica, claimed_at: clock.nowMs() } }, { returnDocument: "after" }).lean();
}

const identityOf = (bot: OutgoingBot) => ({ user_id: bot.user_id, realm_id: bot.realm_id, email: bot.email, delivery_email: bot.delivery_email, full_name: bot.full_name, role: bot.role, is_bot: true });

/** Zulip's do_flag_service_bots_messages_as_processed: the message is read for the bot (a no-op where the bot is no recipient). */
async function markProcessed(deps: OutgoingDeps, bot: OutgoingBot, job: OutgoingJobDoc): Promise<void> {
	try {
		await call(deps.broker, "messages.updateFlags", { messages: [job.message_id], op: "add", flag: "read" }, { meta: { user: identityOf(bot) } });
	} catch (err) {
		deps.broker.logger.warn({ err, job: job._id }, "outgoing webhook message not marked read for the bot");
	}
}

/** Posts as the bot, in the job's conversation or to `to`; the key makes a repeated post answer the first. */
async function postAsBot(deps: OutgoingDeps, bot: OutgoingBot, job: OutgoingJobDoc, content: string, key: string, to?: number[]): Promise<void> {
	const m = job.message;
	const target =
		to !== undefined
			? { type: "private", to }
			: m.type === "stream"
				? { type: "stream", to: m.stream_id as number, topic: String(m.subject), skip_channel_access: true }
				: { type: "private", to: (m.display_recipient as Array<{ id: number }>).map((r) => r.id) };
	await call(deps.broker, "messages.sendScheduled", { ...target, content, read_by_sender: true, idempotency_key: `outgoing-webhook:${job._id}:${key}` }, { meta: { user: identityOf(bot), client: "OutgoingWebhookResponse" } });
}

/** Zulip's fail_with_message: "Failure! ..." in the conversation; a conversation gone meanwhile is let be. */
async function failWithMessage(deps: OutgoingDeps, bot: OutgoingBot, job: OutgoingJobDoc, text: string): Promise<void> {
	try {
		await postAsBot(deps, bot, job, `Failure! ${text}`, "failure");
	} catch (err) {
		deps.broker.logger.warn({ err, job: job._id }, "outgoing webhook failure reply not posted");
	}
}

/** Zulip's notify_bot_owner: a direct message from the bot to its owner. */
async function notifyOwner(deps: OutgoingDeps, bot: OutgoingBot, job: OutgoingJobDoc, facts: NoticeFacts): Promise<void> {
	if (bot.bot_owner_id === null) return;
	try {
		await postAsBot(deps, bot, job, ownerNotice(deps.externalUrl, bot.full_name, job, facts), "owner-notice", [bot.bot_owner_id]);
	} catch (err) {
		deps.broker.logger.warn({ err, job: job._id }, "outgoing webhook owner notice not sent");
	}
}

type Step = { outcome: string } | { retry: string };

/** What one call's outcome does; a retry is for the caller to schedule. */
async function settle(deps: OutgoingDeps, bot: OutgoingBot, job: OutgoingJobDoc, res: CallOutcome): Promise<Step> {
	switch (res.kind) {
		case "timeout":
			return { retry: `Request timed out after ${deps.timeoutMs / 1000} seconds.` };
		case "connection":
			return { retry: "A connection error occurred. Is my bot server down?" };
		case "refused":
			// Smokescreen's answer to a disallowed address.
			await failWithMessage(deps, bot, job, "Third party responded with 407");
			await notifyOwner(deps, bot, job, { status: 407 });
			return { outcome: `failed: refused ${res.error.address}` };
		case "error":
			await failWithMessage(deps, bot, job, `An exception of type *${res.error.name}* occurred for message \`${job.message.content}\`! See the Zulip server logs for more information.`);
			await notifyOwner(deps, bot, job, { exception: res.error });
			return { outcome: `failed: ${res.error.name}` };
		case "response":
			break;
	}
	if (res.status < 200 || res.status > 299) {
		await failWithMessage(deps, bot, job, `Third party responded with ${res.status}`);
		await notifyOwner(deps, bot, job, { status: res.status, response: res.body });
		return { outcome: `failed: status ${res.status}` };
	}
	const text = res.body.toString("utf8");
	try {
		const reply = replyOf(bot, text);
		if (reply === null) return { outcome: "no reply" };
		try {
			await postAsBot(deps, bot, job, reply, "reply");
		} catch (err) {
			const rendered = renderError(err);
			if (rendered.status >= 500) throw err; // the bus or a service is down: the job is run again
			throw new BadAnswer(rendered.body.msg);
		}
		return { outcome: "replied" };
	} catch (err) {
		if (!(err instanceof BadAnswer)) throw err;
		await failWithMessage(deps, bot, job, err.message);
		const failure = `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${err.message}`;
		await notifyOwner(deps, bot, job, { failure, response: text });
		return { outcome: `failed: ${err.message}` };
	}
}

/** Calls the bot of a claimed job and records what came of it. */
async function run(deps: OutgoingDeps, job: OutgoingJobDoc, replica: string): Promise<string> {
	const mine = { _id: job._id, state: "sending" as const, claimed_by: replica };
	// The bot as it is now (Zulip reads its services when the worker runs): gone or deactivated, no call.
	const bot = (await deps.bots()).find((b) => b.user_id === job.bot_id);
	let step: Step;
	if (!bot) step = { outcome: "bot gone" };
	else {
		const request = buildRequest(bot, job, new URL(deps.externalUrl).host);
		if ("unsupported" in request) {
			await failWithMessage(deps, bot, job, request.unsupported);
			step = { outcome: "failed: unsupported" };
		} else step = await settle(deps, bot, job, await post(bot.base_url, request, deps));
	}
	if ("retry" in step) {
		const tries = job.failed_tries + 1;
		if (tries <= MAX_REQUEST_RETRIES) {
			const next_at = clock.nowMs() + deps.retryMs * 2 ** (tries - 1);
			await deps.Job.updateOne(mine, { $set: { state: "pending", failed_tries: tries, next_at, claimed_by: null, claimed_at: null } });
			return "retry";
		}
		deps.broker.logger.warn({ bot_id: job.bot_id, message_id: job.message_id }, "outgoing webhook: maximum retries exceeded");
		await failWithMessage(deps, bot!, job, "Bot is unavailable");
		await notifyOwner(deps, bot!, job, { failure: step.retry });
		step = { outcome: `failed: ${step.retry}` };
	}
	if (bot) await markProcessed(deps, bot, job);
	await deps.Job.updateOne(mine, { $set: { state: "done", outcome: step.outcome, failed_tries: job.failed_tries, claimed_by: null, claimed_at: null } });
	return step.outcome;
}

/** Claims and runs these jobs if due and unclaimed; answers what this replica did with each it ran. */
export async function runJobs(deps: OutgoingDeps, ids: string[], replica: string): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	await Promise.all(
		ids.map(async (id) => {
			const job = await claim(deps, id, replica);
			if (!job) return;
			try {
				out[id] = await run(deps, job, replica);
			} catch (err) {
				// A service is unavailable: the claim is given back and a later sweep runs the job again.
				deps.broker.logger.warn({ err, job: id }, "outgoing webhook job will be run again");
				await deps.Job.updateOne({ _id: id, state: "sending", claimed_by: replica }, { $set: { state: "pending", next_at: clock.nowMs() + deps.retryMs, claimed_by: null, claimed_at: null } });
				out[id] = "released";
			}
		}),
	);
	return out;
}

/** How long a finished job is kept (for logs and an operator's questions) before a sweep drops it. */
const KEEP_DONE_MS = 7 * 24 * 3600 * 1000;

export async function purgeDone(deps: OutgoingDeps): Promise<number> {
	return (await deps.Job.deleteMany({ state: "done", created_at: { $lt: clock.nowMs() - KEEP_DONE_MS } })).deletedCount;
}

/** One sweep: takes back claims older than a call can last, then runs the due jobs. */
export async function sweep(deps: OutgoingDeps, replica: string): Promise<Record<string, string>> {
	const staleBefore = clock.nowMs() - (deps.timeoutMs + 60_000);
	const stale = await deps.Job.find({ state: "sending", claimed_at: { $lte: staleBefore } }, { _id: 1, claimed_at: 1 }).limit(BATCH).lean();
	for (const s of stale) {
		// Conditional on the claim seen, so only one replica takes a stale claim back.
		await deps.Job.updateOne({ _id: s._id, state: "sending", claimed_at: s.claimed_at }, { $set: { state: "pending", next_at: clock.nowMs(), claimed_by: null, claimed_at: null } });
	}
	const due = await deps.Job.find({ state: "pending", next_at: { $lte: clock.nowMs() } }, { _id: 1 }).sort({ next_at: 1 }).limit(BATCH).lean();
	return runJobs(deps, due.map((d) => d._id), replica);
}
