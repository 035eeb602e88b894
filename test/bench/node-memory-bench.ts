// The node-memory figures of `npm run bench` (`BENCH_ONLY=node-memory`): a server node's resident
// set while one client sends BENCH_MEMORY_MESSAGES (default 6,000) channel messages one after
// another, sampled every 1,000, once as npm start runs the node and once with V8's own default
// young generation, each a fresh node on a fresh database prefix of the same store.
//
// What grows in a node is V8's heap, not data the services keep: a heap snapshot after 20,000
// messages holds about 40 MB, and the resident set levels off after a few thousand messages. V8
// sizes its young generation from the machine's memory (semi-spaces of up to 64 MiB here, 128 MiB
// for the two); npm start and the image bound them at 16 MiB (`--max-semi-space-size=16`), which
// these figures compare (README, "Memory of a node").
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { startArgs, startServerNode, waitFor } from "../support/processes";
import { apiClient, formatTable, ownerAuth } from "./bench-support";

const MESSAGES = Number(process.env.BENCH_MEMORY_MESSAGES ?? 6000);
const EVERY = 1000;

export const NODE_MEMORY_SETTINGS = ["BENCH_MEMORY_MESSAGES"];

export interface NodeMemoryFigure {
	variant: string;
	/** RSS in MiB: at the start, then after each EVERY messages. */
	rss: number[];
	messagesPerSecond: number;
	failed: number;
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

async function measure(variant: string, args: string[], common: Record<string, string>, work: string): Promise<NodeMemoryFigure> {
	const dataDir = path.join(work, `node-memory-${randomBytes(3).toString("hex")}`);
	const port = await freePort();
	const node = startServerNode({ ...common, DB_PREFIX: `b${randomBytes(4).toString("hex")}`, DATA_DIR: dataDir, PORT: String(port), SERVICES: "", TRANSPORTER: "" }, args);
	try {
		const base = `http://127.0.0.1:${port}/api/v1`;
		await waitFor(async () => fs.existsSync(path.join(dataDir, "zuliprc")), "the owner's zuliprc", 120_000);
		const auth = ownerAuth(dataDir);
		await waitFor(async () => (await fetch(`${base}/users/me`, { headers: auth }).catch(() => null))?.status === 200, "the server", 60_000);
		const api = apiClient(base, auth);
		await api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "memory" }]) });
		const pid = node.child.pid!;
		const rss = [rssMiB(pid)];
		let failed = 0;
		const started = process.hrtime.bigint();
		for (let i = 1; i <= MESSAGES; i++) {
			const r = await api("POST", "/messages", { type: "stream", to: "memory", topic: `topic ${i % 5}`, content: `message ${i}: ${"lorem ipsum ".repeat(10)}` }).catch(() => null);
			if (r?.result !== "success") failed++;
			if (i % EVERY === 0) rss.push(rssMiB(pid));
		}
		const seconds = Number(process.hrtime.bigint() - started) / 1e9;
		return { variant, rss, messagesPerSecond: Math.round(MESSAGES / seconds), failed };
	} finally {
		await node.stop();
	}
}

/** npm start's node, then the same without its V8 flags (the entry point alone). */
export async function nodeMemoryFigures(common: Record<string, string>, work: string): Promise<NodeMemoryFigure[]> {
	const args = startArgs();
	return [await measure(`npm start's (${args.slice(0, -1).join(" ")})`, args, common, work), await measure("V8's defaults", args.slice(-1), common, work)];
}

export function nodeMemoryTable(figures: NodeMemoryFigure[], info: { command: string; cores: number; store: string }): string {
	const header = ["node flags", "RSS MiB at start", ...Array.from({ length: Math.floor(MESSAGES / EVERY) }, (_, i) => `after ${(i + 1) * EVERY}`), "messages/s", "failed"];
	const rows = figures.map((f) => [f.variant, ...f.rss.map((v) => v.toFixed(0)), String(f.messagesPerSecond), String(f.failed)]);
	return `A node's RSS while one client sends ${MESSAGES} messages (${info.store} store, ${info.cores} cores)\n${info.command}\n${formatTable([header, ...rows])}`;
}
