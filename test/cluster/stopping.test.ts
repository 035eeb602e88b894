// Stopping the server the ways an operator or an orchestrator does, under load: `npm start` as a
// user runs it (build, then the server with its embedded store), 20 senders posting, and SIGTERM
// or SIGINT sent to npm, to the server process npm runs, or to the whole process group (systemd's
// default, Ctrl+C in a terminal). Each way: the server drains and exits 0 within the grace period,
// every send is answered or refused before it starts (503, or a connection refused or closed
// before any answer), the store holds exactly the answered messages, and no process of the tree
// is left (the embedded store included). A SIGKILLed server leaves no store behind either.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import mongoose from "mongoose";
import { freePort, portAnswers, startEmbeddedStore } from "../../shared/store";
import { client, expectSuccess, type Client } from "../support/http";
import { alive, track, waitFor, type Proc } from "../support/processes";
import { ownerKey } from "../support/cluster";

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, "../..");
/** What the tests give a stop; the deploy/ grace periods are 30 s and more. */
const GRACE_MS = 30_000;
const SENDERS = 20;

interface Server {
	npm: Proc;
	exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	dataDir: string;
	storePort: number;
	owner: Client;
	/** npm, the server process (npm's child) and the embedded store (the server's child). */
	tree: { npm: number; server: number; store: number };
}

let server: Server | undefined;

/** The parent of each process, from /proc. */
function parents(): Map<number, number> {
	const out = new Map<number, number>();
	for (const name of fs.readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
			out.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
		} catch {
			/* gone meanwhile */
		}
	}
	return out;
}

const childrenOf = (pid: number) => [...parents()].filter(([, ppid]) => ppid === pid).map(([p]) => p);
const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");

