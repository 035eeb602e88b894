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
// every node share in every topology.
//
// Whether a server runs: each relaying replica stamps its record in cli_relays every
// RELAY_HEARTBEAT_MS and deletes it when it stops. With none seen within RELAY_ALIVE_MS, the
// command hands nothing over and waits for no one (a server started later reads everything from
// the database). A record no replica claims within RELAY_WAIT_MS (a server that died without
// deleting its stamp) is withdrawn, and the command says so.
import type { Context, ServiceBroker } from "moleculer";
import type { UsersDb } from "../db";

/** How often each users replica looks for the CLI's changes. */
export const RELAY_POLL_MS = 250;
/** How often each relaying replica stamps its cli_relays record. */
export const RELAY_HEARTBEAT_MS = 5_000;
/** A replica stamped within this long counts as running (three stamps, and clocks a few seconds apart). */
export const RELAY_ALIVE_MS = 15_000;
/** How long the CLI waits for a running replica to claim its change. */
export const RELAY_WAIT_MS = 30_000;
/** A replica's stamp this old is swept (its server died long ago). */
const RELAY_FORGOTTEN_MS = 24 * 3600_000;

/** What became of the CLI's change: broadcast by a running server, no server runs, or none took it. */
export type RelayOutcome = "relayed" | "no server" | "not taken";

export interface RelayedEvent {
	event: string;
	payload: unknown;
}

type Broadcast = (event: string, payload: unknown) => Promise<unknown> | unknown;
type Log = { error(obj: object, msg: string): void; info(msg: string): void };

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
 * Stores the CLI's broadcasts for a running replica to relay and waits until one has. With no
 * replica seen lately there is no one to tell; one that claims nothing within `waitMs` is taken for
 * dead, and the record is withdrawn.
 */
export async function relayThroughServer(db: UsersDb, events: RelayedEvent[], waitMs = RELAY_WAIT_MS): Promise<RelayOutcome> {
	const list = events.filter((e) => relayed(e.event));
	if (!list.length) return "relayed";
	if (!(await db.CliRelay.exists({ seen_at: { $gt: new Date(Date.now() - RELAY_ALIVE_MS) } }))) return "no server";
	const { _id } = await db.CliChange.create({ events: JSON.stringify(list), claimed_by: null, created_at: new Date() });
	let deadline = Date.now() + waitMs;
	let extended = false;
	for (;;) {
		await new Promise((r) => setTimeout(r, 50));
		const left = await db.CliChange.findById(_id, { claimed_by: 1 }).lean();
		if (!left) return "relayed";
		if (Date.now() < deadline) continue;
		// Withdrawn only if still unclaimed; a replica that claimed it is broadcasting: wait once more.
		if ((await db.CliChange.deleteOne({ _id, claimed_by: null })).deletedCount === 1) return "not taken";
		if (extended) return "not taken";
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

/** Stamps this replica's cli_relays record: it runs, and relays. */
async function stamp(db: UsersDb, nodeId: string): Promise<void> {
	await db.CliRelay.updateOne({ _id: nodeId }, { $set: { seen_at: new Date() } }, { upsert: true });
}

/** A users replica's side of the relay: its stamp, and its poll for the CLI's changes. */
export async function startRelay(db: UsersDb, broker: ServiceBroker, log: Log): Promise<{ stop(): Promise<void> }> {
	const nodeId = broker.nodeID;
	await db.CliRelay.deleteMany({ seen_at: { $lt: new Date(Date.now() - RELAY_FORGOTTEN_MS) } });
	await stamp(db, nodeId);
	let stamped = Date.now();
	let running: Promise<unknown> | undefined;
	const tick = async () => {
		if (Date.now() - stamped >= RELAY_HEARTBEAT_MS) {
			stamped = Date.now();
			await stamp(db, nodeId);
		}
		await relayPending(db, nodeId, (event, payload) => broker.broadcast(event, payload));
	};
	// A failing poll (the database away) is logged once per outage, not at every tick.
	let failing = false;
	const timer = setInterval(() => {
		if (running) return;
		running = tick()
			.then(() => {
				if (failing) log.info("relaying the management CLI's changes works again");
				failing = false;
			})
			.catch((err: unknown) => {
				if (!failing) log.error({ err }, "relaying the management CLI's changes failed");
				failing = true;
			})
			.finally(() => (running = undefined));
	}, RELAY_POLL_MS);
	timer.unref();
	return {
		async stop() {
			clearInterval(timer);
			await running;
			await db.CliRelay.deleteOne({ _id: nodeId }).catch(() => undefined);
		},
	};
}
