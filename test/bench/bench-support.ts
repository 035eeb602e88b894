// What the benchmark parts share: a server node started as a child process and its owner's
// credentials, a JSON client for the API, data generated straight into the store in the shape the
// services store it, timing, tables, time limits, and cleanup when the run is interrupted.
import fs from "node:fs";
import path from "node:path";
import mongoose from "mongoose";
import { randomToken } from "../../shared/passwords";
import { searchFields } from "../../services/messages/search";
import type { MessageDoc } from "../../services/messages/models/message";
import { userMessageRow } from "../../services/messages/models/user-message";
import { userModel } from "../../services/users/models/user";
import { subscriptionModel } from "../../services/channels/models/subscription";
import { startServerNode, waitFor, type Proc } from "../support/processes";
import { ownerKey } from "../support/cluster";

// ---- cleanup on SIGINT / SIGTERM ----

const cleanups = new Set<() => Promise<unknown>>();
let signalsHooked = false;

/**
 * Runs `fn` if the run is interrupted (SIGINT, SIGTERM) before the returned function is called;
 * the run then exits. Normal ends clean up in their own `finally`.
 */
export function onInterrupt(fn: () => Promise<unknown>): () => void {
	if (!signalsHooked) {
		signalsHooked = true;
		for (const sig of ["SIGINT", "SIGTERM"] as const) {
			process.once(sig, () => {
				process.stderr.write(`\n${sig}: cleaning up...\n`);
				const all = [...cleanups].reverse();
				cleanups.clear();
				const done = all.reduce<Promise<unknown>>((p, f) => p.then(() => f().catch(() => undefined)), Promise.resolve());
				void Promise.race([done, sleep(20_000)]).then(() => process.exit(130));
			});
		}
	}
	cleanups.add(fn);
	return () => cleanups.delete(fn);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects with "timeout after N s" when `promise` takes longer than `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	try {
		return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new TimeoutError(`${what}: timeout after ${Math.round(ms / 1000)} s`)), ms)))]);
	} finally {
		clearTimeout(timer);
	}
}

export class TimeoutError extends Error {}

// ---- the server under test ----

export type Api = (method: string, p: string, params?: Record<string, string>, opts?: { timeoutMs?: number }) => Promise<Record<string, any>>;

export interface BenchServer {
	proc: Proc;
	/** Every node of the cluster, the gateway's last. */
	procs: Proc[];
	base: string;
	auth: { authorization: string };
	api: Api;
	stop(): Promise<void>;
}

/** The basic-auth header of the owner whose zuliprc the server wrote into `dataDir`. */
export function ownerAuth(dataDir: string): { authorization: string } {
	const { email, api_key } = ownerKey(dataDir);
	return { authorization: `Basic ${Buffer.from(`${email}:${api_key}`).toString("base64")}` };
}

/**
 * A client for the API: form-encoded parameters, and an error unless the answer is HTTP 200 with
 * `result: success` (the error names the status and Zulip's `msg`).
 */
export function apiClient(base: string, auth: { authorization: string }): Api {
	return async (method, p, params = {}, opts = {}) => {
		const body = new URLSearchParams(params).toString();
		const res = await fetch(`${base}${p}${method === "GET" ? `?${body}` : ""}`, {
			method,
			headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
			body: method === "GET" ? undefined : body,
			signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined,
		}).catch((err: Error) => {
			throw new Error(`${method} ${p}: ${err.name === "TimeoutError" ? `no answer within ${Math.round(opts.timeoutMs! / 1000)} s` : err.message}`);
		});
		const text = await res.text();
		let json: Record<string, any>;
		try {
			json = JSON.parse(text) as Record<string, any>;
		} catch {
			throw new Error(`${method} ${p}: HTTP ${res.status}, not JSON: ${text.slice(0, 80)}`);
		}
		if (res.status !== 200 || json.result !== "success") throw new Error(`${method} ${p}: HTTP ${res.status}, ${json.msg ?? json.result}`);
		return json;
	};
}

/**
 * Starts a server node (`tsx deploy/server.ts`) with `env` (DATA_DIR and PORT required) and waits
 * until it wrote the owner's zuliprc and its gateway answers. Stopped on interrupt too.
 */
export async function startBenchServer(env: Record<string, string>): Promise<BenchServer> {
	return startBenchNodes([{}], env, Number(env.PORT));
}

/** Several nodes sharing `shared` (a cluster over NATS), the gateway on `port`. */
export async function startBenchNodes(nodes: Array<Record<string, string>>, shared: Record<string, string>, port: number): Promise<BenchServer> {
	const procs = nodes.map((env) => startServerNode({ ...shared, ...env }));
	const stop = async () => {
		forget();
		await Promise.all(procs.map((p) => p.stop()));
	};
	const forget = onInterrupt(stop);
	try {
		const base = `http://127.0.0.1:${port}/api/v1`;
		const exited = () => procs.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
		await waitFor(async () => fs.existsSync(path.join(shared.DATA_DIR, "zuliprc")) || Boolean(exited()), "the owner's zuliprc", 120_000);
		if (exited()) throw new Error(`a server node exited during start:\n${exited()!.output().slice(-4000)}`);
		const auth = ownerAuth(shared.DATA_DIR);
		// Ready when the owner's own request succeeds: the gateway, the bus and the users service.
		await waitFor(async () => (await fetch(`${base}/users/me`, { headers: auth }).catch(() => null))?.status === 200 || Boolean(exited()), "the server", 60_000);
		if (exited()) throw new Error(`a server node exited during start:\n${exited()!.output().slice(-4000)}`);
		return { proc: procs.at(-1)!, procs, base, auth, api: apiClient(base, auth), stop };
	} catch (err) {
		await stop();
		throw err;
	}
}

