// The messages figures of `npm run bench`, each beside the raw store doing the same reads or
// writes through the driver in the same run, so the ratio is our overhead over the store's own:
//   - GET /messages, channel + topic narrow, 100 messages, anchor newest, on a channel holding
//     100,000 messages (generated straight into the store);
//   - POST /messages to a channel with 1,000 subscribers;
//   - POST /messages/flags marking 1,000 messages read (and, every other round, unread again);
//   - POST /mark_stream_as_read on a channel with 20,000 unread messages (one run at a time).
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import mongoose from "mongoose";
import { randomToken } from "../../shared/passwords";
import { contentWords, topicWords } from "../../services/messages/search";

export interface Pair {
	endpoint: string;
	ours: { rps: number; p50: number; p99: number; errors: number };
	raw: { rps: number; p50: number; p99: number };
}

const CHANNEL_MESSAGES = 100_000;
const TOPICS = 100;
const SUBSCRIBERS = 1000;
const UNREAD_MESSAGES = 20_000;
const FLAG_BATCH = 1000;
const MARK_RUNS = 3;

/** Runs `op` from `concurrency` loops for `seconds`, timing each call. */
/** Times `runs` runs of `op`, each after an untimed `reset`, one at a time. */
async function timedRuns(reset: () => Promise<unknown>, op: () => Promise<unknown>, runs: number): Promise<Pair["raw"]> {
	const times: number[] = [];
	for (let i = 0; i < runs; i++) {
		await reset();
		const t = process.hrtime.bigint();
		await op();
		times.push(Number(process.hrtime.bigint() - t) / 1e6);
	}
	times.sort((a, b) => a - b);
	const total = times.reduce((a, b) => a + b, 0) / 1000;
	return { rps: runs / total, p50: Math.round(times[Math.floor(runs / 2)]), p99: Math.round(times[runs - 1]) };
}

async function timedLoop(op: () => Promise<unknown>, concurrency: number, seconds: number): Promise<Pair["raw"]> {
	const latencies: number[] = [];
	const end = Date.now() + seconds * 1000;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (Date.now() < end) {
				const t = process.hrtime.bigint();
				await op();
				latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
			}
		}),
	);
	latencies.sort((a, b) => a - b);
	const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
	return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

