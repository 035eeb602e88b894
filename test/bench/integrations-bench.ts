// The integrations figures of `npm run bench`: what an incoming webhook costs beside the message it
// posts. Zulip's GitHub push fixture (one commit, 7.6 KB of JSON, from the recorded cases)
// through POST /api/v1/external/github?api_key=...&stream=... against POST /messages of the
// message that push becomes (same bot, channel, topic and content), in the same run on the same
// server: requests/s, latency and the server's and store's CPU time per request, in rounds that
// alternate the two (the median of each), and the ratios.
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { formatTable, type BenchServer } from "./bench-support";
import { cpuDuring } from "./cpu-time";

export const INTEGRATIONS_SETTINGS = ["BENCH_SECONDS", "BENCH_INTEGRATION_CONNECTIONS", "BENCH_INTEGRATION_ROUNDS"];

const CASES = ["../../../shared/reference/zulip-webhooks/cases.json", "/work/shared/reference/zulip-webhooks/cases.json"];
const FIXTURE = "github/push__1_commit";
const CHANNEL = "github";

export interface IntegrationFigure {
	endpoint: string;
	rps: number;
	p50: number;
	p99: number;
	errors: number;
	/** Server CPU per request, ns (every node process). */
	cpuNs: number;
	/** The store's CPU per request, ns; null without a store process to read. */
	storeNs: number | null;
}

interface Target {
	endpoint: string;
	url: string;
	headers: Record<string, string>;
	body: string;
}

interface GithubCase {
	headers: Record<string, string>;
	body: string;
	zulip_messages: Array<{ topic: string; content: string }>;
}

function pushFixture(): GithubCase {
	const file = CASES.map((f) => path.resolve(__dirname, f)).find((f) => fs.existsSync(f));
	if (!file) throw new Error("Zulip's recorded webhook cases (reference/zulip-webhooks/cases.json) are not there");
	return (JSON.parse(fs.readFileSync(file, "utf8")) as { cases: Record<string, GithubCase> }).cases[FIXTURE];
}

async function measure(target: Target, seconds: number, connections: number, pids: { server: number[]; store: number[] }): Promise<IntegrationFigure> {
	const { result: r, cpuNs } = await cpuDuring({ server: pids.server, store: pids.store }, () =>
		autocannon({ url: target.url, method: "POST", headers: target.headers, body: target.body, connections, duration: seconds }),
	);
	const requests = Math.max(1, r.requests.total);
	return {
		endpoint: target.endpoint,
		rps: r.requests.average,
		p50: r.latency.p50,
		p99: r.latency.p99,
		errors: r.errors + r.non2xx,
		cpuNs: cpuNs.server / requests,
		storeNs: pids.store.length ? cpuNs.store / requests : null,
	};
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function integrationFigures(server: BenchServer, opts: { seconds: number; connections: number; rounds: number; storePid?: number }): Promise<IntegrationFigure[]> {
	const fixture = pushFixture();
	const bot = await server.api("POST", "/bots", { full_name: "GitHub Bench Bot", short_name: "github-bench", bot_type: "2" });
	const email = (await server.api("GET", `/users/${bot.user_id}`)).user.email as string;
	await server.api("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: CHANNEL }]) });
	const [{ topic, content }] = fixture.zulip_messages;
	const headers: Record<string, string> = { "content-type": "application/json" };
	for (const [k, v] of Object.entries(fixture.headers)) if (k.startsWith("HTTP_")) headers[k.slice(5).toLowerCase().replaceAll("_", "-")] = v;
	const targets: Target[] = [
		{ endpoint: "POST /messages (the push's message)", url: `${server.base}/messages`, headers: { authorization: `Basic ${Buffer.from(`${email}:${bot.api_key}`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ type: "stream", to: CHANNEL, topic, content }).toString() },
		{ endpoint: "POST /external/github (push, 1 commit)", url: `${server.base}/external/github?${new URLSearchParams({ api_key: bot.api_key, stream: CHANNEL })}`, headers, body: fixture.body },
	];
	const pids = { server: server.procs.map((p) => p.child.pid!), store: opts.storePid ? [opts.storePid] : [] };
	// Warm both paths (JIT, caches, connections), then alternate them so drift hits both alike.
	for (const t of targets) await measure(t, 2, opts.connections, pids);
	const runs: IntegrationFigure[][] = targets.map(() => []);
	for (let round = 0; round < opts.rounds; round++) for (const [i, t] of targets.entries()) runs[i].push(await measure(t, opts.seconds, opts.connections, pids));
	return runs.map((rs) => ({
		endpoint: rs[0].endpoint,
		rps: median(rs.map((r) => r.rps)),
		p50: median(rs.map((r) => r.p50)),
		p99: median(rs.map((r) => r.p99)),
		errors: rs.reduce((n, r) => n + r.errors, 0),
		cpuNs: median(rs.map((r) => r.cpuNs)),
		storeNs: rs[0].storeNs === null ? null : median(rs.map((r) => r.storeNs!)),
	}));
}

const us = (ns: number | null) => (ns === null ? "-" : (ns / 1000).toFixed(0));

export function integrationsTable(figures: IntegrationFigure[], info: { store: string; command: string; cores: number; connections: number; seconds: number; rounds: number }): string {
	const [messages, hook] = figures;
	const rows = [["endpoint (one process)", "req/s", "p50 ms", "p99 ms", "errors", "server CPU µs/req", "store CPU µs/req"]];
	for (const f of figures) rows.push([f.endpoint, f.rps.toFixed(0), String(f.p50), String(f.p99), String(f.errors), us(f.cpuNs), us(f.storeNs)]);
	const ratios = `webhook / POST /messages: ${(hook.rps / messages.rps).toFixed(2)}× the requests/s, ${(hook.cpuNs / messages.cpuNs).toFixed(2)}× the server CPU per request`;
	const setting = `${info.command}; store ${info.store}; ${info.cores} cores; ${info.connections} connections, ${info.seconds} s each, median of ${info.rounds} alternating rounds`;
	return `${formatTable(rows)}\n${ratios}\n(${setting})`;
}