// ---- data generated straight into the store ----

/** The fields of a generated message that differ from one message to the next. */
export function messageContent(id: number, topic: string) {
	const rendered = `<p>message ${id}</p>`;
	return { _id: id, topic, topic_key: topic.toLowerCase(), content: `message ${id}`, rendered_content: rendered, ...searchFields(rendered, topic) };
}

/** A whole channel message as the messages service stores it (for the raw-store figures). */
export function syntheticMessage(id: number, channelId: number, topic: string): MessageDoc {
	return {
		realm_id: 1,
		sender_id: 1,
		type: "stream",
		recipient_id: channelId,
		channel_id: channelId,
		dm_user_ids: [],
		timestamp: 1_700_000_000 + id,
		client: "bench",
		is_me_message: false,
		has_link: false,
		has_image: false,
		has_attachment: false,
		is_resolve_notice: false,
		edit_history: [],
		last_edit_timestamp: null,
		last_moved_timestamp: null,
		...messageContent(id, topic),
	};
}

/**
 * Five topics, `topic-0` holding 40% of the messages (at least 10,000 of 25,000 or more) and
 * `topic-1` ... `topic-4` 15% each, interleaved through the history.
 */
export function fiveTopics(i: number): string {
	const r = i % 20;
	return r < 8 ? "topic-0" : `topic-${1 + Math.floor((r - 8) / 3)}`;
}

/** How many of `count` messages `fiveTopics` puts in `topic`. */
export const countInTopic = (count: number, topic: string, topicOf: (i: number) => string) => Array.from({ length: count }, (_, i) => topicOf(i)).filter((t) => t === topic).length;

const BATCH = 5000;

/**
 * `count` messages in `channel` (subscribing the owner, which creates it), generated straight into
 * the messages database: one message is sent through the API, and the others are copies of what
 * the service stored for it, with their own IDs (reserved from the service's counter), topics and
 * content, each with the owner's row carrying `flags`.
 */