async function ours(url: string, opts: { method?: "GET" | "POST"; body?: string; headers: Record<string, string>; connections: number; seconds: number }) {
	// A slow store (the embedded one scans) must not turn long requests into timeouts.
	const r = await autocannon({ url, method: opts.method ?? "GET", body: opts.body, headers: opts.headers, connections: opts.connections, duration: opts.seconds, timeout: 120 });
	return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

/**
 * `connections` is the concurrency of both our requests and the raw store's: a few, since every
 * one of these requests is heavy (BENCH_MESSAGE_CONNECTIONS, default 4).
 */
export async function messageFigures(env: { base: string; mongoUrl: string; prefix: string; dataDir: string; seconds: number; connections: number; flagsOnly?: boolean }): Promise<Pair[]> {
	const rc = fs.readFileSync(path.join(env.dataDir, "zuliprc"), "utf8");
	const email = /email=(.*)/.exec(rc)![1];
	const key = /key=(.*)/.exec(rc)![1];
	const auth = { authorization: `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}` };
	const api: Api = async (method, p, params) => {
		const body = new URLSearchParams(params).toString();
		const res = await fetch(`${env.base}${p}${method === "GET" ? `?${body}` : ""}`, {
			method,
			headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
			body: method === "GET" ? undefined : body,
		});
		const json = (await res.json()) as Record<string, any>;
		if (json.result !== "success") throw new Error(`${method} ${p}: ${json.msg}`);
		return json;
	};

	const client = await new mongoose.mongo.MongoClient(env.mongoUrl).connect();
	try {
		const msgDb = client.db(`${env.prefix}_messages`);
		const usersDb = client.db(`${env.prefix}_users`);
		const channelsDb = client.db(`${env.prefix}_channels`);

		// The flag figures first: they complete even where the store's scans make the reads below slow.
		const flagPairs = await flagFigures(api, msgDb, env);
		if (env.flagsOnly) return flagPairs;

		// ---- GET /messages on a channel holding 100,000 messages ----
		await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "history" }]) });
		const channelId = (await api("GET", "/get_stream_id", { stream: "history" })).stream_id as number;
		const first = (await api("POST", "/messages", { type: "channel", to: String(channelId), topic: "topic-0", content: "seed" })).id as number;
		const seed = await msgDb.collection("messages").findOne({ _id: first as never });
		const counter = await msgDb.collection("counters").findOneAndUpdate({ _id: "message" as never }, { $inc: { seq: CHANNEL_MESSAGES } }, { returnDocument: "after" });
		const start = (counter!.seq as number) - CHANNEL_MESSAGES + 1;
		process.stderr.write(`generating ${CHANNEL_MESSAGES} messages...\n`);
		for (let off = 0; off < CHANNEL_MESSAGES; off += 5000) {
			const batch = Array.from({ length: Math.min(5000, CHANNEL_MESSAGES - off) }, (_, i) => {
				const id = start + off + i;
				const topic = `topic-${id % TOPICS}`;
				const rendered = `<p>message ${id}</p>`;
				return { ...seed, _id: id, topic, topic_key: topic, topic_words: topicWords(topic), content: `message ${id}`, rendered_content: rendered, search_words: contentWords(rendered) };
			});
			const t = Date.now();
			await msgDb.collection("messages").insertMany(batch as never[]);
			await msgDb.collection("user_messages").insertMany(
				batch.map((m) => ({ _id: `1:${m._id}`, user_id: 1, message_id: m._id, flags: ["read"], channel_id: channelId, topic_key: m.topic_key, recipient_id: seed!.recipient_id, sender_id: 1 })) as never[],
			);
			process.stderr.write(`  ${off + batch.length} messages (${Date.now() - t} ms for this batch)\n`);
		}
		const narrow = JSON.stringify([["channel", channelId], ["topic", "topic-7"]]);
		const getUrl = `${env.base}/messages?${new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0", narrow })}`;
		await ours(getUrl, { headers: auth, connections: env.connections, seconds: 2 });
		const getOurs = await ours(getUrl, { headers: auth, connections: env.connections, seconds: env.seconds });
		const getRaw = await timedLoop(
			async () => {
				const docs = await msgDb.collection("messages").find({ channel_id: channelId, topic_key: "topic-7" }).sort({ _id: -1 }).limit(100).toArray();
				await msgDb.collection("user_messages").find({ user_id: 1, message_id: { $in: docs.map((d) => d._id) } }).toArray();
			},
			env.connections,
			env.seconds,
		);

		// ---- POST /messages to a channel with 1,000 subscribers ----
		process.stderr.write(`generating ${SUBSCRIBERS} subscribers...\n`);
		const userCounter = await usersDb.collection("counters").findOneAndUpdate({ _id: "user" as never }, { $inc: { seq: SUBSCRIBERS } }, { returnDocument: "after" });
		const firstUser = (userCounter!.seq as number) - SUBSCRIBERS + 1;
		const ids = Array.from({ length: SUBSCRIBERS }, (_, i) => firstUser + i);
		await usersDb.collection("users").insertMany(
			ids.map((id) => ({
				_id: id,
				realm_id: 1,
				delivery_email: `bench${id}@bench.test`,
				email_key: `bench${id}@bench.test`,
				full_name: `Bench ${id}`,
				role: 400,
				is_bot: false,
				bot_type: null,
				bot_owner_id: null,
				is_active: true,
				is_billing_admin: false,
				api_key: randomToken(32),
				password_hash: null,
				date_joined: new Date(),
				timezone: "",
				avatar_source: "G",
				avatar_version: 1,
				email_address_visibility: 1,
				settings: {},
				profile_data: {},
				can_change_user_emails: false,
			})) as never[],
		);
		await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "crowd" }]) });
		const crowd = (await api("GET", "/get_stream_id", { stream: "crowd" })).stream_id as number;
		await channelsDb.collection("subscriptions").insertMany(
			ids.map((u) => ({ _id: `${u}:${crowd}`, user_id: u, channel_id: crowd, active: true, color: "#76ce90", is_muted: false, pin_to_top: false })) as never[],
		);
		// A change to the owner tells every node to reload who is active.
		await api("PATCH", "/settings", { full_name: "Bench Owner" });
		const postBody = new URLSearchParams({ type: "channel", to: String(crowd), topic: "load", content: "hello everyone" }).toString();
		const postHeaders = { ...auth, "content-type": "application/x-www-form-urlencoded" };
		const postConnections = env.connections;
		await ours(`${env.base}/messages`, { method: "POST", body: postBody, headers: postHeaders, connections: postConnections, seconds: 2 });
		const postOurs = await ours(`${env.base}/messages`, { method: "POST", body: postBody, headers: postHeaders, connections: postConnections, seconds: env.seconds });
		const recipients = [...ids, 1];
		let rawId = 2_000_000_000;
		const postRaw = await timedLoop(
			async () => {
				const id = rawId++;
				await msgDb.collection("user_messages").insertMany(
					recipients.map((u) => ({ _id: `${u}:${id}`, user_id: u, message_id: id, flags: u === 1 ? ["read"] : [], channel_id: crowd, topic_key: "load", recipient_id: 0, sender_id: 1 })) as never[],
					{ ordered: false },
				);
				await msgDb.collection("messages").insertOne({ ...seed, _id: id, channel_id: crowd, topic: "load", topic_key: "load" } as never);
			},
			postConnections,
			env.seconds,
		);
		return [
			...flagPairs,
			{ endpoint: `GET /messages (channel+topic, 100 of ${CHANNEL_MESSAGES})`, ours: getOurs, raw: getRaw },
			{ endpoint: `POST /messages (${SUBSCRIBERS} subscribers)`, ours: postOurs, raw: postRaw },
		];
	} finally {
		await client.close();
	}
}

