// `npm run bench`: load figures for the gateway, printed as a table.
//
// GET /users/me is measured in two topologies: all services in one process, and `api` and `users`
// as two processes talking over a real nats-server. In the same run and topology, the baseline is
// an unauthenticated route to an action on the users service that does nothing, so each figure
// is also printed as a ratio to what the gateway and bus alone cost. Target: /users/me at no less
// than 0.8 of the baseline's requests/s in both topologies.
//
// Then the messages figures (messages-bench.ts), each beside the raw store doing the same work,
// and the store figures (store-bench.ts): the store issue's goals, each with its verdict, and
// the events figures (events-bench.ts): one message fanned out to 1,000 long-polling clients, and
// the scheduling figures (scheduling-bench.ts): 2,000 scheduled messages due at once, 1 and 3 replicas.
//
// Settings: BENCH_SECONDS (per measurement, default 10), BENCH_CONNECTIONS (default 32),
// BENCH_MESSAGE_CONNECTIONS (for the messages figures, default 4), MONGO_URL (a MongoDB server;
// without it the embedded store is started), BENCH_ONLY (one part: "gateway", "messages",
// "flags" for the flag figures alone, "store", "events" or "scheduling"); the store figures' own
// settings are in store-bench.ts (BENCH_STORE_MESSAGES, ...), the events figures' in
// events-bench.ts, the scheduling figures' in scheduling-bench.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { freePort, startEmbeddedStore } from "../../shared/store";
import { startNats } from "../support/processes";
import { commandLine, onInterrupt, printableUrl, startBenchNodes, startBenchServer } from "./bench-support";
import { messageFigures, pairTable, type Pair } from "./messages-bench";
import { STORE_SETTINGS, storeFigures, storeTable, type StoreReport } from "./store-bench";
import { EVENTS_SETTINGS, eventsFigures, eventsTable, type EventsFigure } from "./events-bench";
import { SCHEDULING_SETTINGS, schedulingFigures, schedulingTable, type SchedulingFigure } from "./scheduling-bench";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ONLY = process.env.BENCH_ONLY;
const runs = (part: "gateway" | "messages" | "store" | "events" | "scheduling") => !ONLY || ONLY === part || (part === "messages" && ONLY === "flags");

interface Figure {
	topology: string;
	endpoint: string;
	rps: number;
	p50: number;
	p99: number;
	errors: number;
}