export async function generateMessages(
	api: Api,
	msgDb: mongoose.mongo.Db,
	opts: { channel: string; count: number; topicOf: (i: number) => string; flags: string[]; timeoutMs?: number; otherReaders?: number[] },
): Promise<{ channelId: number; ids: number[] }> {
	const timeout = opts.timeoutMs ?? 10 * 60_000;
	await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: opts.channel }]) });
	const channelId = (await api("GET", "/get_stream_id", { stream: opts.channel })).stream_id as number;
	const first = (await api("POST", "/messages", { type: "channel", to: String(channelId), topic: opts.topicOf(0), content: "seed" })).id as number;
	const seed = (await msgDb.collection("messages").findOne({ _id: first as never })) as unknown as MessageDoc;
	// A copy is not the seed's send: the seed's idempotency key (unique) stays its own.
	delete seed.idempotency_key;
	const owner = (await api("GET", "/users/me")).user_id as number;
	const counter = await msgDb.collection("counters").findOneAndUpdate({ _id: "message" as never }, { $inc: { seq: opts.count } }, { returnDocument: "after" });
	const start = (counter!.seq as number) - opts.count + 1;
	const ids = Array.from({ length: opts.count }, (_, i) => start + i);
	process.stderr.write(`generating ${opts.count} messages in #${opts.channel}...\n`);
	for (let off = 0; off < opts.count; off += BATCH) {
		const batch: MessageDoc[] = ids.slice(off, off + BATCH).map((id, i) => ({ ...seed, ...messageContent(id, opts.topicOf(off + i)) }));
		const t = Date.now();
		await withTimeout(msgDb.collection("messages").insertMany(batch as never[]), timeout, "generating messages");
		// One row per reader of each message: the owner's, and any other readers' (user IDs only).
		const readers = [owner, ...(opts.otherReaders ?? [])];
		const rows = batch.flatMap((m) => readers.map((user) => userMessageRow(user, m, opts.flags)));
		for (let r = 0; r < rows.length; r += 10 * BATCH) {
			await withTimeout(msgDb.collection("user_messages").insertMany(rows.slice(r, r + 10 * BATCH) as never[]), timeout, "generating messages");
		}
		process.stderr.write(`  ${off + batch.length} messages (${Date.now() - t} ms for this batch)\n`);
	}
	return { channelId, ids };
}

/** A model's document with its schema's defaults, without a database. */
const detached = mongoose.createConnection();
const UserShape = userModel(detached);
const SubscriptionShape = subscriptionModel(detached);

/**
 * `count` member accounts generated straight into the users database, subscribed (with the owner)
 * to `channel`. A change to the owner then tells every node to reload who is active.
 */
export async function generateSubscribers(api: Api, client: mongoose.mongo.MongoClient, prefix: string, channel: string, count: number): Promise<{ channelId: number; userIds: number[] }> {
	const usersDb = client.db(`${prefix}_users`);
	const channelsDb = client.db(`${prefix}_channels`);
	process.stderr.write(`generating ${count} subscribers of #${channel}...\n`);
	const realmId = (await usersDb.collection("users").findOne({}))!.realm_id as number;
	const userCounter = await usersDb.collection("counters").findOneAndUpdate({ _id: "user" as never }, { $inc: { seq: count } }, { returnDocument: "after" });
	const firstUser = (userCounter!.seq as number) - count + 1;
	const userIds = Array.from({ length: count }, (_, i) => firstUser + i);
	await usersDb.collection("users").insertMany(
		userIds.map((id) =>
			new UserShape({
				_id: id,
				realm_id: realmId,
				delivery_email: `bench${id}@bench.test`,
				email_key: `bench${id}@bench.test`,
				full_name: `Bench ${id}`,
				role: 400,
				api_key: randomToken(32),
				date_joined: new Date(),
			}).toObject(),
		) as never[],
	);
	await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: channel }]) });
	const channelId = (await api("GET", "/get_stream_id", { stream: channel })).stream_id as number;
	await channelsDb.collection("subscriptions").insertMany(
		userIds.map((u) => new SubscriptionShape({ _id: `${u}:${channelId}`, user_id: u, channel_id: channelId, color: "#76ce90" }).toObject()) as never[],
	);
	await api("PATCH", "/settings", { full_name: "Bench Owner" });
	return { channelId, userIds };
}

