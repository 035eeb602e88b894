// The store figures of `npm run bench` (`BENCH_ONLY=store`): the goals of the store issues (those
// of the Pebble engine, issue #29, which are meant at BENCH_STORE_READERS=20: a million rows),
// measured through the HTTP API of one server node, with every request checked (HTTP 200,
// `result: success`, and the expected content):
//   1. GET /messages, the 100 newest of a topic (channel + topic narrow, anchor newest), one client
//      sending one request after another, in a channel of BENCH_STORE_MESSAGES (default 50,000)
//      messages over five topics, the topic asked for holding 40% of them: p99 <= 50 ms;
//   2. POST /messages to a channel of 100 subscribers, one after another: p99 <= 50 ms;
//   3. marking 5,000 messages read in one request, both ways: POST /messages/flags with their
//      IDs, and POST /mark_topic_as_read on a topic of 5,000 unread messages: <= 1 s each;
//   4. GET /messages as in 1 from BENCH_STORE_CONNECTIONS (default 4) connections for
//      BENCH_SECONDS: requests/s and p99 (no goal; the figure to compare stores by).
//   5. (embedded store) its RSS and data on disk at the end, the node's RSS before and after the
//      figures, and the time from a kill -9 of the store to the first GET /messages answered
//      again (its supervisor restarts it: shared/store.ts).
// BENCH_STORE_READERS (default 1) is how many read each message of the channel: a row per reader
// per message (the owner's, and rows of made-up user IDs), e.g. 20 for the store issue's
// 1,000,000 rows at 50,000 messages.
// The messages are generated straight into the store (bench-support.ts). Each figure starts no
// request after its deadline (BENCH_STORE_DEADLINE_SECONDS, default 300) and reports what it
// measured by then; a request of 1, 2 or 4 fails after 60 s without an answer, one of 3 at the
// deadline.
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import mongoose from "mongoose";
import { countInTopic, fiveTopics, formatTable, generateMessages, generateSubscribers, sequential, sleep, withTimeout, type BenchServer, type Sequence } from "./bench-support";

const MESSAGES = Number(process.env.BENCH_STORE_MESSAGES ?? 50_000);
const READERS = Number(process.env.BENCH_STORE_READERS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_STORE_CONNECTIONS ?? 4);
const DEADLINE_MS = Number(process.env.BENCH_STORE_DEADLINE_SECONDS ?? 300) * 1000;
/** A request of 1, 2 and 4 that has no answer after this long fails. */
const REQUEST_TIMEOUT_MS = 60_000;
const TOPIC = "topic-0";
const REQUESTS = 200;
const GET_WARMUP = 20;
const POST_WARMUP = 10;
const SUBSCRIBERS = 100;
const MARK = 5000;

/** The settings that shape these figures, for the command line printed with them. */
export const STORE_SETTINGS = ["BENCH_STORE_MESSAGES", "BENCH_STORE_READERS", "BENCH_STORE_CONNECTIONS", "BENCH_STORE_DEADLINE_SECONDS", "STORE_CACHE_MB"];

export interface StoreFigure {
	figure: string;
	/** Requests made (timed), or a note. */
	requests: string;
	failed: number;
	value: string;
	goal: string;
	met: string;
}

export interface StoreReport {
	figures: StoreFigure[];
	/** Every failed request's error, with how often it occurred. */
	failures: Map<string, number>;
	notes: string[];
}

const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;
const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

function verdict(ok: boolean, failed: number, complete: boolean): string {
	if (failed) return "not met (failures)";
	if (!complete) return ok ? "not met (deadline)" : "not met";
	return ok ? "met" : "not met";
}

function latencyFigure(figure: string, s: Sequence, goalMs: number, wanted: number): StoreFigure {
	const complete = !s.cutShort && s.times.length === wanted;
	if (!s.times.length) return { figure, requests: `${s.made} of ${wanted}`, failed: s.failed, value: "no successful request", goal: `p99 <= ${goalMs} ms`, met: "not met" };
	const p99 = pct(s.times, 0.99);
	return {
		figure,
		requests: s.made === wanted ? String(wanted) : `${s.made} of ${wanted} (deadline)`,
		failed: s.failed,
		value: `p50 ${ms(pct(s.times, 0.5))}, p99 ${ms(p99)}, max ${ms(s.times.at(-1)!)}`,
		goal: `p99 <= ${goalMs} ms`,
		met: verdict(p99 <= goalMs, s.failed, complete),
	};
}

