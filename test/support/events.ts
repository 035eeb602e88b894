// What tests read of events: the bus events a test app's broker carries (what a request
// announced), and clients' event queues (what users are told).
import type { Account, TestApp } from "./app";
import { expectSuccess, type Client } from "./http";

let counter = 0;

export async function recordEvents(app: TestApp, names: string[]): Promise<Array<{ event: string; payload: any }>> {
	const seen: Array<{ event: string; payload: any }> = [];
	const events = Object.fromEntries(names.map((name) => [name, (ctx: { params: unknown }) => void seen.push({ event: name, payload: ctx.params })]));
	const service = app.node.broker.createService({ name: `event-recorder-${++counter}`, events });
	await app.node.broker.waitForServices([service.name]);
	return seen;
}

export type Ev = Record<string, any>;

export interface QueueReader {
	/** The events of `u`'s queue since the last call, without their IDs, those `keep` accepts. */
	(u: Account): Promise<Ev[]>;
	queueOf(u: Account): string;
}

/**
 * An event queue per user, registered with `register` (no state but realm_user, unless it says
 * otherwise) and read without blocking. Heartbeats are left out unless `keep` takes them.
 */
export async function eventQueues(
	clientOf: (u: Account) => Client,
	users: Account[],
	opts: { register?: Record<string, unknown>; keep?: (e: Ev) => boolean } = {},
): Promise<QueueReader> {
	const keep = opts.keep ?? ((e: Ev) => e.type !== "heartbeat");
	const queues = new Map<number, { id: string; last: number }>();
	for (const u of users) {
		const r = await clientOf(u).post("/register", { fetch_event_types: JSON.stringify(["realm_user"]), ...opts.register });
		expectSuccess(r);
		queues.set(u.user_id, { id: r.body.queue_id, last: -1 });
	}
	const read = async (u: Account): Promise<Ev[]> => {
		const q = queues.get(u.user_id)!;
		const r = await clientOf(u).get("/events", { queue_id: q.id, last_event_id: q.last, dont_block: true });
		expectSuccess(r);
		const events = r.body.events as Ev[];
		if (events.length) q.last = events[events.length - 1].id;
		return events.filter(keep).map(({ id: _id, ...e }) => e);
	};
	return Object.assign(read, { queueOf: (u: Account) => queues.get(u.user_id)!.id });
}
