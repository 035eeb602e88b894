// The gateway figures of `npm run bench`: what a request costs through the gateway and the bus,
// beside bare Node HTTP measured in the same run.
//
// Two topologies: every service in one process, and `api` and `users` as two processes over a
// real nats-server. In each, three endpoints, measured in turn for BENCH_GATEWAY_ROUNDS rounds
// (the median of each figure is printed):
//   - bare Node HTTP (bare-http.ts, a process of its own) answering the JSON of GET /users/me;
//   - an unauthenticated route to a users action that does nothing (the gateway and bus alone);
//   - GET /users/me.
// Each figure is requests/s and CPU time per request (user + system time of the server processes,
// nats-server included, over the requests answered; the embedded store's apart), both as ratios
// to the bare baseline, with latency and how many times a request crosses the bus (request
// packets published to nats-server per request, from its monitoring endpoint).
//
// BENCH_CPU_PROF=<dir> starts the server nodes with `node --cpu-prof` writing there (summarize
// the profiles with `npx tsx test/bench/cpu-profile.ts <dir>`).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { freePort, portAnswers } from "../../shared/store";
import { natsServerBinary, track, waitFor, type Proc } from "../support/processes";
import { formatTable, startBenchNodes, type BenchServer } from "./bench-support";
import { cpuDuring } from "./cpu-time";

export const GATEWAY_SETTINGS = ["BENCH_ONLY", "BENCH_SECONDS", "BENCH_CONNECTIONS", "BENCH_GATEWAY_ROUNDS", "BENCH_CPU_PROF"];

/** The goals of the gateway issue: CPU per request of GET /users/me over bare HTTP's. */
export const GATEWAY_GOALS: Record<string, number> = { "one process": 2.5, "api + users over NATS": 6 };

const ENDPOINTS = { bare: "bare Node HTTP, same JSON", noop: "no-op action", me: "GET /users/me" } as const;
type Endpoint = keyof typeof ENDPOINTS;

export interface GatewayFigure {
	topology: string;
	endpoint: Endpoint;
	rps: number;
	p50: number;
	p99: number;
	errors: number;
	/** CPU nanoseconds per request of the server processes (and nats-server). */
	cpuNs: number;
	/** The same, by process (node, or api / users / nats-server). */
	parts: Record<string, number>;
	/** CPU nanoseconds per request of the embedded store (0 with MONGO_URL). */
	storeNs: number;
	/** Request packets through nats-server per request (null in one process: no bus). */
	hops: number | null;
}

function spawned(command: string, args: string[], env: Record<string, string>): Proc {
	return track(spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }));
}

/** bare-http.ts on a free port, answering `body`. */
async function startBare(body: unknown): Promise<Proc & { url: string }> {
	const port = await freePort();
	const tsx = path.resolve(__dirname, "../../node_modules/.bin/tsx");
	const proc = spawned(tsx, [path.join(__dirname, "bare-http.ts")], { PORT: String(port), BARE_BODY: JSON.stringify(body) });
	await waitFor(() => portAnswers(port), "the bare HTTP server", 30_000);
	return { ...proc, url: `http://127.0.0.1:${port}/` };
}

/** A nats-server of its own with its monitoring port, to count the packets a request makes. */
async function startMonitoredNats(): Promise<Proc & { url: string; published(): Promise<number> }> {
	const [port, monitor] = [await freePort(), await freePort()];
	const proc = spawned(natsServerBinary(), ["-a", "127.0.0.1", "-p", String(port), "-m", String(monitor)], {});
	await waitFor(() => portAnswers(port), "nats-server", 30_000);
	return {
		...proc,
		url: `nats://127.0.0.1:${port}`,
		async published() {
			const varz = (await (await fetch(`http://127.0.0.1:${monitor}/varz`)).json()) as { in_msgs: number };
			return varz.in_msgs;
		},
	};
}

const STORE = "\0store";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Target {
	url: string;
	headers: Record<string, string>;
}

/** `parts`: the server's processes by name; `store`: the store's, counted apart. */
async function measureOnce(target: Target, seconds: number, connections: number, pids: { parts: Record<string, number[]>; store: number[] }, published?: () => Promise<number>) {
	const before = published ? await published() : 0;
	const { result: r, cpuNs } = await cpuDuring({ ...pids.parts, [STORE]: pids.store }, () => autocannon({ url: target.url, headers: target.headers, connections, duration: seconds }));
	const packets = published ? (await published()) - before : 0;
	const requests = Math.max(1, r.requests.total);
	const parts = Object.fromEntries(Object.keys(pids.parts).map((k) => [k, cpuNs[k] / requests]));
	return {
		rps: r.requests.average,
		p50: r.latency.p50,
		p99: r.latency.p99,
		errors: r.errors + r.non2xx,
		cpuNs: Object.values(parts).reduce((a, b) => a + b, 0),
		parts,
		storeNs: cpuNs[STORE] / requests,
		// A call is two packets, its request and its response.
		hops: published ? packets / 2 / requests : null,
	};
}

