// The lost-replica figures of `npm run bench` (BENCH_ONLY=replica-loss): a gateway, users,
// channels and three `messages` replicas over NATS, 20 clients each sending and reading in turn
// without pause (test/support/replica-loss.ts), one `messages` replica killed with SIGKILL after
// BENCH_LOSS_BEFORE_SECONDS (default 3), the clients going on BENCH_LOSS_AFTER_SECONDS (default
// 15, past the heartbeat timeout) after it. Measured twice: with nats-server's client disconnect
// advisories (the project's configuration: shared/node-loss.ts) and without them (a plain
// nats-server: the liveness probes of the nodes that calls wait on, shared/node-loss.ts). Figures: the longest time after the kill in
// which no call of any client was answered (the goal: at most 1 s), the slowest call answered
// after the kill, the sends answered 503, the slowest of them from its start (the goal: at most
// 1 s) and the last of them from the kill (when the gateway had found the node out), the calls answered in the 3 s before and after the kill, and the checks: reads that
// failed, sends answered 200 and not stored, messages stored with a 503 answer.
import { startNats } from "../support/processes";
import { answeredIn, loseReplica, longestStall, startLossCluster, type LossRun } from "../support/replica-loss";
import { formatTable } from "./bench-support";

export const LOSS_SETTINGS = ["BENCH_LOSS_BEFORE_SECONDS", "BENCH_LOSS_AFTER_SECONDS"];

const BEFORE_MS = Number(process.env.BENCH_LOSS_BEFORE_SECONDS ?? 3) * 1000;
const AFTER_MS = Number(process.env.BENCH_LOSS_AFTER_SECONDS ?? 15) * 1000;
const GOAL_MS = 1000;
const WINDOW_MS = 3000;

export interface LossFigure {
	detection: string;
	calls: number;
	stallMs: number;
	slowestMs: number;
	refused: number;
	slowestRefusalMs: number;
	/** From the kill to the last 503: when the gateway had found the node out. */
	foundOutMs: number;
	before: number;
	after: number;
	failedReads: number;
	lostAcknowledged: number;
	storedRefused: number;
}

function figure(detection: string, run: LossRun): LossFigure {
	const afterKill = run.calls.filter((c) => c.end >= run.killedAt);
	const refused = run.calls.filter((c) => c.kind === "send" && c.status !== 200);
	return {
		detection,
		calls: run.calls.length,
		stallMs: longestStall(run.calls, run.killedAt),
		slowestMs: Math.max(0, ...afterKill.map((c) => c.end - c.start)),
		refused: refused.length,
		slowestRefusalMs: Math.max(0, ...refused.map((c) => c.end - c.start)),
		foundOutMs: Math.max(0, ...refused.map((c) => c.end - run.killedAt)),
		before: answeredIn(run.calls, run.killedAt - WINDOW_MS, run.killedAt).length,
		after: answeredIn(run.calls, run.killedAt, run.killedAt + WINDOW_MS).length,
		failedReads: run.calls.filter((c) => c.kind === "read" && c.status !== 200).length,
		lostAcknowledged: run.calls.filter((c) => c.kind === "send" && c.status === 200 && !run.stored.has(c.content!)).length,
		storedRefused: refused.filter((c) => run.stored.has(c.content!)).length,
	};
}

async function measure(detection: string, advisories: boolean, mongoUrl: string): Promise<LossFigure> {
	const nats = await startNats(undefined, { advisories });
	try {
		process.stderr.write(`replica loss, ${detection}: starting the cluster...\n`);
		const setup = await startLossCluster(advisories ? "loss-advisories" : "loss-plain", { natsUrl: nats.url, mongoUrl });
		try {
			return figure(detection, await loseReplica(setup, BEFORE_MS, AFTER_MS));
		} finally {
			await setup.cluster.stop();
		}
	} finally {
		await nats.proc.stop();
	}
}

export async function lossFigures(mongoUrl: string): Promise<LossFigure[]> {
	return [await measure("NATS disconnect advisories", true, mongoUrl), await measure("plain nats-server (probes of calls in flight)", false, mongoUrl)];
}

export function lossTable(figures: LossFigure[], info: { command: string; cores: number; store: string }): string {
	const rows = [["detection", "calls", "stall ms", "slowest ms", "sends 503", "slowest 503 ms", "last 503 after kill ms", "answered 3 s before", "3 s after", "reads failed", "200 not stored", "503 stored", "goals (stall, 503 <= 1 s)"]];
	for (const f of figures) {
		const met = f.stallMs <= GOAL_MS && f.slowestRefusalMs <= GOAL_MS && !f.failedReads && !f.lostAcknowledged;
		rows.push([f.detection, String(f.calls), String(f.stallMs), String(f.slowestMs), String(f.refused), String(f.slowestRefusalMs), String(f.foundOutMs), String(f.before), String(f.after), String(f.failedReads), String(f.lostAcknowledged), String(f.storedRefused), met ? "met" : "not met"]);
	}
	return [
		`A lost replica: one of 3 messages replicas killed (SIGKILL) under 20 clients sending and reading, ${BEFORE_MS / 1000} s before and ${AFTER_MS / 1000} s after the kill (${info.cores} cores, store: ${info.store})`,
		`command: ${info.command}`,
		"",
		formatTable(rows),
	].join("\n");
}