/** One request, timed, then `verify` (untimed) throws if it did not do its work. */
async function once(figure: string, request: (timeoutMs: number) => Promise<unknown>, verify: () => Promise<void>, goalMs: number): Promise<{ fig: StoreFigure; failures: Map<string, number> }> {
	const s = await sequential(() => request(DEADLINE_MS), 1, 0, Date.now() + DEADLINE_MS);
	if (s.times.length) {
		await verify().catch((err: Error) => {
			s.failures.set(err.message, 1);
			s.failed++;
		});
	}
	const t = s.times[0];
	return {
		fig: {
			figure,
			requests: "1",
			failed: s.failed,
			value: t === undefined ? "failed" : `${ms(t)} wall`,
			goal: `<= ${goalMs / 1000} s`,
			met: t === undefined ? "not met (failures)" : verdict(t <= goalMs, s.failed, true),
		},
		failures: s.failures,
	};
}

/** A process's resident memory, from /proc (undefined elsewhere). */
function rssMiB(pid: number | undefined): number | undefined {
	if (!pid) return undefined;
	const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
	return m ? Number(m[1]) / 1024 : undefined;
}

function diskMB(dir: string): number {
	let bytes = 0;
	for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) bytes += fs.statSync(path.join(e.parentPath, e.name)).size;
	return bytes / 1e6;
}

