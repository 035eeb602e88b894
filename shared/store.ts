// The embedded MongoDB-compatible store: our own MongoDB wire-protocol server (deploy/embedded-store,
// in Go: the data and its indexes in the Pebble storage engine on disk), built on first need and
// cached. Used when MONGO_URL is not set, so one command runs everything on a bare machine.
import { spawn, execFileSync, ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { mongo } from "mongoose";
import { goForStore, StartupError } from "./go-toolchain";
import { forwardStoreLog, storeLogLevel, type StoreLevel, type StoreLog } from "./store-log";

export { StartupError };

/** The project's root, the nearest folder above with package.json: from shared/ or from dist/shared/. */
function projectRoot(dir = __dirname): string {
	while (!fs.existsSync(path.join(dir, "package.json"))) {
		const up = path.dirname(dir);
		if (up === dir) return path.resolve(__dirname, "..");
		dir = up;
	}
	return dir;
}

const LAUNCHER_DIR = path.join(projectRoot(), "deploy", "embedded-store");
const BIN_DIR = path.join(LAUNCHER_DIR, "bin");
const BINARY = path.join(BIN_DIR, "embedded-store");

/** What the store logs through: the node's logger (its error and debug are used when it has them). */
export type Log = StoreLog;

function sourceHash(): string {
	const h = createHash("sha256");
	const files = fs.readdirSync(LAUNCHER_DIR).filter((f) => f.endsWith(".go") || f === "go.mod" || f === "go.sum");
	for (const f of files.sort()) h.update(f).update(fs.readFileSync(path.join(LAUNCHER_DIR, f)));
	return h.digest("hex");
}

/** Builds the launcher unless a build of the current source is cached; returns its path. */
export function buildLauncher(log?: Log): string {
	const hash = sourceHash();
	const stamp = path.join(BIN_DIR, "source.sha256");
	if (fs.existsSync(BINARY) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === hash) return BINARY;
	const go = goForStore(log);
	log?.info("Building the embedded store (first run only; Go modules come from the Go module proxy)...");
	fs.mkdirSync(BIN_DIR, { recursive: true });
	execFileSync(go, ["build", "-trimpath", "-buildvcs=false", "-o", BINARY, "."], {
		cwd: LAUNCHER_DIR,
		stdio: ["ignore", "inherit", "inherit"],
		env: { ...process.env, GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" },
	});
	fs.writeFileSync(stamp, hash);
	return BINARY;
}

export function portAnswers(port: number, host = "127.0.0.1"): Promise<boolean> {
	return new Promise((resolve) => {
		const sock = net.connect({ port, host });
		sock.once("connect", () => {
			sock.destroy();
			resolve(true);
		});
		sock.once("error", () => resolve(false));
	});
}

/**
 * Whether a MongoDB-wire server answers a ping on `port`: the store is up, and not merely some
 * program (or a store still converting its journal) accepting connections there.
 */
export function storeAnswers(port: number, host = "127.0.0.1", timeoutMs = 2_000): Promise<boolean> {
	const body = mongo.BSON.serialize({ ping: 1, $db: "admin" });
	// OP_MSG: header (length, request ID, response to, op code 2013), flag bits, one body section.
	const msg = Buffer.alloc(21 + body.length);
	msg.writeInt32LE(msg.length, 0);
	msg.writeInt32LE(1, 4);
	msg.writeInt32LE(2013, 12);
	msg.set(body, 21);
	return new Promise((resolve) => {
		let got = Buffer.alloc(0);
		const sock = net.connect({ port, host });
		const done = (answered: boolean) => {
			clearTimeout(timer);
			sock.destroy();
			resolve(answered);
		};
		const timer = setTimeout(() => done(false), timeoutMs);
		sock.once("connect", () => sock.write(msg));
		sock.on("data", (d: Buffer) => {
			got = Buffer.concat([got, d]);
			if (got.length < 16 || got.length < got.readInt32LE(0)) return;
			try {
				done(got.readInt32LE(8) === 1 && got.readInt32LE(12) === 2013 && mongo.BSON.deserialize(got.subarray(21, got.readInt32LE(0))).ok === 1);
			} catch {
				done(false);
			}
		});
		sock.once("error", () => done(false));
		sock.once("close", () => done(false));
	});
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.once("error", reject);
		srv.listen(0, "127.0.0.1", () => {
			const { port } = srv.address() as net.AddressInfo;
			srv.close(() => resolve(port));
		});
	});
}

