// The events figures of `npm run bench` (BENCH_ONLY=events): one message to a channel with 1,000
// subscribers who all have a long-polling GET /events open (1,000 at once), timed from the send's
// response (and from its start) to each client's GET /events return, over BENCH_EVENTS_ROUNDS
// messages. Measured with one `events` replica in one process, one replica in its own process over
// NATS, and two replicas over NATS (queues spread by the bus's balancing; a GET reaching the
// other replica is passed to the queue's owner). Every answer is checked: HTTP 200, `result:
// success`, and exactly the message sent, as a `message` event; failures are counted and listed.
import path from "node:path";
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { freePort } from "../../shared/store";
import { SERVICES } from "../../services/index";
import { apiClient, formatTable, generateSubscribers, percentile, sleep, startBenchNodes, type Api } from "./bench-support";

export const EVENTS_SETTINGS = ["BENCH_EVENTS_SUBSCRIBERS", "BENCH_EVENTS_ROUNDS", "BENCH_EVENTS_DEADLINE_SECONDS"];

const SUBSCRIBERS = Number(process.env.BENCH_EVENTS_SUBSCRIBERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 5);
/** No round starts after this long per topology; a GET /events gets at most 60 s. */
const DEADLINE_SECONDS = Number(process.env.BENCH_EVENTS_DEADLINE_SECONDS ?? 300);
const POLL_TIMEOUT_MS = 60_000;
/** Time for every long poll to reach its queue before the message is sent. */
const SETTLE_MS = 3000;

export interface EventsFigure {
	topology: string;
	replicas: number;
	/** Replicas that held queues (node IDs in the queue IDs). */
	owners: number;
	rounds: number;
	deliveries: number;
	failures: Map<string, number>;
	/** Milliseconds from the send's response to each GET /events return (negative: it came first). */
	fromResponse: { p50: number; p99: number; max: number };
	/** From the send's start. */
	fromStart: { p50: number; p99: number };
	send: { p50: number; max: number };
}

interface Client {
	user_id: number;
	api: Api;
	queue_id: string;
	last: number;
}

const stats = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return { p50: Math.round(percentile(s, 0.5)), p99: Math.round(percentile(s, 0.99)), max: Math.round(s.at(-1) ?? 0) };
};

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
	const out: R[] = [];
	for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
	return out;
}

/** Waits until the gateway's POST /register reaches `replicas` distinct events replicas (60 s at most). */
async function waitForReplicas(api: Api, replicas: number): Promise<void> {
	const seen = new Set<string>();
	const end = Date.now() + 60_000;
	while (seen.size < replicas) {
		if (Date.now() > end) throw new Error(`only ${seen.size} of ${replicas} events replicas answered POST /register within 60 s`);
		const r = await api("POST", "/register", { event_types: JSON.stringify(["message"]), fetch_event_types: JSON.stringify(["realm"]) });
		if (typeof r.queue_id === "string") {
			seen.add(r.queue_id.slice(0, r.queue_id.lastIndexOf(":")));
			await api("DELETE", "/events", { queue_id: r.queue_id });
		} else await sleep(200);
	}
}