/** `storeDir`: the embedded store's DATA_DIR, when the figures run on one (its size, memory and restart are measured too). */
export async function storeFigures(env: { server: BenchServer; mongoUrl: string; prefix: string; seconds: number; storeDir?: string }): Promise<StoreReport> {
	const { api, auth, base } = env.server;
	const client = await new mongoose.mongo.MongoClient(env.mongoUrl, { serverSelectionTimeoutMS: 15_000 }).connect();
	const report: StoreReport = { figures: [], failures: new Map(), notes: [] };
	const fail = (failures: Map<string, number>) => failures.forEach((n, msg) => report.failures.set(msg, (report.failures.get(msg) ?? 0) + n));
	try {
		const msgDb = client.db(`${env.prefix}_messages`);
		const rows = msgDb.collection("user_messages");
		const owner = (await api("GET", "/users/me")).user_id as number;

		// ---- the data: the channel's history, 2 x 5,000 unread messages, 100 subscribers ----
		const nodeRssBefore = rssMiB(env.server.proc.child.pid);
		const otherReaders = Array.from({ length: READERS - 1 }, (_, i) => 1_000_000 + i);
		const { channelId: history } = await generateMessages(api, msgDb, { channel: "history", count: MESSAGES, topicOf: fiveTopics, flags: ["read"], timeoutMs: DEADLINE_MS, otherReaders });
		const inTopic = countInTopic(MESSAGES, TOPIC, fiveTopics) + 1; // and the message sent to create it
		const unread = await generateMessages(api, msgDb, { channel: "unread", count: 2 * MARK, topicOf: (i) => (i < MARK ? "flags" : "mark"), flags: [], timeoutMs: DEADLINE_MS });
		const { channelId: crowd } = await generateSubscribers(api, client, env.prefix, "crowd", SUBSCRIBERS);
		report.notes.push(
			`#history: ${MESSAGES} messages over 5 topics, ${inTopic} in ${TOPIC} (asked for), ${READERS} rows per message (${MESSAGES * READERS} rows); #unread: 2 topics of ${MARK} unread; #crowd: ${SUBSCRIBERS} subscribers and the owner`,
		);

		// ---- 1. GET /messages, the 100 newest of a topic, one request at a time ----
		const narrow = JSON.stringify([{ operator: "channel", operand: history }, ["topic", TOPIC]]);
		const getParams = { anchor: "newest", num_before: "100", num_after: "0", narrow };
		const expected = Math.min(100, inTopic);
		const get = async () => {
			const r = await api("GET", "/messages", getParams, { timeoutMs: REQUEST_TIMEOUT_MS });
			const messages = r.messages as Array<{ subject: string }>;
			if (messages.length < expected) throw new Error(`GET /messages: ${messages.length} messages, expected ${expected}`);
			if (messages.some((m) => m.subject !== TOPIC)) throw new Error(`GET /messages: a message outside ${TOPIC}`);
		};
		process.stderr.write(`GET /messages: ${GET_WARMUP} + ${REQUESTS} requests...\n`);
		const gets = await sequential(get, REQUESTS, GET_WARMUP, Date.now() + DEADLINE_MS);
		fail(gets.failures);
		report.figures.push(latencyFigure(`1. GET /messages, newest 100 of ${inTopic} in a topic (${MESSAGES} in the channel), sequential`, gets, 50, REQUESTS));

		// ---- 2. POST /messages to a channel of 100 subscribers, one at a time ----
		const send = async () => {
			const r = await api("POST", "/messages", { type: "channel", to: String(crowd), topic: "load", content: "hello everyone" }, { timeoutMs: REQUEST_TIMEOUT_MS });
			if (typeof r.id !== "number") throw new Error("POST /messages: no message ID");
		};
		process.stderr.write(`POST /messages: ${POST_WARMUP} + ${REQUESTS} requests...\n`);
		const sends = await sequential(send, REQUESTS, POST_WARMUP, Date.now() + DEADLINE_MS);
		fail(sends.failures);
		report.figures.push(latencyFigure(`2. POST /messages to ${SUBSCRIBERS} subscribers, sequential`, sends, 50, REQUESTS));

		// ---- 3. marking 5,000 messages read in one request ----
		const unreadIn = (topic: string) =>
			withTimeout(rows.countDocuments({ user_id: owner, channel_id: unread.channelId, topic_key: topic, flags: { $ne: "read" } }), DEADLINE_MS, "counting unread rows");
		process.stderr.write(`POST /messages/flags with ${MARK} messages...\n`);
		const flagIds = unread.ids.slice(0, MARK);
		const flags = await once(
			`3a. POST /messages/flags, read added to ${MARK} messages`,
			async (timeoutMs) => {
				const r = await api("POST", "/messages/flags", { messages: JSON.stringify(flagIds), op: "add", flag: "read" }, { timeoutMs });
				if ((r.messages as unknown[]).length !== MARK) throw new Error(`POST /messages/flags: ${(r.messages as unknown[]).length} changed, expected ${MARK}`);
			},
			async () => {
				const left = await unreadIn("flags");
				if (left) throw new Error(`POST /messages/flags: ${left} rows still unread`);
			},
			1000,
		);
		if (flags.fig.failed) {
			// A request that failed on the server's own timeout may still be writing: wait until its
			// rows stop changing (to the deadline), so that its writes do not fall on the next figure.
			process.stderr.write("waiting for the failed request's writes to end...\n");
			const until = Date.now() + DEADLINE_MS;
			let last = -1;
			for (let left = await unreadIn("flags"); left && left !== last && Date.now() < until; left = await unreadIn("flags")) {
				last = left;
				await sleep(5000);
			}
		}
		process.stderr.write(`POST /mark_topic_as_read on ${MARK} unread messages...\n`);
		const mark = await once(
			`3b. POST /mark_topic_as_read, a topic of ${MARK} unread messages`,
			async (timeoutMs) => {
				await api("POST", "/mark_topic_as_read", { stream_id: String(unread.channelId), topic_name: "mark" }, { timeoutMs });
			},
			async () => {
				const left = await unreadIn("mark");
				if (left) throw new Error(`POST /mark_topic_as_read: ${left} rows still unread`);
			},
			1000,
		);
		for (const m of [flags, mark]) {
			fail(m.failures);
			report.figures.push(m.fig);
		}

		// ---- 4. GET /messages from several connections at once ----
		process.stderr.write(`GET /messages from ${CONNECTIONS} connections for ${env.seconds} s...\n`);
		let checked = 0;
		let wrong = 0;
		const seconds = Math.min(env.seconds, DEADLINE_MS / 1000);
		const r = await autocannon({
			url: `${base}/messages?${new URLSearchParams(getParams)}`,
			headers: auth,
			connections: CONNECTIONS,
			duration: seconds,
			timeout: REQUEST_TIMEOUT_MS / 1000,
			requests: [
				{
					onResponse: (status: number, body: string) => {
						checked++;
						let ok = false;
						try {
							const json = JSON.parse(body) as { result?: string; messages?: unknown[] };
							ok = status === 200 && json.result === "success" && (json.messages?.length ?? 0) >= expected;
						} catch {
							/* not JSON: wrong */
						}
						if (!ok) wrong++;
					},
				},
			],
		});
		const errors = r.errors; // timeouts included
		if (r.non2xx) report.failures.set(`GET /messages (${CONNECTIONS} connections): HTTP status other than 2xx`, r.non2xx);
		if (wrong - r.non2xx > 0) report.failures.set(`GET /messages (${CONNECTIONS} connections): HTTP 200 without the expected messages`, wrong - r.non2xx);
		if (errors) report.failures.set(`GET /messages (${CONNECTIONS} connections): connection errors or timeouts`, errors);
		report.figures.push({
			figure: `4. GET /messages as in 1, ${CONNECTIONS} connections, ${seconds} s`,
			requests: String(checked + errors),
			failed: wrong + errors,
			value: r.requests.total ? `${r.requests.average.toFixed(1)} req/s, p50 ${ms(r.latency.p50)}, p99 ${ms(r.latency.p99)}` : `no answer within ${seconds} s`,
			goal: "(none; for comparison)",
			met: wrong + errors ? "failures" : "-",
		});
		if (env.storeDir) await storeSizeFigures(env.storeDir, report, get, { before: nodeRssBefore, after: rssMiB(env.server.proc.child.pid) });
		if (report.failures.size) process.stderr.write(`the server's log (last lines):\n${env.server.proc.output().slice(-3000)}\n`);
		return report;
	} finally {
		await client.close();
	}
}