type Api = (method: string, p: string, params: Record<string, string>) => Promise<Record<string, any>>;

/** Copies of one sent message, straight into the store, each with an unread row for the owner. */
async function generateUnread(api: Api, msgDb: mongoose.mongo.Db, channel: string, count: number): Promise<{ channelId: number; ids: number[] }> {
	await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: channel }]) });
	const channelId = (await api("GET", "/get_stream_id", { stream: channel })).stream_id as number;
	const first = (await api("POST", "/messages", { type: "channel", to: String(channelId), topic: "unread", content: "seed" })).id as number;
	const seed = await msgDb.collection("messages").findOne({ _id: first as never });
	const counter = await msgDb.collection("counters").findOneAndUpdate({ _id: "message" as never }, { $inc: { seq: count } }, { returnDocument: "after" });
	const start = (counter!.seq as number) - count + 1;
	const ids = Array.from({ length: count }, (_, i) => start + i);
	process.stderr.write(`generating ${count} unread messages in #${channel}...\n`);
	for (let off = 0; off < count; off += 5000) {
		const batch = ids.slice(off, off + 5000);
		await msgDb.collection("messages").insertMany(batch.map((id) => ({ ...seed, _id: id, content: `message ${id}`, rendered_content: `<p>message ${id}</p>`, search_words: contentWords(`message ${id}`) })) as never[]);
		await msgDb.collection("user_messages").insertMany(
			batch.map((id) => ({ _id: `1:${id}`, user_id: 1, message_id: id, flags: [], channel_id: channelId, topic_key: "unread", recipient_id: seed!.recipient_id, sender_id: 1 })) as never[],
		);
	}
	return { channelId, ids };
}

/**
 * POST /messages/flags on 1,000 messages (read added, then removed on the next round over the
 * same chunks), and mark_stream_as_read on 20,000 unread messages; the raw store makes the same
 * writes: one updateMany per request, on the rows the request would change.
 */
async function flagFigures(api: Api, msgDb: mongoose.mongo.Db, env: { seconds: number; connections: number }): Promise<Pair[]> {
	const rows = msgDb.collection("user_messages");
	const { channelId, ids } = await generateUnread(api, msgDb, "unread-bench", UNREAD_MESSAGES);
	const chunks = Array.from({ length: ids.length / FLAG_BATCH }, (_, i) => ids.slice(i * FLAG_BATCH, (i + 1) * FLAG_BATCH));
	const resetUnread = () => rows.updateMany({ user_id: 1, channel_id: channelId }, { $pull: { flags: "read" } } as never);
	/** Round-robin over the chunks: read added on even rounds, removed on odd ones. */
	const sequence = () => {
		let i = 0;
		return () => {
			const n = i++;
			return { chunk: chunks[n % chunks.length], op: Math.floor(n / chunks.length) % 2 === 0 ? "add" : "remove" };
		};
	};

	await resetUnread();
	const nextOurs = sequence();
	const flagsOurs = await timedLoop(
		async () => {
			const { chunk, op } = nextOurs();
			await api("POST", "/messages/flags", { messages: JSON.stringify(chunk), op, flag: "read" });
		},
		env.connections,
		env.seconds,
	);
	await resetUnread();
	const nextRaw = sequence();
	const flagsRaw = await timedLoop(
		async () => {
			const { chunk, op } = nextRaw();
			const filter = { user_id: 1, message_id: { $in: chunk } };
			if (op === "add") await rows.updateMany({ ...filter, flags: { $ne: "read" } }, { $addToSet: { flags: "read" } } as never);
			else await rows.updateMany({ ...filter, flags: "read" }, { $pull: { flags: "read" } } as never);
		},
		env.connections,
		env.seconds,
	);

	const markOurs = await timedRuns(resetUnread, () => api("POST", "/mark_stream_as_read", { stream_id: String(channelId) }), MARK_RUNS);
	const markRaw = await timedRuns(resetUnread, () => rows.updateMany({ user_id: 1, channel_id: channelId, flags: { $ne: "read" } }, { $addToSet: { flags: "read" } } as never), MARK_RUNS);
	return [
		{ endpoint: `POST /messages/flags (${FLAG_BATCH} messages read/unread)`, ours: { ...flagsOurs, errors: 0 }, raw: flagsRaw },
		{ endpoint: `POST /mark_stream_as_read (${UNREAD_MESSAGES} unread; ${MARK_RUNS} runs)`, ours: { ...markOurs, errors: 0 }, raw: markRaw },
	];
}

export function pairTable(pairs: Pair[]): string {
	const rows = [["endpoint (one process)", "req/s", "p50 ms", "p99 ms", "errors", "raw store req/s", "raw p50", "raw p99", "ratio to raw"]];
	for (const p of pairs) {
		rows.push([p.endpoint, p.ours.rps.toFixed(0), String(p.ours.p50), String(p.ours.p99), String(p.ours.errors), p.raw.rps.toFixed(0), String(p.raw.p50), String(p.raw.p99), (p.ours.rps / p.raw.rps).toFixed(2)]);
	}
	const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
	return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ")).join("\n");
}
