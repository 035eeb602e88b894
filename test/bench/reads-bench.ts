// The reads figures of `npm run bench` (`BENCH_ONLY=reads`): what the endpoints clients call most
// cost in CPU, node and store together, each beside a do-nothing action through the gateway
// measured in the same run (so the ratio means something on another machine):
//   - GET /messages: the 100 newest messages of a topic (channel + topic narrow);
//   - GET /messages: a search narrow page (channel + a keyword every message holds, 100 newest);
//   - GET /users/me;
//   - POST /messages/flags: 100 messages read, then unread again (alternating);
//   - POST /messages to another topic of the channel;
//   - GET /bench/noop (BENCH_ROUTES only): the gateway and the bus alone.
// At each channel size (BENCH_READS_SIZES, default 1000,50000,1000000 messages, built straight into
// the store in batches as bench-support's generateMessages does), every endpoint one client at a
// time, then the reads and the no-op at BENCH_READS_CONCURRENT clients (default 16). CPU per
// request is the user + system time of the node and of the embedded store (from /proc) over the
// requests answered. The node's and the store's RSS are read after the runs.
//
// BENCH_READS_ENDPOINTS=noop,topic,search,me,flags,send measures those alone, to profile one. BENCH_CPU_PROF=<dir> starts the node with `node --cpu-prof` writing there; STORE_PPROF=host:port
// serves the store's pprof (`go tool pprof -seconds 20 http://host:port/debug/pprof/profile`).
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import mongoose from "mongoose";
import { freePort } from "../../shared/store";
import { startArgs } from "../support/processes";
import { formatTable, generateMessages, startBenchNodes, type BenchServer } from "./bench-support";
import { cpuDuring, processTree } from "./cpu-time";

export const READS_SETTINGS = ["BENCH_SECONDS", "BENCH_READS_SIZES", "BENCH_READS_CONCURRENT", "BENCH_READS_ENDPOINTS", "BENCH_CPU_PROF", "STORE_CACHE_MB"];

const SIZES = (process.env.BENCH_READS_SIZES ?? "1000,50000,1000000").split(",").map(Number);
const CONCURRENT = Number(process.env.BENCH_READS_CONCURRENT ?? 16);
const PAGE = 100;
const TOPIC = "topic-0";
/** Every generated message's content is "message <id>": a keyword every one of them holds. */
const KEYWORD = "message";

const ENDPOINTS = {
	noop: "no-op action (gateway + bus)",
	topic: `GET /messages, ${PAGE} newest of a topic`,
	search: `GET /messages, search page (${PAGE})`,
	me: "GET /users/me",
	flags: `POST /messages/flags (${PAGE} read/unread)`,
	send: "POST /messages",
} as const;
type Endpoint = keyof typeof ENDPOINTS;
/** BENCH_READS_ENDPOINTS: some of them only (to profile one). */
const CHOSEN = process.env.BENCH_READS_ENDPOINTS?.split(",");
const chosen = (e: Endpoint) => !CHOSEN || CHOSEN.includes(e);
const READS = (["noop", "topic", "search"] as Endpoint[]).filter(chosen);

export interface ReadsFigure {
	size: number;
	endpoint: Endpoint;
	connections: number;
	rps: number;
	p50: number;
	p99: number;
	errors: number;
	nodeNs: number;
	storeNs: number;
}

export interface ReadsReport {
	figures: ReadsFigure[];
	/** RSS in MiB after the runs. */
	nodeRss: number;
	storeRss: number;
	/** The actual sizes (a size below the previous one is skipped). */
	sizes: number[];
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

type Request = { method: "GET" | "POST"; path: string; body?: string };

function requestsFor(e: Endpoint, channelId: number, flagIds: number[]): Request[] {
	const get = (narrow: unknown[]) => ({ method: "GET" as const, path: `/api/v1/messages?${new URLSearchParams({ anchor: "newest", num_before: String(PAGE), num_after: "0", narrow: JSON.stringify(narrow) })}` });
	const form = (p: Record<string, string>) => new URLSearchParams(p).toString();
	switch (e) {
		case "noop":
			return [{ method: "GET", path: "/api/v1/bench/noop" }];
		case "topic":
			return [get([{ operator: "channel", operand: channelId }, { operator: "topic", operand: TOPIC }])];
		case "search":
			return [get([{ operator: "channel", operand: channelId }, { operator: "search", operand: KEYWORD }])];
		case "me":
			return [{ method: "GET", path: "/api/v1/users/me" }];
		case "flags":
			return ["add", "remove"].map((op) => ({ method: "POST", path: "/api/v1/messages/flags", body: form({ messages: JSON.stringify(flagIds), op, flag: "read" }) }));
		case "send":
			return [{ method: "POST", path: "/api/v1/messages", body: form({ type: "channel", to: String(channelId), topic: "posts", content: "a short message" }) }];
	}
}

async function measure(server: BenchServer, pids: { node: number[]; store: number[] }, e: Endpoint, reqs: Request[], connections: number, seconds: number) {
	const origin = new URL(server.base).origin;
	const headers = { ...server.auth, "content-type": "application/x-www-form-urlencoded" };
	const run = () => autocannon({ url: origin, connections, duration: seconds, timeout: 60, headers, requests: reqs });
	const { result: r, cpuNs } = await cpuDuring(pids, run);
	const requests = Math.max(1, r.requests.total);
	return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx, nodeNs: cpuNs.node / requests, storeNs: cpuNs.store / requests, endpoint: e, connections };
}

