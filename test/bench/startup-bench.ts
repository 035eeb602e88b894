// The start of a busy user's client, and the everyday endpoints beside it, as history grows
// (BENCH_ONLY=startup). One server; the owner is subscribed to a channel whose history grows
// through BENCH_STARTUP_SIZES (default 1,000, 10,000, 50,000 and 200,000 messages, all unread,
// generated straight into the store), to 20 other channels and to 50 direct conversations. At
// each size, one client times in turn (sequential, after a warm-up):
//   - POST /register with the default event types (and its answer's size),
//   - GET /messages with a search narrow: a word every message holds (100 newest) and a word one
//     message holds,
//   - GET /messages, the 100 newest of a topic,
//   - POST /messages/flags on 100 messages (read, then unread again),
//   - POST /messages to the channel,
//   - GET /users/me,
// and four clients call POST /register at once for BENCH_SECONDS (its throughput, and failures:
// the bus timeout must never be hit). Then POST /register as the organization grows to
// BENCH_STARTUP_USERS members (default 10, 1,000, 5,000), on a second organization of 1,000
// messages. Each table ends with the ratio of the largest size's figure to the smallest's.
import mongoose from "mongoose";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { freePort } from "../../shared/store";
import { formatTable, generateMessages, generateSubscribers, percentile, sequential, startBenchServer, timedLoop, type BenchServer } from "./bench-support";

export const STARTUP_SETTINGS = ["BENCH_STARTUP_SIZES", "BENCH_STARTUP_USERS", "BENCH_STARTUP_RUNS", "BENCH_SECONDS"];

const SIZES = (process.env.BENCH_STARTUP_SIZES ?? "1000,10000,50000,200000").split(",").map(Number);
const USER_SIZES = (process.env.BENCH_STARTUP_USERS ?? "10,1000,5000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 30);
const OTHER_CHANNELS = 20;
const DM_PEERS = 50;
const TOPICS = 50;

export interface Figure {
	endpoint: string;
	size: number;
	p50: number;
	p99: number;
	/** Requests per second: one client in turn, or the concurrent clients of the row. */
	rps: number;
	failed: number;
	/** The answer's size in bytes, where it matters. */
	bytes?: number;
}

type Server = BenchServer & { prefix: string; mongoUrl: string };

export interface StartupReport {
	history: Figure[];
	users: Figure[];
}

/** A request that throws unless HTTP 200 with result success; returns the answer's length. */
async function call(server: Server, method: "GET" | "POST", p: string, params: Record<string, string> = {}): Promise<number> {
	const body = new URLSearchParams(params).toString();
	const res = await fetch(`${server.base}${p}${method === "GET" ? `?${body}` : ""}`, {
		method,
		headers: { ...server.auth, "content-type": "application/x-www-form-urlencoded" },
		body: method === "GET" ? undefined : body,
	});
	const text = await res.text();
	if (res.status !== 200 || !text.includes('"result":"success"')) throw new Error(`${method} ${p}: HTTP ${res.status} ${text.slice(0, 120)}`);
	return text.length;
}

async function timed(endpoint: string, size: number, op: () => Promise<unknown>): Promise<Figure> {
	const s = await sequential(op, RUNS, 3, Date.now() + 10 * 60_000);
	const mean = s.times.reduce((a, b) => a + b, 0) / Math.max(1, s.times.length);
	return { endpoint, size, p50: Math.round(percentile(s.times, 0.5)), p99: Math.round(percentile(s.times, 0.99)), rps: Math.round(1000 / mean), failed: s.failed };
}

async function historyFigures(server: Server, msgDb: mongoose.mongo.Db, seconds: number): Promise<Figure[]> {
	const api = server.api;
	// The rest of the user's world: 20 channels with a message each, 50 direct conversations.
	for (let i = 0; i < OTHER_CHANNELS; i++) {
		await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: `side-${i}` }]) });
		await api("POST", "/messages", { type: "channel", to: `side-${i}`, topic: "chatter", content: `side channel ${i}` });
	}
	const client = new mongoose.mongo.MongoClient(server.mongoUrl);
	try {
		const { userIds } = await generateSubscribers(api, client, server.prefix, "peers", DM_PEERS);
		for (const u of userIds) await api("POST", "/messages", { type: "direct", to: JSON.stringify([u]), content: "hello there" });
	} finally {
		await client.close();
	}

	const out: Figure[] = [];
	let stored = 0;
	for (const size of SIZES) {
		const { channelId, ids } = await generateMessages(api, msgDb, { channel: "history", count: size - stored, topicOf: (i) => `topic-${(stored + i) % TOPICS}`, flags: [] });
		stored = size;
		const narrow = (terms: unknown[]) => JSON.stringify([{ operator: "channel", operand: channelId }, ...terms]);
		const rare = String(ids[Math.floor(ids.length / 2)]); // "message <id>": one message holds this word
		const flagged = JSON.stringify(ids.slice(-100));
		let read = false;

		let bytes = 0;
		const register = await timed("POST /register", size, async () => (bytes = await call(server, "POST", "/register")));
		out.push({ ...register, bytes });
		out.push(await timed("GET /messages, search, common word", size, () => call(server, "GET", "/messages", { anchor: "newest", num_before: "100", num_after: "0", narrow: narrow([["search", "message"]]) })));
		out.push(await timed("GET /messages, search, rare word", size, () => call(server, "GET", "/messages", { anchor: "newest", num_before: "100", num_after: "0", narrow: narrow([["search", rare]]) })));
		out.push(await timed("GET /messages, topic, 100 newest", size, () => call(server, "GET", "/messages", { anchor: "newest", num_before: "100", num_after: "0", narrow: narrow([["topic", "topic-7"]]) })));
		out.push(
			await timed("POST /messages/flags, 100", size, () => {
				read = !read;
				return call(server, "POST", "/messages/flags", { messages: flagged, op: read ? "add" : "remove", flag: "read" });
			}),
		);
		if (read) await call(server, "POST", "/messages/flags", { messages: flagged, op: "remove", flag: "read" });
		out.push(await timed("POST /messages", size, () => call(server, "POST", "/messages", { type: "channel", to: String(channelId), topic: "load", content: "hello everyone" })));
		out.push(await timed("GET /users/me", size, () => call(server, "GET", "/users/me")));
		let failed = 0;
		const loop = await timedLoop(() => call(server, "POST", "/register").catch(() => failed++), 4, seconds);
		out.push({ endpoint: "POST /register, 4 clients", size, p50: loop.p50, p99: loop.p99, rps: Math.round(loop.rps * 10) / 10, failed });
		process.stderr.write(`startup: ${size} messages measured\n`);
	}
	return out;
}

