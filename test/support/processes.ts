// Child processes for the cluster tests: a real nats-server, and server nodes started the way an
// operator starts them (`node dist/deploy/server.js` with SERVICES and TRANSPORTER).
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, portAnswers } from "../../shared/store";

const ROOT = path.resolve(__dirname, "../..");

export function natsServerBinary(): string {
	for (const candidate of [process.env.NATS_SERVER, "nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server"]) {
		if (!candidate) continue;
		try {
			execFileSync(candidate, ["--version"], { stdio: "ignore" });
			return candidate;
		} catch {
			/* try the next one */
		}
	}
	throw new Error("nats-server is not installed (Debian package nats-server; .ci/run installs it)");
}

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

export interface Proc {
	child: ChildProcess;
	output(): string;
	/** Sends SIGTERM (or the signal given) and waits for the exit code. */
	stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Collects a child's output and gives a way to stop it. */
export function track(child: ChildProcess): Proc {
	let out = "";
	child.stdout?.on("data", (d) => (out += d));
	child.stderr?.on("data", (d) => (out += d));
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	return {
		child,
		output: () => out,
		async stop(signal = "SIGTERM") {
			if (child.exitCode === null && child.signalCode === null) child.kill(signal);
			return exited;
		},
	};
}

/** Starts nats-server on a free port, or on `port` (a restart in place). */
export async function startNats(port?: number): Promise<{ url: string; port: number; proc: Proc }> {
	port ??= await freePort();
	const proc = track(spawn(natsServerBinary(), ["-a", "127.0.0.1", "-p", String(port)], { stdio: ["ignore", "pipe", "pipe"] }));
	await waitFor(() => portAnswers(port), "nats-server");
	return { url: `nats://127.0.0.1:${port}`, port, proc };
}

let built = false;

/** Compiles the server into dist/ (`npm run build`, what `npm start` does first), once per test process. */
export function buildServer(): void {
	if (built) return;
	execFileSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json", "--noCheck"], { cwd: ROOT, stdio: "pipe" });
	built = true;
}

/** A server node as the image runs one: `node dist/deploy/server.js`, the Node of the project. */
export function startServerNode(env: Record<string, string>): Proc {
	fs.mkdirSync(env.DATA_DIR ?? path.join(ROOT, "data"), { recursive: true });
	buildServer();
	return track(
		spawn(path.join(ROOT, "node_modules/.bin/node"), ["dist/deploy/server.js"], {
			cwd: ROOT,
			env: { ...process.env, LOG_LEVEL: "warn", ...env },
			stdio: ["ignore", "pipe", "pipe"],
		}),
	);
}
