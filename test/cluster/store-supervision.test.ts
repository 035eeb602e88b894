// The embedded store's supervision (shared/store.ts) and its log (shared/store-log.ts), on a node
// started as an operator starts one (`node dist/deploy/server.js`, no MONGO_URL: the node runs
// its own store), at the default log level.
//
// Under load (senders posting without pause), the store is killed with SIGKILL; the test then
// holds the store's port for a while (as a store that cannot come back yet), so that every
// restart fails and the node backs off, while fresh requests are made. Meanwhile /readyz is
// unready and every such request is answered 503 SERVICE_UNAVAILABLE with Retry-After (not after
// the driver's 15 s server selection: the hold ends, failing the test, well before that). Once the port is free the store comes back, /readyz
// is ready, sends succeed, and every send acknowledged is stored. No answer is anything but a
// success or a 503, and the node logs the exit and each restart.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { mongo } from "mongoose";
import { freePort } from "../../shared/store";
import { ownerKey } from "../support/cluster";
import { client, expectSuccess, type Client } from "../support/http";
import { alive, startServerNode, waitFor, type Proc } from "../support/processes";

jest.setTimeout(300_000);

const SENDERS = 8;
/** Fresh requests made while the store is held down; each must be refused at once. */
const PROBES = 30;
/**
 * The bound of the hold: far more than refusing PROBES requests takes, and less than the driver's
 * server selection (15 s) that each request waited for before this.
 */
const HOLD_MAX_MS = 10_000;
/** No request may take longer (a hang bound, not a measurement). */
const HANG_MS = 60_000;

let node: Proc;
let dataDir: string;
let storePort: number;
let readyz: string;
let owner: Client;
const dbPrefix = `v${randomBytes(4).toString("hex")}`;

interface LogLine {
	level: number;
	mod?: string;
	msg: string;
}

/** The node's JSON log lines. */
const logLines = (): LogLine[] =>
	node
		.output()
		.split("\n")
		.filter((l) => l.startsWith("{"))
		.map((l) => JSON.parse(l) as LogLine);

const PINO = { warn: 40, error: 50 };

/** The embedded store process the node runs (its child). */
function storePid(): number {
	const children = fs.readFileSync(`/proc/${node.child.pid}/task/${node.child.pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
	const pid = children.find((c) => fs.readFileSync(`/proc/${c}/cmdline`, "utf8").includes("embedded-store"));
	if (!pid) throw new Error("the node runs no embedded store");
	return pid;
}

const readyStatus = async () => (await fetch(readyz)).status;

/** Listens on `port` with `server` (trying for about 50 ms while the port is still being freed); false if another process has it. */
function holdPort(server: net.Server, port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const tryListen = (left: number) => {
			server.once("error", () => (left > 0 ? setTimeout(() => tryListen(left - 1), 5) : resolve(false)));
			server.listen(port, "127.0.0.1", () => resolve(true));
		};
		tryListen(10);
	});
}

beforeAll(async () => {
	dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-supervision-"));
	const [port, healthPort] = [await freePort(), await freePort()];
	storePort = await freePort();
	readyz = `http://127.0.0.1:${healthPort}/readyz`;
	// LOG_LEVEL empty: the default level (info). No MONGO_URL: the node starts its own store.
	node = startServerNode({
		...{ MONGO_URL: "", TRANSPORTER: "", SERVICES: "", LOG_LEVEL: "", LOG_FORMAT: "json" },
		...{ DATA_DIR: dataDir, PORT: String(port), STORE_PORT: String(storePort), HEALTH_PORT: String(healthPort), HOST: "127.0.0.1" },
		...{ EXTERNAL_URL: "http://supervision.test", OWNER_EMAIL: "owner@supervision.test", RATE_LIMIT: "0", DB_PREFIX: dbPrefix },
	});
	const up = () => {
		if (node.child.exitCode !== null || node.child.signalCode !== null) throw new Error(`the node exited:\n${node.output().slice(-4000)}`);
	};
	await waitFor(async () => (up(), (await fetch(readyz).catch(() => null))?.status === 200), "the node's /readyz", 180_000);
	owner = client(`http://127.0.0.1:${port}/api/v1`, ownerKey(dataDir));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "supervision" }] }));
});