async function measure(url: string, headers: Record<string, string>, seconds: number): Promise<Omit<Figure, "topology" | "endpoint">> {
	const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
	return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function runTopology(name: string, nodes: Array<Record<string, string>>, shared: Record<string, string>, port: number): Promise<Figure[]> {
	const server = await startBenchNodes(nodes, shared, port);
	try {
		const { base } = server;
		const auth = server.auth.authorization;

		// Warm both paths (JIT, caches, connections) before measuring.
		await measure(`${base}/bench/noop`, {}, 2);
		await measure(`${base}/users/me`, { authorization: auth }, 2);
		const baseline = await measure(`${base}/bench/noop`, {}, SECONDS);
		const me = await measure(`${base}/users/me`, { authorization: auth }, SECONDS);
		return [
			{ topology: name, endpoint: "no-op action (baseline)", ...baseline },
			{ topology: name, endpoint: "GET /users/me", ...me },
		];
	} finally {
		await server.stop();
	}
}

function table(figures: Figure[]): string {
	const rows = [["topology", "endpoint", "req/s", "p50 ms", "p99 ms", "errors", "ratio to baseline"]];
	const baselines = new Map(figures.filter((f) => f.endpoint.startsWith("no-op")).map((f) => [f.topology, f.rps]));
	for (const f of figures) {
		rows.push([f.topology, f.endpoint, f.rps.toFixed(0), String(f.p50), String(f.p99), String(f.errors), (f.rps / baselines.get(f.topology)!).toFixed(2)]);
	}
	const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
	return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ")).join("\n");
}

async function main() {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), "chat-bench-"));
	let store: Awaited<ReturnType<typeof startEmbeddedStore>> | undefined;
	let nats: Awaited<ReturnType<typeof startNats>> | undefined;
	const cleanUp = async () => {
		await nats?.proc.stop();
		await store?.stop();
		fs.rmSync(work, { recursive: true, force: true });
	};
	const forget = onInterrupt(cleanUp);
	const figures: Figure[] = [];
	let pairs: Pair[] = [];
	let storeReport: StoreReport | undefined;
	let eventsReport: EventsFigure[] = [];
	let schedulingReport: SchedulingFigure[] = [];
	try {
		store = process.env.MONGO_URL ? undefined : await startEmbeddedStore({ dataDir: path.join(work, "store"), port: await freePort() });
		const common = {
			MONGO_URL: process.env.MONGO_URL ?? store!.url,
			BENCH_ROUTES: "1",
			RATE_LIMIT: "0",
			LOG_LEVEL: "warn",
			HOST: "127.0.0.1",
			EXTERNAL_URL: "http://bench.test",
		};

		if (runs("gateway") || runs("events") || runs("scheduling")) nats = await startNats();
		if (runs("gateway")) {
			const port1 = await freePort();
			const one = { ...common, DB_PREFIX: `b${randomBytes(4).toString("hex")}`, DATA_DIR: path.join(work, "one"), PORT: String(port1) };
			figures.push(...(await runTopology("one process", [{}], one, port1)));

			const port2 = await freePort();
			const two = { ...common, DB_PREFIX: `b${randomBytes(4).toString("hex")}`, DATA_DIR: path.join(work, "nats"), PORT: String(port2), TRANSPORTER: nats!.url };
			figures.push(...(await runTopology("api + users over NATS", [{ SERVICES: "users" }, { SERVICES: "api" }], two, port2)));
		}
		if (runs("messages")) {
			const port3 = await freePort();
			const prefix = `b${randomBytes(4).toString("hex")}`;
			const three = { ...common, DB_PREFIX: prefix, DATA_DIR: path.join(work, "messages"), PORT: String(port3) };
			const node = await startBenchServer(three);
			try {
				pairs = await messageFigures({
					base: node.base,
					mongoUrl: common.MONGO_URL,
					prefix,
					dataDir: three.DATA_DIR,
					seconds: SECONDS,
					connections: Number(process.env.BENCH_MESSAGE_CONNECTIONS ?? 4),
					flagsOnly: ONLY === "flags",
				});
			} catch (err) {
				await new Promise((resolve) => setTimeout(resolve, 1000));
				process.stderr.write(`the server's last words:\n${node.proc.output().slice(-4000)}\n`);
				throw err;
			} finally {
				await node.stop();
			}
		}
		if (runs("store")) {
			const port4 = await freePort();
			const prefix = `b${randomBytes(4).toString("hex")}`;
			const node = await startBenchServer({ ...common, DB_PREFIX: prefix, DATA_DIR: path.join(work, "store-figures"), PORT: String(port4) });
			try {
				storeReport = await storeFigures({ server: node, mongoUrl: common.MONGO_URL, prefix, seconds: SECONDS });
			} catch (err) {
				await new Promise((resolve) => setTimeout(resolve, 1000));
				process.stderr.write(`the server's last words:\n${node.proc.output().slice(-4000)}\n`);
				throw err;
			} finally {
				await node.stop();
			}
		}
		if (runs("events")) eventsReport = await eventsFigures(common, nats!.url, work);
		if (runs("scheduling")) schedulingReport = await schedulingFigures(common, nats!.url, work);
	} finally {
		forget();
		await cleanUp();
	}
	if (figures.length) {
		process.stdout.write(`\n${CONNECTIONS} connections, ${SECONDS} s per figure, ${os.cpus().length} cores\n\n${table(figures)}\n`);
		const failing = figures.filter((f) => f.endpoint === "GET /users/me" && f.rps / figures.find((b) => b.topology === f.topology)!.rps < 0.8);
		process.stdout.write(failing.length ? `\nBelow the 0.8 target: ${failing.map((f) => f.topology).join(", ")}\n` : "\nBoth topologies meet the 0.8 target.\n");
	}
	if (pairs.length) process.stdout.write(`\n${pairTable(pairs)}\n`);
	if (storeReport) {
		const storeName = process.env.MONGO_URL ? `MONGO_URL (${printableUrl(process.env.MONGO_URL)})` : "embedded (startEmbeddedStore)";
		const command = commandLine(["BENCH_ONLY", "BENCH_SECONDS", ...STORE_SETTINGS, "MONGO_URL"], "test/bench/bench.ts");
		process.stdout.write(`\n${storeTable(storeReport, { store: storeName, command, cores: os.cpus().length })}\n`);
	}
	if (eventsReport.length) {
		const storeName = process.env.MONGO_URL ? `MONGO_URL (${printableUrl(process.env.MONGO_URL)})` : "embedded";
		const command = commandLine(["BENCH_ONLY", ...EVENTS_SETTINGS, "MONGO_URL"], "test/bench/bench.ts");
		process.stdout.write(`\n${eventsTable(eventsReport, { store: storeName, command, cores: os.cpus().length })}\n`);
	}
	if (schedulingReport.length) {
		const storeName = process.env.MONGO_URL ? `MONGO_URL (${printableUrl(process.env.MONGO_URL)})` : "embedded";
		const command = commandLine(["BENCH_ONLY", ...SCHEDULING_SETTINGS, "MONGO_URL"], "test/bench/bench.ts");
		process.stdout.write(`\n${schedulingTable(schedulingReport, { store: storeName, command, cores: os.cpus().length })}\n`);
	}
}

main().catch((err) => {
	process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