async function topologyFigures(
	name: string,
	server: BenchServer,
	/** What each of the server's processes runs, in order. */
	nodeNames: string[],
	bare: Proc & { url: string },
	opts: { seconds: number; connections: number; rounds: number; storePid?: number; nats?: Proc & { published(): Promise<number> } },
): Promise<GatewayFigure[]> {
	const targets: Record<Endpoint, Target> = {
		bare: { url: bare.url, headers: {} },
		noop: { url: `${server.base}/bench/noop`, headers: {} },
		me: { url: `${server.base}/users/me`, headers: server.auth },
	};
	const serverParts = Object.fromEntries([...server.procs.map((p, i) => [nodeNames[i], [p.child.pid!]]), ...(opts.nats ? [["nats-server", [opts.nats.child.pid!]]] : [])]);
	const pidsOf = (e: Endpoint) => ({ parts: e === "bare" ? { bare: [bare.child.pid!] } : serverParts, store: e === "bare" || !opts.storePid ? [] : [opts.storePid] });
	// Warm every path (JIT, caches, connections) before measuring.
	for (const e of Object.keys(targets) as Endpoint[]) await measureOnce(targets[e], 2, opts.connections, pidsOf(e));
	const runs = new Map<Endpoint, Array<Awaited<ReturnType<typeof measureOnce>>>>();
	for (let round = 0; round < opts.rounds; round++) {
		for (const e of Object.keys(targets) as Endpoint[]) {
			const published = e === "bare" ? undefined : opts.nats?.published;
			const figure = await measureOnce(targets[e], opts.seconds, opts.connections, pidsOf(e), published);
			runs.set(e, [...(runs.get(e) ?? []), figure]);
		}
	}
	return [...runs].map(([endpoint, rs]) => ({
		topology: name,
		endpoint,
		rps: median(rs.map((r) => r.rps)),
		p50: median(rs.map((r) => r.p50)),
		p99: median(rs.map((r) => r.p99)),
		errors: rs.reduce((n, r) => n + r.errors, 0),
		cpuNs: median(rs.map((r) => r.cpuNs)),
		parts: Object.fromEntries(Object.keys(rs[0].parts).map((k) => [k, median(rs.map((r) => r.parts[k]))])),
		storeNs: median(rs.map((r) => r.storeNs)),
		hops: rs[0].hops === null ? null : median(rs.map((r) => r.hops!)),
	}));
}

/** The embedded store's process, from the state file it leaves in its data directory. */
export function storePid(storeDataDir: string): number | undefined {
	const file = path.join(storeDataDir, "store", "running.json");
	return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as { pid: number }).pid : undefined;
}

export async function gatewayFigures(
	common: Record<string, string>,
	work: string,
	opts: { seconds: number; connections: number; rounds: number; storePid?: number },
): Promise<GatewayFigure[]> {
	const profiling: Record<string, string> = process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` } : {};
	const nodeEnv = (dir: string, port: number) => ({ ...common, ...profiling, DB_PREFIX: `b${randomBytes(4).toString("hex")}`, DATA_DIR: path.join(work, dir), PORT: String(port) });
	const figures: GatewayFigure[] = [];
	let bare: Awaited<ReturnType<typeof startBare>> | undefined;
	const nats = await startMonitoredNats();
	try {
		const port1 = await freePort();
		const one = await startBenchNodes([{}], nodeEnv("one", port1), port1);
		try {
			bare = await startBare(await server200(one));
			figures.push(...(await topologyFigures("one process", one, ["node"], bare, opts)));
		} finally {
			await one.stop();
		}
		const port2 = await freePort();
		const two = await startBenchNodes([{ SERVICES: "users" }, { SERVICES: "api" }], { ...nodeEnv("nats", port2), TRANSPORTER: nats.url }, port2);
		try {
			figures.push(...(await topologyFigures("api + users over NATS", two, ["users", "api"], bare, { ...opts, nats })));
		} finally {
			await two.stop();
		}
	} finally {
		await bare?.stop();
		await nats.stop();
	}
	return figures;
}

/** GET /users/me's answer, for the bare server to send. */
async function server200(server: BenchServer): Promise<unknown> {
	const res = await fetch(`${server.base}/users/me`, { headers: server.auth });
	if (res.status !== 200) throw new Error(`GET /users/me: HTTP ${res.status}`);
	return res.json();
}

const us = (ns: number) => (ns / 1000).toFixed(1);

export function gatewayTable(figures: GatewayFigure[], meta: { command: string; cores: number; connections: number; seconds: number; rounds: number }): string {
	const rows = [["topology", "endpoint", "req/s", "x bare", "CPU us/req", "x bare", "by process", "store us/req", "p50 ms", "p99 ms", "errors", "bus hops/req"]];
	const bareOf = (topology: string) => figures.find((f) => f.topology === topology && f.endpoint === "bare")!;
	for (const f of figures) {
		const b = bareOf(f.topology);
		rows.push([
			f.topology,
			ENDPOINTS[f.endpoint],
			f.rps.toFixed(0),
			(f.rps / b.rps).toFixed(2),
			us(f.cpuNs),
			(f.cpuNs / b.cpuNs).toFixed(2),
			Object.keys(f.parts).length > 1 ? Object.entries(f.parts).map(([k, ns]) => `${k} ${us(ns)}`).join(", ") : "-",
			f.endpoint === "bare" ? "-" : us(f.storeNs),
			String(f.p50),
			String(f.p99),
			String(f.errors),
			f.endpoint === "bare" ? "-" : f.hops === null ? "0 (local)" : f.hops.toFixed(2),
		]);
	}
	const verdicts = Object.entries(GATEWAY_GOALS).map(([topology, goal]) => {
		const me = figures.find((f) => f.topology === topology && f.endpoint === "me");
		if (!me) return "";
		const ratio = me.cpuNs / bareOf(topology).cpuNs;
		return `${topology}: GET /users/me at ${ratio.toFixed(2)}x bare HTTP's CPU per request (goal <= ${goal}x): ${ratio <= goal ? "met" : "NOT met"}`;
	});
	return [
		`${meta.connections} connections, ${meta.seconds} s per figure, median of ${meta.rounds} rounds, ${meta.cores} cores; ${meta.command}`,
		"CPU us/req: the server processes' user + system time (nats-server included) over the requests answered; the store's apart",
		"",
		formatTable(rows),
		"",
		...verdicts.filter(Boolean),
	].join("\n");
}