/** One topology: its nodes, 1,000 subscribers with queues, ROUNDS messages. */
async function measureTopology(
	name: string,
	replicas: number,
	nodes: Array<Record<string, string>>,
	common: Record<string, string>,
	work: string,
): Promise<EventsFigure> {
	const port = await freePort();
	const prefix = `b${randomBytes(4).toString("hex")}`;
	const shared = { ...common, DB_PREFIX: prefix, DATA_DIR: path.join(work, `events-${replicas}-${port}`), PORT: String(port), EVENTS_HEARTBEAT_SECONDS: "90" };
	const server = await startBenchNodes(nodes, shared, port);
	const mongo = await new mongoose.mongo.MongoClient(common.MONGO_URL).connect();
	const failures = new Map<string, number>();
	const fail = (msg: string) => failures.set(msg, (failures.get(msg) ?? 0) + 1);
	try {
		const channel = "fanout";
		const { userIds } = await generateSubscribers(server.api, mongo, prefix, channel, SUBSCRIBERS);
		await waitForReplicas(server.api, replicas);
		const users = await mongo.db(`${prefix}_users`).collection("users").find({ _id: { $in: userIds as never[] } }).toArray();
		process.stderr.write(`${name}: registering ${users.length} queues...\n`);
		const clients: Client[] = await inBatches(users, 25, async (u) => {
			const api = apiClient(server.base, { authorization: `Basic ${Buffer.from(`${u.delivery_email}:${u.api_key}`).toString("base64")}` });
			const r = await api("POST", "/register", { event_types: JSON.stringify(["message"]), fetch_event_types: JSON.stringify(["realm"]) }, { timeoutMs: POLL_TIMEOUT_MS });
			if (typeof r.queue_id !== "string") throw new Error("POST /register: no queue (no events service reachable)");
			return { user_id: u._id as unknown as number, api, queue_id: r.queue_id as string, last: r.last_event_id as number };
		});
		const owners = new Set(clients.map((c) => c.queue_id.slice(0, c.queue_id.lastIndexOf(":")))).size;

		const fromResponse: number[] = [];
		const fromStart: number[] = [];
		const sends: number[] = [];
		const deadline = Date.now() + DEADLINE_SECONDS * 1000;
		let rounds = 0;
		for (let round = 0; round < ROUNDS + 1 && Date.now() < deadline; round++) {
			const warm = round === 0; // the first round warms the path up and is not counted
			const returned = new Map<number, bigint>();
			const polls = clients.map(async (c) => {
				try {
					const r = await c.api("GET", "/events", { queue_id: c.queue_id, last_event_id: String(c.last) }, { timeoutMs: POLL_TIMEOUT_MS });
					returned.set(c.user_id, process.hrtime.bigint());
					return { c, events: r.events as Array<Record<string, any>> };
				} catch (err) {
					fail(err instanceof Error ? err.message : String(err));
					return undefined;
				}
			});
			await sleep(SETTLE_MS);
			const start = process.hrtime.bigint();
			let sent: number | undefined;
			let answered = start;
			try {
				sent = (await server.api("POST", "/messages", { type: "stream", to: channel, topic: "fan", content: `round ${round}` }, { timeoutMs: POLL_TIMEOUT_MS })).id as number;
				answered = process.hrtime.bigint();
			} catch (err) {
				fail(err instanceof Error ? err.message : String(err));
			}
			for (const got of await Promise.all(polls)) {
				if (!got) continue;
				const { c, events } = got;
				if (events.length) c.last = events[events.length - 1].id as number;
				const messages = events.filter((e) => e.type === "message");
				if (messages.length !== 1 || messages[0].message?.id !== sent || events.length !== 1) {
					fail(`GET /events: expected the message ${sent}, got ${events.map((e) => `${e.type}${e.message ? ` ${e.message.id}` : ""}`).join(", ") || "nothing"}`);
					continue;
				}
				if (warm || sent === undefined) continue;
				const at = returned.get(c.user_id)!;
				fromResponse.push(Number(at - answered) / 1e6);
				fromStart.push(Number(at - start) / 1e6);
			}
			if (!warm && sent !== undefined) {
				sends.push(Number(answered - start) / 1e6);
				rounds++;
			}
		}
		const r = stats(fromResponse);
		const s = stats(fromStart);
		const send = stats(sends);
		return { topology: name, replicas, owners, rounds, deliveries: fromResponse.length, failures, fromResponse: r, fromStart: { p50: s.p50, p99: s.p99 }, send: { p50: send.p50, max: send.max } };
	} finally {
		await mongo.close();
		await server.stop();
	}
}

/** The three topologies, one after another (`nats`: a nats-server URL). */
export async function eventsFigures(common: Record<string, string>, natsUrl: string, work: string): Promise<EventsFigure[]> {
	const rest = Object.keys(SERVICES)
		.filter((n) => n !== "events")
		.join(",");
	const overNats = { ...common, TRANSPORTER: natsUrl };
	return [
		await measureTopology("one process", 1, [{}], common, work),
		await measureTopology("events in its own process, NATS", 1, [{ SERVICES: "events" }, { SERVICES: rest }], overNats, work),
		await measureTopology("two events processes, NATS", 2, [{ SERVICES: "events" }, { SERVICES: "events" }, { SERVICES: rest }], overNats, work),
	];
}

export function eventsTable(figures: EventsFigure[], info: { command: string; cores: number; store: string }): string {
	const rows = [["topology", "events replicas", "holding queues", "rounds", "deliveries", "failures", "p50 ms", "p99 ms", "max ms", "p50 from send start", "p99 from send start", "send p50 ms"]];
	for (const f of figures) {
		const failed = [...f.failures.values()].reduce((a, b) => a + b, 0);
		rows.push([
			f.topology,
			String(f.replicas),
			String(f.owners),
			String(f.rounds),
			String(f.deliveries),
			String(failed),
			String(f.fromResponse.p50),
			String(f.fromResponse.p99),
			String(f.fromResponse.max),
			String(f.fromStart.p50),
			String(f.fromStart.p99),
			String(f.send.p50),
		]);
	}
	const failures = figures.flatMap((f) => [...f.failures].map(([msg, n]) => `  ${f.topology}: ${n} x ${msg}`));
	return [
		`GET /events fan-out: one message to a channel of ${SUBSCRIBERS} subscribers, each with a long-polling GET /events open; ms from the send's response to each GET /events return (${info.cores} cores, store: ${info.store})`,
		`command: ${info.command}`,
		"",
		formatTable(rows),
		...(failures.length ? ["", "failures:", ...failures] : []),
	].join("\n");
}
