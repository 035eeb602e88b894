// How a change made by `npm run manage` reaches every running node.
//
// The command runs the users service in a process of its own (deploy/manage.ts), which makes the
// same writes and the same broadcasts as the API path: they are the same actions. But its
// broadcasts stay in that process. It is no node of the server's cluster, and the default server
// (`npm start`: one process, no transporter) has no bus another process could join. So the command
// records what it broadcast (recordBroadcasts) and hands it to the users database (cli_changes,
// relayThroughServer); every running users replica looks there every RELAY_POLL_MS (startRelay),
// and the one that claims a record broadcasts its events on its own bus, the local one in one
// process and NATS in a cluster. Every node then does what it does for the same change made through
// the API: the group graphs are dropped, the gateways forget the user's credentials, the cached
// profiles go, the organization is reloaded, and the events service tells clients (a new user is
// Zulip's `realm_user` add). The command returns once the record is gone, so whatever is asked of
// the server after it returns sees the change.
//
// Rejected: (1) the command joining the bus and broadcasting itself works only with a transporter,
// not for `npm start`, and only where the command's environment names it; (2) a change counter in
// the database that every cache compares before use costs a database read per cached read (the
// gateway's credentials sit in front of every request), and compared only now and then it is this
// poll without the payloads the clients' events need. The database is the one thing the command and
// every node share in every topology. A record no server claims within RELAY_WAIT_MS (none runs)
// is withdrawn: a server started later reads everything from the database.
import type { Context, ServiceBroker } from "moleculer";
import type { UsersDb } from "./db";

/** How often each users replica looks for the CLI's changes. */
export const RELAY_POLL_MS = 250;
/** How long the CLI waits for a running replica to claim its change before concluding none runs. */
export const RELAY_WAIT_MS = 10_000;

export interface RelayedEvent {
	event: string;
	payload: unknown;
}

type Broadcast = (event: string, payload: unknown) => Promise<unknown> | unknown;
type Log = { error(obj: object, msg: string): void };

/** The users service's own announcements (users.changed, users.groupsChanged, ...): the ones relayed. */
const relayed = (event: string) => event.startsWith("users.");

/**
 * Records the users service's broadcasts in this process from now on (the CLI's node), each as it
 * was sent (a JSON copy, as a transporter would carry it).
 */
export function recordBroadcasts(broker: ServiceBroker): { events(): RelayedEvent[] } {
	const events: RelayedEvent[] = [];
	broker.createService({
		name: "cliRecorder",
		events: {
			"users.**"(ctx: Context<unknown>) {
				if (ctx.eventName && relayed(ctx.eventName)) events.push({ event: ctx.eventName, payload: JSON.parse(JSON.stringify(ctx.params ?? null)) });
			},
		},
	});
	return { events: () => [...events] };
}

/**
 * Stores the CLI's broadcasts for a running replica to relay and waits until one has: answers
 * true once relayed, false when no replica claimed them within `waitMs` (then they are withdrawn).
 */
export async function relayThroughServer(db: UsersDb, events: RelayedEvent[], waitMs = RELAY_WAIT_MS): Promise<boolean> {
	const list = events.filter((e) => relayed(e.event));
	if (!list.length) return true;
	const { _id } = await db.CliChange.create({ events: JSON.stringify(list), claimed_by: null, created_at: new Date() });
	let deadline = Date.now() + waitMs;
	let extended = false;
	for (;;) {
		await new Promise((r) => setTimeout(r, 50));
		const left = await db.CliChange.findById(_id, { claimed_by: 1 }).lean();
		if (!left) return true;
		if (Date.now() < deadline) continue;
		// Withdrawn only if still unclaimed; a replica that claimed it is broadcasting: wait once more.
		if ((await db.CliChange.deleteOne({ _id, claimed_by: null })).deletedCount === 1) return false;
		if (extended) return false;
		extended = true;
		deadline = Date.now() + waitMs;
	}
}

/** Claims and broadcasts every waiting record, oldest first. */
export async function relayPending(db: UsersDb, nodeId: string, broadcast: Broadcast): Promise<number> {
	let n = 0;
	for (;;) {
		const claimed = await db.CliChange.findOneAndUpdate({ claimed_by: null }, { $set: { claimed_by: nodeId } }, { sort: { _id: 1 }, returnDocument: "after" }).lean();
		if (!claimed) return n;
		for (const { event, payload } of JSON.parse(claimed.events) as RelayedEvent[]) if (relayed(event)) await broadcast(event, payload);
		await db.CliChange.deleteOne({ _id: claimed._id });
		n++;
	}
}

/** A users replica's poll for the CLI's changes (the server's side of the relay). */
export function startRelay(db: UsersDb, broker: ServiceBroker, log: Log): { stop(): Promise<void> } {
	let running: Promise<unknown> | undefined;
	const timer = setInterval(() => {
		if (running) return;
		running = relayPending(db, broker.nodeID, (event, payload) => broker.broadcast(event, payload))
			.catch((err: unknown) => log.error({ err }, "relaying the management CLI's changes failed"))
			.finally(() => (running = undefined));
	}, RELAY_POLL_MS);
	timer.unref();
	return {
		async stop() {
			clearInterval(timer);
			await running;
		},
	};
}
