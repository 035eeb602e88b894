// The scheduling figures of `npm run bench` (BENCH_ONLY=scheduling): BENCH_SCHEDULING_MESSAGES
// (default 2,000) messages scheduled through POST /scheduled_messages, then all made due at the
// same second, delivered by 1 and by 3 `scheduling` replicas, each its own process over NATS
// beside one node with the gateway, users, channels and messages (test/support/scheduling-cluster.ts).
// Figures: the delivery lag after the due time (when each was marked delivered, just after its
// message was stored), p50, p99 and max, and messages/s (all of them over the time from the due
// second to the last delivery). Checked: every message delivered, each sent exactly once (counted
// by delivery key); anything else is listed as a failure.
import path from "node:path";
import { formatTable, percentile, sleep } from "./bench-support";
import { scheduleBurst, startSchedulingCluster } from "../support/scheduling-cluster";

export const SCHEDULING_SETTINGS = ["BENCH_SCHEDULING_MESSAGES"];

const COUNT = Number(process.env.BENCH_SCHEDULING_MESSAGES ?? 2000);
/** A burst not delivered by then is reported as it stands. */
const DEADLINE_MS = 300_000;

export interface SchedulingFigure {
	replicas: number;
	messages: number;
	delivered: number;
	failures: string[];
	lag: { p50: number; p99: number; max: number };
	perSecond: number;
}

async function measure(replicas: number, mongoUrl: string, natsUrl: string, work: string): Promise<SchedulingFigure> {
	const cluster = await startSchedulingCluster({ natsUrl, mongoUrl, replicas, dataDir: path.join(work, `scheduling-${replicas}`) });
	try {
		process.stderr.write(`scheduling, ${replicas} replica(s): scheduling ${COUNT} messages...\n`);
		const { ids, due } = await scheduleBurst(cluster, COUNT, 8);
		const mine = { _id: { $in: ids } } as never;
		const end = Date.now() + DEADLINE_MS;
		while (Date.now() < end && (await cluster.scheduled.countDocuments({ _id: { $in: ids }, state: { $in: ["scheduled", "sending"] } } as never)) > 0) await sleep(200);
		const docs = await cluster.scheduled.find(mine, { projection: { state: 1, delivered_at: 1 } }).toArray();
		const failures: string[] = [];
		const delivered = docs.filter((d) => d.state === "delivered");
		if (delivered.length < COUNT) failures.push(`${COUNT - delivered.length} not delivered (${[...new Set(docs.map((d) => d.state))].join(", ")})`);
		const keys = await cluster.messages.find({ idempotency_key: { $in: ids.map((id) => `scheduled:${id}`) } } as never, { projection: { idempotency_key: 1 } }).toArray();
		if (keys.length !== delivered.length || new Set(keys.map((k) => k.idempotency_key)).size !== keys.length) failures.push(`${keys.length} messages sent for ${delivered.length} delivered`);
		const lags = delivered.map((d) => (d.delivered_at as number) - due * 1000).sort((a, b) => a - b);
		const last = lags.at(-1) ?? 0;
		return {
			replicas,
			messages: COUNT,
			delivered: delivered.length,
			failures,
			lag: { p50: Math.round(percentile(lags, 0.5)), p99: Math.round(percentile(lags, 0.99)), max: Math.round(last) },
			perSecond: last > 0 ? Math.round((delivered.length / last) * 1000) : 0,
		};
	} finally {
		await cluster.stop();
	}
}

/** 1, then 3 replicas, each on a fresh database prefix. */
export async function schedulingFigures(common: Record<string, string>, natsUrl: string, work: string): Promise<SchedulingFigure[]> {
	return [await measure(1, common.MONGO_URL, natsUrl, work), await measure(3, common.MONGO_URL, natsUrl, work)];
}

export function schedulingTable(figures: SchedulingFigure[], info: { command: string; cores: number; store: string }): string {
	const rows = [["scheduling replicas", "messages", "delivered", "failures", "lag p50 ms", "lag p99 ms", "lag max ms", "messages/s"]];
	for (const f of figures) {
		rows.push([String(f.replicas), String(f.messages), String(f.delivered), String(f.failures.length), String(f.lag.p50), String(f.lag.p99), String(f.lag.max), String(f.perSecond)]);
	}
	const failures = figures.flatMap((f) => f.failures.map((msg) => `  ${f.replicas} replica(s): ${msg}`));
	return [
		`Scheduled messages: ${COUNT} due at the same second, each replica sweeping every second; ms from the due second to each delivery (${info.cores} cores, store: ${info.store})`,
		`command: ${info.command}`,
		"",
		formatTable(rows),
		...(failures.length ? ["", "failures:", ...failures] : []),
	].join("\n");
}
