// Child processes for the cluster tests: a real nats-server, and server nodes started the way an
// operator starts them (`node dist/deploy/server.js` with SERVICES and TRANSPORTER).
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, portAnswers } from "../../shared/store";
import { DISCONNECT_SUBJECT } from "../../shared/node-loss";
import { eventually } from "./eventually";

const ROOT = path.resolve(__dirname, "../..");

/** Alive and not a zombie waiting to be reaped. */
export function alive(pid: number): boolean {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
	} catch {
		return false;
	}
}

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
	await eventually(check, what, timeoutMs, 100);
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

/**
 * The accounts part of the project's nats-server configuration (as in deploy/compose-nats.conf):
 * clients without credentials use the account CHAT, which receives the system account's client
 * disconnect advisories under DISCONNECT_SUBJECT (shared/node-loss.ts).
 */
export const NATS_ACCOUNTS_CONF = `accounts {
  SYS: { exports: [{ stream: "$SYS.ACCOUNT.CHAT.DISCONNECT" }] }
  CHAT: {
    users: [{ user: chat }]
    imports: [{ stream: { account: SYS, subject: "$SYS.ACCOUNT.CHAT.DISCONNECT" }, to: "${DISCONNECT_SUBJECT}" }]
  }
}
system_account: SYS
no_auth_user: chat
`;

/** Starts nats-server on a free port, or on `port` (a restart in place); `advisories: false` leaves out the accounts (no disconnect advisories). */
export async function startNats(port?: number, o: { advisories?: boolean } = {}): Promise<{ url: string; port: number; proc: Proc }> {
	port ??= await freePort();
	const args = ["-a", "127.0.0.1", "-p", String(port)];
	const dir = o.advisories === false ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), "nats-"));
	if (dir) {
		fs.writeFileSync(path.join(dir, "nats.conf"), NATS_ACCOUNTS_CONF);
		args.push("-c", path.join(dir, "nats.conf"));
	}
	const proc = track(spawn(natsServerBinary(), args, { stdio: ["ignore", "pipe", "pipe"] }));
	if (dir) proc.child.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
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

/** What `npm start` (and the image) gives node: V8's flags and the entry point, read from package.json, where they are written once. */
export function startArgs(): string[] {
	const start = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
	return start.replace(/^exec node /, "").split(" ");
}

/** The node options `npm run manage` runs its commands with (package.json's `manage`), for tools that run them otherwise (the bench). */
export function manageNodeOptions(): string {
	const manage = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { manage: string } }).scripts.manage;
	return (/^NODE_OPTIONS="([^"]*)"/.exec(manage)?.[1] ?? "").replace("$NODE_OPTIONS", "").trim();
}

/** A server node as the image runs one: `node <startArgs()>`, the Node of the project. */
/** `args`: node's arguments, npm start's unless a bench compares others. */
export function startServerNode(env: Record<string, string>, args = startArgs()): Proc {
	fs.mkdirSync(env.DATA_DIR ?? path.join(ROOT, "data"), { recursive: true });
	buildServer();
	return track(
		spawn(path.join(ROOT, "node_modules/.bin/node"), args, {
			cwd: ROOT,
			env: { ...process.env, LOG_LEVEL: "warn", ...env },
			stdio: ["ignore", "pipe", "pipe"],
		}),
	);
}

/** The process that runs deploy/server.ts under a node's `tsx` (which starts it as a child of its own): the one to kill to lose the node. */
export function serverPid(proc: Proc): number {
	let pid = proc.child.pid!;
	for (;;) {
		const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
		const server = children.find((c) => fs.readFileSync(`/proc/${c}/cmdline`, "utf8").includes("deploy/server.ts"));
		if (server === undefined) return pid;
		pid = server;
	}
}