/** `npm start` in a process group of its own (as a shell or systemd starts it), on a fresh data directory. */
async function npmStart(): Promise<Server> {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-stopping-"));
	const [port, storePort] = [await freePort(), await freePort()];
	const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, PORT: String(port), STORE_PORT: String(storePort), HOST: "127.0.0.1" };
	Object.assign(env, { EXTERNAL_URL: "http://stopping.test", OWNER_EMAIL: "owner@stopping.test", RATE_LIMIT: "0", LOG_LEVEL: "info", LOG_FORMAT: "json" });
	for (const k of ["MONGO_URL", "TRANSPORTER", "SERVICES", "HEALTH_PORT", "METRICS_PORT"]) delete env[k];
	const child: ChildProcess = spawn("npm", ["start"], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
	const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
	const npm = track(child);
	const started: Server = { npm, exit, dataDir, storePort, owner: undefined as never, tree: { npm: child.pid!, server: 0, store: 0 } };
	server = started;
	const up = () => {
		if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited:\n${npm.output().slice(-4000)}`);
	};
	await waitFor(async () => (up(), fs.existsSync(path.join(dataDir, "zuliprc"))), "the server to create the owner", 180_000);
	const owner = client(`http://127.0.0.1:${port}/api/v1`, ownerKey(dataDir));
	await waitFor(async () => (up(), (await owner.get("/users/me").catch(() => null))?.status === 200), "the gateway", 120_000);
	// npm runs the server itself (`exec` in the script: no shell between), and the server the store.
	const [serverPid] = childrenOf(child.pid!);
	expect(cmdline(serverPid)).toMatch(/node (--\S+ )*dist\/deploy\/server\.js/);
	const [storePid] = childrenOf(serverPid).filter((p) => cmdline(p).includes("embedded-store"));
	expect(storePid).toBeGreaterThan(0);
	return Object.assign(started, { owner, tree: { npm: child.pid!, server: serverPid, store: storePid } });
}

afterEach(() => {
	if (!server) return;
	for (const pid of Object.values(server.tree)) if (pid && alive(pid)) process.kill(pid, "SIGKILL");
	fs.rmSync(server.dataDir, { recursive: true, force: true });
	server = undefined;
});

/**
 * The contents of the messages stored under `prefix`, read from the store once the server is gone.
 * A store that stops answering right after its start (seen twice, in a full run and after one,
 * not reproduced alone) is started once more: what is checked is what the data directory holds.
 */
async function storedContents(s: Server, prefix: string, attempt = 1): Promise<string[]> {
	const store = await startEmbeddedStore({ dataDir: s.dataDir, port: await freePort() });
	let conn: mongoose.Connection;
	try {
		conn = await mongoose.createConnection(store.url, { dbName: "chat_messages", serverSelectionTimeoutMS: 10_000 }).asPromise();
	} catch (err) {
		await store.stop();
		if (attempt > 1) throw err;
		process.stderr.write(`the store started on ${s.dataDir} did not answer (${String(err)}); starting it again\n`);
		return storedContents(s, prefix, attempt + 1);
	}
	try {
		const docs = await conn.collection("messages").find({ content: { $regex: `^${prefix} ` } }, { projection: { content: 1 } }).toArray();
		return docs.map((d) => d.content as string);
	} finally {
		await conn.close();
		await store.stop();
	}
}

type Outcome = { kind: "ok"; content: string } | { kind: "refused" } | { kind: "failed"; detail: string };

/** A connection refused, or closed before any answer came: the request never started. */
function notStarted(err: unknown): boolean {
	const cause = (err as { cause?: { code?: string } }).cause;
	return ["ECONNREFUSED", "ECONNRESET", "UND_ERR_SOCKET", "EPIPE"].includes(cause?.code ?? "");
}

/** SENDERS senders posting to one channel until each is refused 3 times in a row. */
function load(owner: Client, prefix: string) {
	const outcomes: Outcome[] = [];
	const sender = async (n: number) => {
		let refusedInARow = 0;
		for (let i = 0; refusedInARow < 3; i++) {
			const content = `${prefix} sender ${n} message ${i}`;
			try {
				const r = await owner.post("/messages", { type: "stream", to: "stopping", topic: "load", content });
				if (r.status === 200 && r.body.result === "success") outcomes.push({ kind: "ok", content });
				else if (r.status === 503) outcomes.push({ kind: "refused" });
				else outcomes.push({ kind: "failed", detail: `${r.status} ${JSON.stringify(r.body)}` });
				refusedInARow = r.status === 200 ? 0 : refusedInARow + 1;
			} catch (err) {
				outcomes.push(notStarted(err) ? { kind: "refused" } : { kind: "failed", detail: String((err as Error).cause ?? err) });
				refusedInARow++;
			}
			if (refusedInARow) await new Promise((r) => setTimeout(r, 20));
		}
	};
	const done = Promise.all(Array.from({ length: SENDERS }, (_, n) => sender(n)));
	const answered = () => outcomes.filter((o): o is Extract<Outcome, { kind: "ok" }> => o.kind === "ok").map((o) => o.content);
	return { outcomes, done, answered };
}

/** The exit, or null once the grace period is over. */
async function exitWithin(s: Server, ms: number) {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
	const exit = await Promise.race([s.exit, late]);
	clearTimeout(timer);
	return exit;
}

const WAYS: Array<[string, NodeJS.Signals, "npm" | "server" | "group"]> = [
	["SIGTERM to npm", "SIGTERM", "npm"],
	["SIGINT to npm", "SIGINT", "npm"],
	["SIGTERM to the server process", "SIGTERM", "server"],
	["SIGINT to the server process", "SIGINT", "server"],
	["SIGTERM to the process group (systemd)", "SIGTERM", "group"],
	["SIGINT to the process group (Ctrl+C)", "SIGINT", "group"],
];

test.each(WAYS)("%s under load: a full drain, exit 0, every send answered or refused before it starts, no process left", async (_name, signal, target) => {
	const s = await npmStart();
	expectSuccess(await s.owner.post("/users/me/subscriptions", { subscriptions: [{ name: "stopping" }] }));
	const prefix = `${target}-${signal}`;
	const { outcomes, done, answered } = load(s.owner, prefix);
	await waitFor(async () => answered().length >= 2 * SENDERS, "the first sends", 120_000);

	process.kill(target === "group" ? -s.tree.npm : s.tree[target], signal);
	const exit = await exitWithin(s, GRACE_MS);
	await done;

	expect([exit, s.npm.output().includes(`${signal}: draining and stopping`)]).toEqual([{ code: 0, signal: null }, true]);
	expect(outcomes.filter((o) => o.kind === "failed")).toEqual([]);
	expect(Object.entries(s.tree).filter(([, pid]) => alive(pid))).toEqual([]);
	expect(await portAnswers(s.storePort)).toBe(false);
	// The store holds exactly the answered messages: none lost, none stored without an answer.
	const stored = new Set(await storedContents(s, prefix));
	const acknowledged = new Set(answered());
	expect(acknowledged.size).toBeGreaterThanOrEqual(2 * SENDERS);
	expect([...stored].filter((c) => !acknowledged.has(c))).toEqual([]);
	expect([...acknowledged].filter((c) => !stored.has(c))).toEqual([]);
});

test("a SIGKILLed server leaves no store behind: the store sees its stdin close, flushes every answered write and exits", async () => {
	const s = await npmStart();
	expectSuccess(await s.owner.post("/users/me/subscriptions", { subscriptions: [{ name: "stopping" }] }));
	const sent: string[] = [];
	for (let i = 0; i < 5; i++) {
		const content = `killed message ${i}`;
		expectSuccess(await s.owner.post("/messages", { type: "stream", to: "stopping", topic: "load", content }));
		sent.push(content);
	}

	process.kill(s.tree.server, "SIGKILL");
	// npm passes its child's signal on to itself; the store follows its parent.
	expect(await exitWithin(s, GRACE_MS)).toEqual({ code: null, signal: "SIGKILL" });
	await waitFor(async () => !alive(s.tree.store), "the store to exit", GRACE_MS);
	expect((await storedContents(s, "killed")).sort()).toEqual(sent);
});