// ---- timing ----

export interface Latency {
	rps: number;
	p50: number;
	p99: number;
}

/** Nearest-rank percentile of ascending `sorted` (0 for none). */
export function percentile(sorted: number[], q: number): number {
	if (!sorted.length) return 0;
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

/** Times `runs` runs of `op`, each after an untimed `reset`, one at a time. */
export async function timedRuns(reset: () => Promise<unknown>, op: () => Promise<unknown>, runs: number): Promise<Latency> {
	const times: number[] = [];
	for (let i = 0; i < runs; i++) {
		await reset();
		const t = process.hrtime.bigint();
		await op();
		times.push(elapsedMs(t));
	}
	times.sort((a, b) => a - b);
	const total = times.reduce((a, b) => a + b, 0) / 1000;
	return { rps: runs / total, p50: Math.round(times[Math.floor(runs / 2)]), p99: Math.round(times[runs - 1]) };
}

/** Runs `op` from `concurrency` loops for `seconds`, timing each call. */
export async function timedLoop(op: () => Promise<unknown>, concurrency: number, seconds: number): Promise<Latency> {
	const latencies: number[] = [];
	const end = Date.now() + seconds * 1000;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (Date.now() < end) {
				const t = process.hrtime.bigint();
				await op();
				latencies.push(elapsedMs(t));
			}
		}),
	);
	latencies.sort((a, b) => a - b);
	const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
	return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

export interface Sequence {
	/** Milliseconds of each successful timed call, ascending. */
	times: number[];
	/** Error messages of failed calls (warm-up included), each with how often it occurred. */
	failures: Map<string, number>;
	failed: number;
	/** Timed calls made (successful or not). */
	made: number;
	/** The deadline came before every call was made. */
	cutShort: boolean;
}

/**
 * `warmup` untimed calls of `op` (fewer if they take a tenth of the time to the deadline), then
 * `count` timed ones, one at a time; none starts after `deadline` (ms since the epoch). `op`
 * throws on failure.
 */
export async function sequential(op: () => Promise<unknown>, count: number, warmup: number, deadline: number): Promise<Sequence> {
	const s: Sequence = { times: [], failures: new Map(), failed: 0, made: 0, cutShort: false };
	const warmupEnd = Date.now() + (deadline - Date.now()) / 10;
	for (let i = 0; i < warmup + count; i++) {
		if (i < warmup && Date.now() > warmupEnd) i = warmup;
		if (Date.now() >= deadline) {
			s.cutShort = true;
			break;
		}
		const t = process.hrtime.bigint();
		try {
			await op();
			if (i >= warmup) s.times.push(elapsedMs(t));
		} catch (err) {
			const msg = err instanceof Error ? err.message : String(err);
			s.failures.set(msg, (s.failures.get(msg) ?? 0) + 1);
			s.failed++;
		}
		if (i >= warmup) s.made++;
	}
	s.times.sort((a, b) => a - b);
	return s;
}

// ---- tables ----

/** Rows of cells as aligned columns, the first row the header. */
export function formatTable(rows: string[][]): string {
	const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
	return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}

/** A MongoDB URL with any password replaced, fit to print. */
export function printableUrl(url: string): string {
	return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}

/** The command line that reproduces this run: the bench settings set, then how it was started. */
export function commandLine(settings: string[], script: string): string {
	const env = settings.filter((k) => process.env[k] !== undefined).map((k) => `${k}=${quote(k.endsWith("URL") || k.endsWith("URLS") ? printableUrl(process.env[k]!) : process.env[k]!)}`);
	const event = process.env.npm_lifecycle_event;
	const run = event && event !== "npx" ? `npm run ${event}` : `npx tsx ${script}`;
	return [...env, run].join(" ");
}

const quote = (v: string) => (/^[\w.,:/@=*+-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