export interface RunningStore {
	url: string;
	/** Whether this process started it (false: it joined the store another process runs). */
	owned: boolean;
	/**
	 * Whether the store answers: false from an unexpected exit of the store this process runs
	 * until its restart answers again. Always true for a store another process owns (that process
	 * supervises it).
	 */
	isUp(): boolean;
	/** Stops the store if this process started it; a no-op for a store another process owns. */
	stop(): Promise<void>;
}

interface StoreFile {
	pid: number;
	port: number;
	/** The process that started the store and restarts it (absent in files of older versions). */
	supervisor?: number;
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the embedded store for `dataDir` on `port`, or joins the one another process of ours
 * already runs for that data dir (the management CLI next to a running server). The store this
 * process starts is supervised (StoreSupervisor). `logLevel` is the node's own level
 * (shared/store-log.ts chooses the store's from it).
 */
export async function startEmbeddedStore(opts: { dataDir: string; port: number; log?: Log; logLevel?: string }): Promise<RunningStore> {
	const storeDir = path.join(opts.dataDir, "store");
	const stateFile = path.join(storeDir, "running.json");
	fs.mkdirSync(storeDir, { recursive: true });

	const running = (): StoreFile | undefined => (fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, "utf8")) as StoreFile) : undefined);
	let prev = running();
	// A store restarting under another process's supervision answers again within its backoff.
	if (prev?.supervisor && prev.supervisor !== process.pid && pidAlive(prev.supervisor) && !(await portAnswers(prev.port))) {
		const deadline = Date.now() + 30_000;
		while (Date.now() < deadline && pidAlive(prev.supervisor) && !(await portAnswers(prev.port))) await sleep(100);
		prev = running() ?? prev;
	}
	if (prev && pidAlive(prev.pid) && (await portAnswers(prev.port))) {
		return { url: `mongodb://127.0.0.1:${prev.port}/`, owned: false, isUp: () => true, stop: async () => undefined };
	}
	if (await portAnswers(opts.port)) {
		throw new StartupError(`Port ${opts.port} is taken by another program; set STORE_PORT to a free port or MONGO_URL to a MongoDB server.`);
	}

	const binary = buildLauncher(opts.log);
	const supervisor = new StoreSupervisor(binary, storeDir, opts.port, stateFile, opts.log, opts.log ? storeLogLevel(opts.logLevel) : "error");
	await supervisor.start();
	opts.log?.info(`Embedded store listening on 127.0.0.1:${opts.port}, data in ${storeDir}`);
	return {
		url: `mongodb://127.0.0.1:${opts.port}/`,
		owned: true,
		isUp: () => supervisor.up,
		stop: () => supervisor.stop(),
	};
}

/** STORE_CACHE_MB: the store's block cache in MiB (its default, 64, when unset), a whole number from 8. */
function cacheMb(raw: string): number {
	const mb = Number(raw);
	if (!Number.isInteger(mb) || mb < 8) throw new StartupError(`STORE_CACHE_MB must be a whole number of MiB, at least 8 (got "${raw}").`);
	return mb;
}

/** The first restart's delay; each failed one doubles it, up to RESTART_MAX_MS. */
const RESTART_MIN_MS = 100;
/** Decision: a few seconds at most, so a store that comes back is used again soon, while one that cannot start is not hammered. */
const RESTART_MAX_MS = 5_000;
/** A store that ran this long before it exited starts its restarts from the first delay again. */
const STABLE_MS = 30_000;

/**
 * The store process of this node and its restarts: when it exits without being asked to (killed,
 * crashed), the node logs it, reports the store down (RunningStore.isUp, for /readyz and the
 * requests refused at once: shared/store-guard.ts) and starts it again after a backoff (100 ms,
 * doubling to 5 s while restarts fail), on the same port and data directory, so the services'
 * database connections reconnect by themselves and every acknowledged write is on disk. Each restart is logged.
 */
class StoreSupervisor {
	up = false;
	private child: ChildProcess | undefined;
	private exited: Promise<void> = Promise.resolve();
	private stopping = false;
	private restartTimer: NodeJS.Timeout | undefined;
	/** Restarts since the store last ran for STABLE_MS. */
	private failures = 0;
	private restarts = 0;
	private startedAt = 0;

