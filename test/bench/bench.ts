// `npm run bench`: load figures for the gateway, printed as a table.
//
// First the gateway figures (gateway-bench.ts): a do-nothing action and GET /users/me, in one
// process and over NATS, each as requests/s and CPU time per request beside bare Node HTTP
// answering the same JSON in the same run. Then the messages figures (messages-bench.ts), each
// beside the raw store doing the same work, and the store figures (store-bench.ts): the store issue's goals, each with its verdict, and
// the events figures (events-bench.ts): one message fanned out to 1,000 long-polling clients, and
// the scheduling figures (scheduling-bench.ts): 2,000 scheduled messages due at once, 1 and 3 replicas,
// and the lost-replica figures (replica-loss-bench.ts): a messages replica killed under 20 clients,
// and the files figures (files-bench.ts): memory and speed of uploads and downloads, and the import
// and export figures (import-bench.ts): import-zulip's and export-zulip's messages per second and peak RSS,
// and the node-memory figures (node-memory-bench.ts): a node's RSS over thousands of messages, and
// the integrations figures (integrations-bench.ts): GitHub's push webhook beside POST /messages, and
// the reads figures (reads-bench.ts): CPU per request of message pages and their neighbours beside
// a do-nothing action, at channel sizes up to a million messages (only with BENCH_ONLY=reads), and
// the notifications figures (notifications-bench.ts): 10,000 mentions of idle members, their
// missed-message emails, and POST /messages with that load beside without it.
//
// Settings: BENCH_SECONDS (per measurement, default 10), BENCH_CONNECTIONS (default 32),
// BENCH_GATEWAY_ROUNDS (gateway figures, each the median of that many, default 3), BENCH_CPU_PROF
// (a directory: the gateway figures' server nodes write CPU profiles there),
// BENCH_MESSAGE_CONNECTIONS (for the messages figures, default 4), MONGO_URL (a MongoDB server;
// without it the embedded store is started), BENCH_ONLY (one part: "gateway", "messages",
// "flags" for the flag figures alone, "store", "events", "scheduling", "replica-loss", "files", "import", "node-memory", "integrations", "notifications" or "reads"); the store
// figures' own settings are in store-bench.ts (BENCH_STORE_MESSAGES, ...), the events figures' in
// events-bench.ts, the scheduling figures' in scheduling-bench.ts, the lost-replica figures' in
// replica-loss-bench.ts, the integrations figures' in integrations-bench.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort, startEmbeddedStore } from "../../shared/store";
import { startNats } from "../support/processes";
import { commandLine, onInterrupt, printableUrl, startBenchServer } from "./bench-support";
import { GATEWAY_SETTINGS, gatewayFigures, gatewayTable, storePid, type GatewayFigure } from "./gateway-bench";
import { messageFigures, pairTable, type Pair } from "./messages-bench";
import { STORE_SETTINGS, storeFigures, storeTable, type StoreReport } from "./store-bench";
import { EVENTS_SETTINGS, eventsFigures, eventsTable, type EventsFigure } from "./events-bench";
import { SCHEDULING_SETTINGS, schedulingFigures, schedulingTable, type SchedulingFigure } from "./scheduling-bench";
import { LOSS_SETTINGS, lossFigures, lossTable, type LossFigure } from "./replica-loss-bench";
import { STARTUP_SETTINGS, startupFigures, startupTable, type StartupReport } from "./startup-bench";
import { FILES_SETTINGS, filesFigures, filesTable, type FilesFigure } from "./files-bench";
import { IMPORT_SETTINGS, importFigures, importTable, type ImportFigure } from "./import-bench";
import { NODE_MEMORY_SETTINGS, nodeMemoryFigures, nodeMemoryTable, type NodeMemoryFigure } from "./node-memory-bench";
import { INTEGRATIONS_SETTINGS, integrationFigures, integrationsTable, type IntegrationFigure } from "./integrations-bench";
import { READS_SETTINGS, readsFigures, readsTable, type ReadsReport } from "./reads-bench";
import { NOTIFY_SETTINGS, notifyFigures, notifyTable, type NotifyFigure } from "./notifications-bench";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_GATEWAY_ROUNDS ?? 3);
const ONLY = process.env.BENCH_ONLY;
const runs = (part: "gateway" | "messages" | "store" | "events" | "scheduling" | "replica-loss" | "startup" | "files" | "import" | "node-memory" | "integrations" | "notifications") => !ONLY || ONLY === part || (part === "messages" && ONLY === "flags");
// The reads figures build a channel of a million messages: asked for by name only.
const runsReads = ONLY === "reads";

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
	let figures: GatewayFigure[] = [];
	let pairs: Pair[] = [];
	let storeReport: StoreReport | undefined;
	let eventsReport: EventsFigure[] = [];
	let schedulingReport: SchedulingFigure[] = [];
	let lossReport: LossFigure[] = [];
	let startupReport: StartupReport | undefined;
	let filesReport: FilesFigure[] = [];
	let importReport: ImportFigure[] = [];
	let nodeMemoryReport: NodeMemoryFigure[] = [];
	let integrationsReport: IntegrationFigure[] = [];
	const integrationOpts = { connections: Number(process.env.BENCH_INTEGRATION_CONNECTIONS ?? 8), rounds: Number(process.env.BENCH_INTEGRATION_ROUNDS ?? 3), seconds: SECONDS };
	let readsReport: ReadsReport | undefined;
	let notifyReport: NotifyFigure | undefined;
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

		if (runs("events") || runs("scheduling") || runs("files")) nats = await startNats();
		if (runs("gateway")) figures = await gatewayFigures(common, work, { seconds: SECONDS, connections: CONNECTIONS, rounds: ROUNDS, storePid: store ? storePid(path.join(work, "store")) : undefined });
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
				storeReport = await storeFigures({ server: node, mongoUrl: common.MONGO_URL, prefix, seconds: SECONDS, storeDir: store ? path.join(work, "store") : undefined });
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
		if (runs("replica-loss")) lossReport = await lossFigures(common.MONGO_URL);
		if (runs("startup")) startupReport = await startupFigures(common, work, SECONDS);
		if (runs("files")) filesReport = await filesFigures(common, nats!.url, work);
		if (runs("import")) importReport = await importFigures(common.MONGO_URL, work);
		if (runs("node-memory")) nodeMemoryReport = await nodeMemoryFigures(common, work);
		if (runs("integrations")) {
			const node = await startBenchServer({ ...common, DB_PREFIX: `b${randomBytes(4).toString("hex")}`, DATA_DIR: path.join(work, "integrations"), PORT: String(await freePort()) });
			try {
				integrationsReport = await integrationFigures(node, { ...integrationOpts, storePid: store ? storePid(path.join(work, "store")) : undefined });
			} finally {
				await node.stop();
			}
		}
		if (runsReads) readsReport = await readsFigures(common, work, { seconds: SECONDS, storePid: store ? storePid(path.join(work, "store")) : undefined });
		if (runs("notifications")) notifyReport = await notifyFigures(common, work, store ? storePid(path.join(work, "store")) : undefined);
	} finally {
		forget();
		await cleanUp();
	}
	if (figures.length) {
		const command = commandLine([...GATEWAY_SETTINGS, "MONGO_URL"], "test/bench/bench.ts");
		process.stdout.write(`\n${gatewayTable(figures, { command, cores: os.cpus().length, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS })}\n`);
	}
	if (pairs.length) process.stdout.write(`\n${pairTable(pairs)}\n`);
	if (storeReport) {
		const storeName = process.env.MONGO_URL ? `MONGO_URL (${printableUrl(process.env.MONGO_URL)})` : "embedded (startEmbeddedStore)";
		const command = commandLine(["BENCH_ONLY", "BENCH_SECONDS", ...STORE_SETTINGS, "MONGO_URL"], "test/bench/bench.ts");
		process.stdout.write(`\n${storeTable(storeReport, { store: storeName, command, cores: os.cpus().length })}\n`);
	}
	const tableInfo = (settings: string[]) => ({
		store: process.env.MONGO_URL ? `MONGO_URL (${printableUrl(process.env.MONGO_URL)})` : "embedded",
		command: commandLine(["BENCH_ONLY", ...settings, "MONGO_URL"], "test/bench/bench.ts"),
		cores: os.cpus().length,
	});
	if (eventsReport.length) process.stdout.write(`\n${eventsTable(eventsReport, tableInfo(EVENTS_SETTINGS))}\n`);
	if (schedulingReport.length) process.stdout.write(`\n${schedulingTable(schedulingReport, tableInfo(SCHEDULING_SETTINGS))}\n`);
	if (startupReport) process.stdout.write(`\n${startupTable(startupReport, tableInfo(STARTUP_SETTINGS))}\n`);
	if (lossReport.length) process.stdout.write(`\n${lossTable(lossReport, tableInfo(LOSS_SETTINGS))}\n`);
	if (filesReport.length) process.stdout.write(`\n${filesTable(filesReport, tableInfo(FILES_SETTINGS))}\n`);
	if (nodeMemoryReport.length) process.stdout.write(`\n${nodeMemoryTable(nodeMemoryReport, tableInfo(NODE_MEMORY_SETTINGS))}\n`);
	if (importReport.length) process.stdout.write(`\n${importTable(importReport, tableInfo(IMPORT_SETTINGS))}\n`);
	if (integrationsReport.length) process.stdout.write(`\n${integrationsTable(integrationsReport, { ...tableInfo(INTEGRATIONS_SETTINGS), ...integrationOpts })}\n`);
	if (readsReport) process.stdout.write(`\n${readsTable(readsReport, tableInfo(READS_SETTINGS))}\n`);
	if (notifyReport) process.stdout.write(`\n${notifyTable(notifyReport, tableInfo(NOTIFY_SETTINGS))}\n`);
}

main().catch((err) => {
	process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