async function userFigures(server: Server, msgDb: mongoose.mongo.Db): Promise<Figure[]> {
	await generateMessages(server.api, msgDb, { channel: "history", count: 1000, topicOf: (i) => `topic-${i % TOPICS}`, flags: [] });
	const client = new mongoose.mongo.MongoClient(server.mongoUrl);
	const out: Figure[] = [];
	try {
		let members = 1; // the owner
		for (const size of USER_SIZES) {
			if (size > members) await generateSubscribers(server.api, client, server.prefix, "everyone", size - members);
			members = Math.max(members, size);
			let bytes = 0;
			const f = await timed("POST /register", size, async () => (bytes = await call(server, "POST", "/register")));
			out.push({ ...f, bytes });
		}
	} finally {
		await client.close();
	}
	return out;
}

/** Runs both parts, each on a server of its own (one organization each). */
export async function startupFigures(common: Record<string, string>, work: string, seconds: number): Promise<StartupReport> {
	const run = async <T>(name: string, part: (server: Server, msgDb: mongoose.mongo.Db) => Promise<T>): Promise<T> => {
		const prefix = `b${randomBytes(4).toString("hex")}`;
		const server = await startBenchServer({ ...common, DB_PREFIX: prefix, DATA_DIR: path.join(work, name), PORT: String(await freePort()) });
		const client = await new mongoose.mongo.MongoClient(common.MONGO_URL).connect();
		try {
			return await part(Object.assign(server, { prefix, mongoUrl: common.MONGO_URL }), client.db(`${prefix}_messages`));
		} catch (err) {
			process.stderr.write(`the server's last words:\n${server.proc.output().slice(-4000)}\n`);
			throw err;
		} finally {
			await client.close();
			await server.stop();
		}
	};
	const history = await run("startup-history", (server, msgDb) => historyFigures(server, msgDb, seconds));
	const users = await run("startup-users", userFigures);
	return { history, users };
}

/** Figure × size, with the largest size's p99 over the smallest's. */
function growthTable(figures: Figure[], sizeName: string): string {
	const sizes = [...new Set(figures.map((f) => f.size))];
	const endpoints = [...new Set(figures.map((f) => f.endpoint))];
	const rows = [["endpoint", ...sizes.map((s) => `${s.toLocaleString("en-US")} ${sizeName}: p50 / p99 ms, req/s`), `p99 ratio ${sizes.at(-1)!.toLocaleString("en-US")} / ${sizes[0].toLocaleString("en-US")}`]];
	for (const endpoint of endpoints) {
		const cells = sizes.map((size) => figures.find((f) => f.endpoint === endpoint && f.size === size));
		const first = cells[0];
		const last = cells.at(-1);
		rows.push([
			endpoint,
			...cells.map((f) => (f ? `${f.p50} / ${f.p99}, ${f.rps}${f.failed ? ` (${f.failed} failed)` : ""}${f.bytes ? `, ${Math.round(f.bytes / 1024)} KB` : ""}` : "")),
			first && last ? (last.p99 / Math.max(1, first.p99)).toFixed(2) : "",
		]);
	}
	return formatTable(rows);
}

export function startupTable(report: StartupReport, info: { store: string; command: string; cores: number }): string {
	return [
		`Start of a busy user (${info.cores} cores, store: ${info.store}; ${RUNS} requests in turn per figure; all messages of the channel unread; ${OTHER_CHANNELS} more channels and ${DM_PEERS} direct conversations)`,
		`command: ${info.command}`,
		growthTable(report.history, "messages"),
		"",
		"POST /register as the organization grows (1,000 messages):",
		growthTable(report.users, "users"),
	].join("\n");
}