	constructor(
		private readonly binary: string,
		private readonly storeDir: string,
		private readonly port: number,
		private readonly stateFile: string,
		private readonly log: Log | undefined,
		private readonly level: StoreLevel,
	) {}

	/** The first start: a store that does not come up stops the node's start. */
	async start(): Promise<void> {
		const result = await this.launch(30_000);
		if (result === "exited") throw new StartupError("The embedded store exited during start; see its log above.");
		if (result === "timeout") {
			this.child?.kill("SIGKILL");
			throw new StartupError("The embedded store did not answer within 30 s.");
		}
	}

	/** Spawns the store and waits until it answers (or exits, or `timeoutMs` passes). */
	private async launch(timeoutMs?: number): Promise<"up" | "exited" | "timeout" | "stopping"> {
		// A journal of the store before Pebble is converted at this start, once: it takes the time it
		// takes (about a minute per million rows), logging its progress.
		if (fs.existsSync(path.join(this.storeDir, "journal.bson"))) timeoutMs = undefined;
		const cache = process.env.STORE_CACHE_MB ? ["-cache-mb", String(cacheMb(process.env.STORE_CACHE_MB))] : [];
		// STORE_PPROF=host:port serves Go's pprof there, for profiling (docs/embedded-store.md).
		if (process.env.STORE_PPROF) cache.push("-pprof", process.env.STORE_PPROF);
		const child = spawn(
			this.binary,
			["-listen", `127.0.0.1:${this.port}`, "-data", this.storeDir, "-watch-stdin", "-log-level", this.level, ...cache],
			// stdin is a pipe we never write to: when this process dies, even by SIGKILL, the store sees
			// EOF, closes its engine and exits. In a process group of its own, it gets no signal meant
			// for the server (Ctrl+C, `kill -TERM -<pgid>`): the server stops it last, after its drain.
			// Its log (stderr) goes through the node's logger (shared/store-log.ts).
			{ stdio: ["pipe", "ignore", this.log ? "pipe" : "inherit"], detached: true },
		);
		if (this.log && child.stderr) forwardStoreLog(child.stderr, this.log);
		let exited = false;
		this.child = child;
		this.exited = new Promise<void>((resolve) =>
			child.once("exit", (code, signal) => {
				exited = true;
				resolve();
				if (this.child === child) this.onExit(code, signal);
			}),
		);
		const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
		while (!(await storeAnswers(this.port))) {
			if (this.stopping) return "stopping";
			if (exited) return "exited";
			if (Date.now() > deadline) return "timeout";
			await sleep(50);
		}
		if (exited) return "exited";
		this.up = true;
		this.startedAt = Date.now();
		fs.writeFileSync(this.stateFile, JSON.stringify({ pid: child.pid ?? 0, port: this.port, supervisor: process.pid } satisfies StoreFile));
		return "up";
	}

	private onExit(code: number | null, signal: NodeJS.Signals | null): void {
		const wasUp = this.up;
		this.up = false;
		if (this.stopping || !this.startedAt) return;
		if (wasUp && Date.now() - this.startedAt >= STABLE_MS) this.failures = 0;
		const delay = Math.min(RESTART_MIN_MS * 2 ** this.failures, RESTART_MAX_MS);
		this.failures++;
		const how = signal ? `killed by ${signal}` : `exit code ${code}`;
		(this.log?.error ?? this.log?.warn)?.call(this.log, `The embedded store ${wasUp ? "exited" : "failed to restart"} (${how}); restarting it in ${delay} ms`);
		this.restartTimer = setTimeout(() => void this.restart(), delay);
	}

	private async restart(): Promise<void> {
		this.restartTimer = undefined;
		if (this.stopping) return;
		const n = ++this.restarts;
		this.log?.warn(`Restarting the embedded store (restart ${n})`);
		// No deadline: a store converting a large journal takes its time; an exit schedules the next try.
		if ((await this.launch()) === "up") this.log?.warn(`The embedded store is back (restart ${n}), listening on 127.0.0.1:${this.port}`);
	}

	async stop(): Promise<void> {
		this.stopping = true;
		clearTimeout(this.restartTimer);
		const child = this.child;
		if (child && child.exitCode === null && child.signalCode === null) {
			child.kill("SIGTERM");
			const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
			await this.exited;
			clearTimeout(timer);
		}
		this.up = false;
		fs.rmSync(this.stateFile, { force: true });
	}
}