/** The table, the failures (if any), and what produced it. */
export function storeTable(report: StoreReport, context: { store: string; command: string; cores: number }): string {
	const rows = [["figure", "requests", "failed", "value", "goal", "goal met"]];
	for (const f of report.figures) rows.push([f.figure, f.requests, String(f.failed), f.value, f.goal, f.met]);
	const total = report.figures.reduce((n, f) => n + f.failed, 0);
	const failures = [...report.failures].map(([msg, n]) => `  ${n} x ${msg}`);
	return [
		`Store figures: ${context.store}, ${context.cores} cores`,
		...report.notes,
		`command: ${context.command}`,
		"",
		formatTable(rows),
		"",
		total ? `${total} requests failed:\n${failures.join("\n")}` : "Every request succeeded.",
	].join("\n");
}

/** 5: the embedded store's memory and disk, the node's memory, and a restart after kill -9. */
async function storeSizeFigures(storeDir: string, report: StoreReport, get: () => Promise<void>, nodeRss: { before?: number; after?: number }): Promise<void> {
	const running = JSON.parse(fs.readFileSync(path.join(storeDir, "store", "running.json"), "utf8")) as { pid: number };
	const mib = (v: number | undefined) => (v === undefined ? "unknown" : `${Math.round(v)} MiB`);
	const rss = rssMiB(running.pid);
	report.figures.push({ figure: "5a. store RSS at the end", requests: "-", failed: 0, value: mib(rss), goal: "<= 300 MiB", met: rss !== undefined && rss <= 300 ? "met" : "not met" });
	const disk = diskMB(path.join(storeDir, "store"));
	report.figures.push({ figure: "5b. store data on disk", requests: "-", failed: 0, value: `${Math.round(disk)} MB`, goal: "<= 600 MB", met: disk <= 600 ? "met" : "not met" });
	report.figures.push({ figure: "5c. node RSS before the data / after the figures", requests: "-", failed: 0, value: `${mib(nodeRss.before)} / ${mib(nodeRss.after)}`, goal: "flat", met: "-" });
	process.stderr.write("kill -9 of the store, then GET /messages until one answers...\n");
	const killed = Date.now();
	process.kill(running.pid, "SIGKILL");
	let answered: number | undefined;
	while (Date.now() - killed < DEADLINE_MS) {
		try {
			await get();
			answered = Date.now() - killed;
			break;
		} catch {
			await sleep(20);
		}
	}
	report.figures.push({
		figure: "5d. kill -9 of the store to the next GET /messages answered (restart after 100 ms, open, reconnect)",
		requests: "-",
		failed: answered === undefined ? 1 : 0,
		value: answered === undefined ? "no answer" : ms(answered),
		goal: "<= 3 s",
		met: answered !== undefined && answered <= 3_000 ? "met" : "not met",
	});
}
