// The embedded MongoDB-compatible store: our own MongoDB wire-protocol server (deploy/embedded-store,
// in Go: data in memory with real indexes, an append-only journal on disk), built on first need
// and cached. Used when MONGO_URL is not set, so one command runs everything on a bare machine.
import { spawn, execFileSync, ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { goForStore, StartupError } from "./go-toolchain";

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

export interface Log {
	info(...args: unknown[]): void;
	warn(...args: unknown[]): void;
}

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
	/** Stops the store if this process started it; a no-op for a store another process owns. */
	stop(): Promise<void>;
}

interface StoreFile {
	pid: number;
	port: number;
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * Starts the embedded store for `dataDir` on `port`, or joins the one another process of ours
 * already runs for that data dir (the management CLI next to a running server).
 */
export async function startEmbeddedStore(opts: { dataDir: string; port: number; log?: Log }): Promise<RunningStore> {
	const storeDir = path.join(opts.dataDir, "store");
	const stateFile = path.join(storeDir, "running.json");
	fs.mkdirSync(storeDir, { recursive: true });

	if (fs.existsSync(stateFile)) {
		const prev = JSON.parse(fs.readFileSync(stateFile, "utf8")) as StoreFile;
		if (pidAlive(prev.pid) && (await portAnswers(prev.port))) {
			return { url: `mongodb://127.0.0.1:${prev.port}/`, owned: false, stop: async () => undefined };
		}
	}
	if (await portAnswers(opts.port)) {
		throw new StartupError(`Port ${opts.port} is taken by another program; set STORE_PORT to a free port or MONGO_URL to a MongoDB server.`);
	}

	const binary = buildLauncher(opts.log);
	const child: ChildProcess = spawn(
		binary,
		["-listen", `127.0.0.1:${opts.port}`, "-data", storeDir, "-watch-stdin", "-log-level", "error"],
		// stdin is a pipe we never write to: when this process dies, even by SIGKILL, the store sees
		// EOF, flushes its journal and exits. In a process group of its own, it gets no signal meant
		// for the server (Ctrl+C, `kill -TERM -<pgid>`): the server stops it last, after its drain.
		{ stdio: ["pipe", "ignore", "inherit"], detached: true },
	);
	let exited = false;
	const exitedPromise = new Promise<void>((resolve) =>
		child.once("exit", () => {
			exited = true;
			resolve();
		}),
	);

	const deadline = Date.now() + 30_000;
	while (!(await portAnswers(opts.port))) {
		if (exited) throw new StartupError("The embedded store exited during start; see its log above.");
		if (Date.now() > deadline) {
			child.kill("SIGKILL");
			throw new StartupError("The embedded store did not answer within 30 s.");
		}
		await new Promise((r) => setTimeout(r, 50));
	}
	fs.writeFileSync(stateFile, JSON.stringify({ pid: child.pid ?? 0, port: opts.port } satisfies StoreFile));
	opts.log?.info(`Embedded store listening on 127.0.0.1:${opts.port}, data in ${storeDir}`);

	return {
		url: `mongodb://127.0.0.1:${opts.port}/`,
		owned: true,
		stop: async () => {
			if (!exited) {
				child.kill("SIGTERM");
				const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
				await exitedPromise;
				clearTimeout(timer);
			}
			fs.rmSync(stateFile, { force: true });
		},
	};
}