export async function readsFigures(common: Record<string, string>, work: string, opts: { seconds: number; storePid?: number }): Promise<ReadsReport> {
	const port = await freePort();
	const prefix = `b${randomBytes(4).toString("hex")}`;
	const profiling: Record<string, string> = process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` } : {};
	const env = { ...common, ...profiling, DB_PREFIX: prefix, DATA_DIR: path.join(work, "reads"), PORT: String(port) };
	const server = await startBenchNodes([{}], env, port);
	const client = await new mongoose.mongo.MongoClient(common.MONGO_URL).connect();
	const figures: ReadsFigure[] = [];
	const sizes: number[] = [];
	try {
		const msgDb = client.db(`${prefix}_messages`);
		const pids = { node: processTree([server.proc.child.pid!]), store: opts.storePid ? [opts.storePid] : [] };
		let built = 0;
		let channelId = 0;
		for (const size of SIZES) {
			if (size <= built) continue;
			// Five topics, topic-0 holding 40 % of the channel (bench-support's fiveTopics shape).
			const topicOf = (i: number) => (i % 5 < 2 ? TOPIC : `topic-${(i % 5) - 1}`);
			({ channelId } = await generateMessages(server.api, msgDb, { channel: "reads", count: size - built, topicOf: (i) => topicOf(built + i), flags: ["read"] }));
			built = size;
			sizes.push(size);
			const newest = await msgDb.collection("messages").find({ channel_id: channelId }, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(PAGE).toArray();
			const flagIds = newest.map((d) => d._id as unknown as number);
			for (const e of (Object.keys(ENDPOINTS) as Endpoint[]).filter(chosen)) {
				const reqs = requestsFor(e, channelId, flagIds);
				await measure(server, pids, e, reqs, 1, 2); // warm-up: JIT, caches, connections
				figures.push({ size, ...(await measure(server, pids, e, reqs, 1, opts.seconds)) });
			}
			for (const e of READS) figures.push({ size, ...(await measure(server, pids, e, requestsFor(e, channelId, []), CONCURRENT, opts.seconds)) });
		}
		return { figures, sizes, nodeRss: pids.node.reduce((n, pid) => n + rssMiB(pid), 0), storeRss: opts.storePid ? rssMiB(opts.storePid) : 0 };
	} finally {
		await client.close();
		await server.stop();
	}
}

const ms = (ns: number) => (ns / 1e6).toFixed(2);

export function readsTable(report: ReadsReport, info: { command: string; cores: number; store: string }): string {
	const rows = [["messages", "endpoint", "clients", "req/s", "p50 ms", "p99 ms", "errors", "CPU ms/req", "node", "store", "x no-op"]];
	for (const f of report.figures) {
		const noop = report.figures.find((g) => g.size === f.size && g.connections === f.connections && g.endpoint === "noop");
		const cpu = f.nodeNs + f.storeNs;
		rows.push([String(f.size), ENDPOINTS[f.endpoint], String(f.connections), f.rps.toFixed(0), String(f.p50), String(f.p99), String(f.errors), ms(cpu), ms(f.nodeNs), ms(f.storeNs), noop ? (cpu / (noop.nodeNs + noop.storeNs)).toFixed(1) : "-"]);
	}
	return [
		`Reads and their neighbours: CPU per request (node + ${info.store} store, from /proc), ${info.cores} cores; ${info.command}`,
		`node flags: ${startArgs().slice(0, -1).join(" ")}`,
		formatTable(rows),
		`RSS after the runs: node ${report.nodeRss.toFixed(0)} MiB, store ${report.storeRss.toFixed(0)} MiB`,
	].join("\n");
}