afterAll(async () => {
	await node?.stop();
	fs.rmSync(dataDir, { recursive: true, force: true });
});

test("a store warning reaches the node's log at the default level, through its logger", async () => {
	// A message header with an impossible length: the store warns and closes the connection.
	await new Promise<void>((resolve, reject) => {
		const sock = net.connect({ port: storePort, host: "127.0.0.1" }, () => sock.end(Buffer.from([5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 7, 0, 0])));
		sock.on("error", reject);
		sock.on("close", () => resolve());
	});
	await waitFor(async () => logLines().some((l) => l.mod === "store" && /bad message length/.test(l.msg)), "the store's warning in the node's log", 30_000);
	expect(logLines().find((l) => /bad message length/.test(l.msg))).toMatchObject({ level: PINO.warn, mod: "store", msg: "wire: bad message length length=5" });
});

interface Outcome {
	content: string;
	status: number;
	/** Order stamps (a counter, not a clock): when the request started and when its answer came. */
	started: number;
	answered: number;
}

/** A fresh request while the store is down, and what it was answered. */
interface Probe {
	request: string;
	/** For the failure message only. */
	ms: number;
	status: number;
	code?: string;
	retryAfter: string | null;
}

test("the store killed under load: unready, 503 at once while it is down, restarted with backoff, nothing acknowledged lost", async () => {
	let tick = 0;
	const stamp = () => ++tick;
	const outcomes: Outcome[] = [];
	const failures: string[] = [];
	let stopping = false;
	const sender = async (n: number) => {
		for (let i = 0; !stopping; i++) {
			const content = `supervision sender ${n} message ${i}`;
			const started = stamp();
			const startedMs = Date.now();
			try {
				const r = await owner.post("/messages", { type: "stream", to: "supervision", topic: "load", content });
				outcomes.push({ content, status: r.status, started, answered: stamp() });
				if (!(r.status === 200 && r.body.result === "success") && !(r.status === 503 && r.body.code === "SERVICE_UNAVAILABLE")) failures.push(`${r.status} ${JSON.stringify(r.body)}`);
				if (Date.now() - startedMs > HANG_MS) failures.push(`a send hung for ${Date.now() - startedMs} ms`);
				if (r.status !== 200) await new Promise((res) => setTimeout(res, 20));
			} catch (err) {
				failures.push(`no answer: ${String((err as Error).cause ?? err)}`);
			}
		}
	};
	const senders = Promise.all(Array.from({ length: SENDERS }, (_, n) => sender(n)));
	const ok = () => outcomes.filter((o) => o.status === 200);
	try {
		await waitFor(async () => ok().length >= 4 * SENDERS, "the first sends", 120_000);

		// Kill the store, then hold its port as soon as the killed process is gone. The node restarts
		// it 100 ms after its exit, and each restart that follows a short run waits twice as long:
		// should the restart win the port, the store is killed again, with more time to take it.
		const beforeKill = ok().map((o) => o.content);
		const killedAt = stamp();
		const hold = net.createServer((sock) => sock.destroy());
		let victim = 0;
		for (let attempt = 1; ; attempt++) {
			victim = storePid();
			process.kill(victim, "SIGKILL");
			while (alive(victim)) await new Promise((r) => setTimeout(r, 2));
			if (await holdPort(hold, storePort)) break;
			if (attempt === 4) throw new Error("the node restarted the store before the test could hold its port, four times");
			await waitFor(async () => (await readyStatus()) === 200 && storePid() !== victim, "the store to be back before killing it again", 60_000);
		}

		// While held: unready, and fresh requests of every kind are refused with 503 at once. (The
		// sends in flight at the kill wait for the store instead, as the driver does: they are
		// answered once it is back, or 503 when its server selection gives up.)
		const probes: Probe[] = [];
		const readyWhileDown: number[] = [];
		const holdEnds = Date.now() + HOLD_MAX_MS;
		try {
			// Unready as soon as the node has seen the exit; from then on, until the port is free.
			await waitFor(async () => (await readyStatus()) === 503, "the node to report itself unready", HOLD_MAX_MS);
			while (probes.length < PROBES && Date.now() < holdEnds) {
				readyWhileDown.push(await readyStatus());
				for (const [request, call] of [
					["POST /messages", () => owner.post("/messages", { type: "stream", to: "supervision", topic: "probe", content: "probe" })],
					["GET /messages", () => owner.get("/messages", { anchor: "newest", num_before: 1, num_after: 0 })],
					["GET /users/me", () => owner.get("/users/me")],
				] as const) {
					const t0 = Date.now();
					const r = await call();
					probes.push({ request, ms: Date.now() - t0, status: r.status, code: r.body?.code, retryAfter: r.headers.get("retry-after") });
				}
			}
			// Held until a restart has failed on the taken port (the node backs off and tries again).
			const failedRestart = () => logLines().some((l) => l.mod === "store" && l.msg.startsWith("The embedded store failed to restart"));
			await waitFor(async () => failedRestart(), "a restart to fail while the port is held", Math.max(holdEnds - Date.now(), 1));
			expect(await (await fetch(readyz)).json()).toMatchObject({ status: "unavailable", checks: { databases: false } });
		} finally {
			await new Promise<void>((resolve) => hold.close(() => resolve()));
		}
		expect({ probes: probes.length, all: probes.length < PROBES ? probes : [] }).toEqual({ probes: PROBES, all: [] });
		expect(probes.filter((p) => p.status !== 503 || p.code !== "SERVICE_UNAVAILABLE" || p.retryAfter !== "1")).toEqual([]);
		expect(readyWhileDown.filter((status) => status !== 503)).toEqual([]);

		// Back: ready, and sends succeed again.
		await waitFor(async () => (await readyStatus()) === 200, "the node to be ready again", 120_000);
		const backAt = stamp();
		await waitFor(async () => outcomes.filter((o) => o.started > backAt && o.status === 200).length >= 2 * SENDERS, "sends to succeed again", 120_000);
		stopping = true;
		await senders;
		// With the node's errors beside them, should any answer be neither success nor 503.
		expect({ failures, errors: failures.length ? logLines().filter((l) => l.level >= PINO.error) : [] }).toEqual({ failures: [], errors: [] });
		expect(storePid()).not.toBe(victim);

		// Every acknowledged send is stored, those acknowledged before the kill above all.
		const mongoClient = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${storePort}/`);
		try {
			const docs = await mongoClient.db(`${dbPrefix}_messages`).collection("messages").find({ content: { $regex: "^supervision sender " } }, { projection: { content: 1 } }).toArray();
			const stored = new Set(docs.map((d) => d.content as string));
			expect(beforeKill.filter((c) => !stored.has(c))).toEqual([]);
			expect(ok().filter((o) => !stored.has(o.content))).toEqual([]);
			expect(ok().some((o) => o.started > killedAt)).toBe(true);
		} finally {
			await mongoClient.close();
		}
	} finally {
		stopping = true;
		await senders;
	}

	// The node logged the exit, the failed restarts while the port was held, and the restart that worked.
	const lines = logLines().filter((l) => l.mod === "store");
	expect(lines).toContainEqual(expect.objectContaining({ level: PINO.error, msg: expect.stringMatching(/^The embedded store exited \(killed by SIGKILL\); restarting it in \d+ ms$/) }));
	expect(lines).toContainEqual(expect.objectContaining({ level: PINO.error, msg: expect.stringMatching(/^The embedded store failed to restart \(exit code 1\); restarting it in \d+ ms$/) }));
	expect(lines).toContainEqual(expect.objectContaining({ level: PINO.warn, msg: "Restarting the embedded store (restart 1)" }));
	expect(lines).toContainEqual(expect.objectContaining({ level: PINO.warn, msg: expect.stringMatching(/^The embedded store is back \(restart \d+\), listening on 127\.0\.0\.1:\d+$/) }));
	// The store's own error for the taken port came through the node's log too.
	expect(lines.some((l) => l.level === PINO.error && /address already in use/.test(l.msg))).toBe(true);
});
