// The messages figures of `npm run bench`, each beside the raw store doing the same reads or
// writes through the driver in the same run, so the ratio is our overhead over the store's own:
//   - GET /messages, channel + topic narrow, 100 messages, anchor newest, on a channel holding
//     100,000 messages (generated straight into the store);
//   - POST /messages to a channel with 1,000 subscribers;
//   - POST /messages/flags marking 1,000 messages read (and, every other round, unread again);
//   - POST /mark_stream_as_read on a channel with 20,000 unread messages (one run at a time).
import autocannon from "autocannon";
import mongoose from "mongoose";
import { apiClient, formatTable, generateMessages, generateSubscribers, ownerAuth, timedLoop, timedRuns, type Api, type Latency } from "./bench-support";

export interface Pair {
	endpoint: string;
	ours: { rps: number; p50: number; p99: number; errors: number };
	raw: Latency;
}

const CHANNEL_MESSAGES = 100_000;
const TOPICS = 100;
const SUBSCRIBERS = 1000;
const UNREAD_MESSAGES = 20_000;
const FLAG_BATCH = 1000;
const MARK_RUNS = 3;

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
	const auth = ownerAuth(env.dataDir);
	const api = apiClient(env.base, auth);

	const client = await new mongoose.mongo.MongoClient(env.mongoUrl).connect();
	try {
		const msgDb = client.db(`${env.prefix}_messages`);

		// The flag figures first: they complete even where the store's scans make the reads below slow.
		const flagPairs = await flagFigures(api, msgDb, env);
		if (env.flagsOnly) return flagPairs;

		// ---- GET /messages on a channel holding 100,000 messages ----
		const { channelId } = await generateMessages(api, msgDb, { channel: "history", count: CHANNEL_MESSAGES, topicOf: (i) => `topic-${i % TOPICS}`, flags: ["read"] });
		const narrow = JSON.stringify([{ operator: "channel", operand: channelId }, ["topic", "topic-7"]]);
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
		const { channelId: crowd, userIds: ids } = await generateSubscribers(api, client, env.prefix, "crowd", SUBSCRIBERS);
		const seed = await msgDb.collection("messages").findOne({ channel_id: channelId });
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

/**
 * POST /messages/flags on 1,000 messages (read added, then removed on the next round over the
 * same chunks), and mark_stream_as_read on 20,000 unread messages; the raw store makes the same
 * writes: one updateMany per request, on the rows the request would change.
 */
async function flagFigures(api: Api, msgDb: mongoose.mongo.Db, env: { seconds: number; connections: number }): Promise<Pair[]> {
	const rows = msgDb.collection("user_messages");
	const { channelId, ids } = await generateMessages(api, msgDb, { channel: "unread-bench", count: UNREAD_MESSAGES, topicOf: () => "unread", flags: [] });
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
	return formatTable(rows);
}
