// A node that dies (kill -9, a crash, out of memory) is taken out of every other node's registry
// within a fraction of a second, rather than after Moleculer's heartbeat timeout (6 s, checked
// every 6 s: 6 to 12 s), during which every call routed to it waits and, with round-robin, every
// client soon has one such call (GET /users/me too: users.me asks a messages replica for the
// newest message ID).
//
// Every node answers on its own liveness subject for as long as its NATS connection is up. A node
// is probed there, and declared gone when nats-server answers "no responders" (nothing of it is
// connected: Moleculer then rejects the calls in flight to it with REQUEST_REJECTED, a read is
// retried on another replica, anything else answered 503); an answer means it is alive (or has
// already reconnected), a timeout leaves it to the heartbeats. Two things start a probe:
// - a call to the node still unanswered after PROBE_AFTER_MS (the calls in flight are looked at
//   every CHECK_MS): each node watches the nodes it waits for, on any nats-server, configured or
//   not. A live node with slow calls costs a probe (a few bytes) every REPROBE_MS while they last.
// - nats-server's client disconnect advisory, published when a process's socket closes, with the
//   reason (LOST_REASONS below: only those that mean the client's side went away count). The
//   nats-server configurations of the project (deploy/compose-nats.conf, deploy/k8s/nats.yaml,
//   startNats in test/support/processes.ts) export it from the system account into the services'
//   account under DISCONNECT_SUBJECT. Each node names its NATS connection after its Moleculer node
//   ID (moleculer.config.ts), so the advisory names the node. This finds a dead node at once,
//   before any call waits on it, and one no call was waiting for (its events, its queues).
import type { Msg, NatsConnection, NatsError } from "nats";
import type { ServiceBroker } from "moleculer";

/** Where the services' account receives nats-server's client disconnect advisories. */
export const DISCONNECT_SUBJECT = "chat.nats.client_disconnect";

/**
 * The advisory reasons that mean the client's side went away: its socket closed or reset (a
 * process killed: "Client Closed" or "Read Error"), or it stopped answering the server's pings (a
 * machine gone). Others are the server's doing, after which the client reconnects: "Server
 * Shutdown" (a NATS server stopping, or in lame duck mode moving its clients to the others), a
 * slow consumer, a limit.
 */
const LOST_REASONS = new Set(["Client Closed", "Read Error", "Write Error", "Stale Connection"]);

/**
 * How long a probed node has to answer; a timeout decides nothing (the heartbeats, or the next
 * probe, will). Short, because a probe sent just before the node died times out rather than
 * meeting "no responders", and no other probe of that node goes out meanwhile.
 */
const PROBE_TIMEOUT_MS = 400;

/** How often the calls in flight are looked at; how long one waits before its node is probed; how often a node that answered is probed again. */
const CHECK_MS = 100;
const PROBE_AFTER_MS = 200;
const REPROBE_MS = 500;

interface Internals {
	transit?: {
		tx?: { client?: NatsConnection | null };
		pendingRequests: Map<string, { nodeID?: string }>;
		discoverer: { remoteNodeDisconnected(nodeID: string, isUnexpected: boolean): unknown };
	};
	registry: { nodes: { get(nodeID: string): { local: boolean; available: boolean } | undefined } };
}

/** The subject a node answers on, for as long as its NATS connection is up. */
export const livenessSubject = (namespace: string, nodeID: string) => `chat.alive.${namespace || "-"}.${nodeID}`;

/** Answers this node's liveness probes, and declares a node gone when a call to it waits, or NATS reports its connection closed, and nothing of it answers. */
export function watchNodeLoss(broker: ServiceBroker): void {
	const internals = broker as unknown as Internals;
	const transit = internals.transit;
	const nc = transit?.tx?.client;
	if (!transit || !nc || typeof nc.subscribe !== "function") return;
	const log = broker.getLogger("node-loss");
	nc.subscribe(livenessSubject(broker.namespace, broker.nodeID), { callback: (_err, msg) => msg?.respond() });

	const probing = new Set<string>();
	/** When each node last answered a probe. */
	const answered = new Map<string, number>();
	const probe = (nodeID: string, reason: string) => {
		if (probing.has(nodeID)) return;
		const node = internals.registry.nodes.get(nodeID);
		if (!node || node.local || !node.available) return;
		probing.add(nodeID);
		void check(nodeID, reason).finally(() => probing.delete(nodeID));
	};
	const check = async (nodeID: string, reason: string) => {
		try {
			await nc.request(livenessSubject(broker.namespace, nodeID), undefined, { timeout: PROBE_TIMEOUT_MS });
			answered.set(nodeID, Date.now());
		} catch (err) {
			if ((err as NatsError).code !== "503") return; // a timeout: left to the heartbeats
			if (!internals.registry.nodes.get(nodeID)?.available) return;
			log.warn(`Node '${nodeID}' lost its NATS connection (${reason}) and nothing of it answers: taken out of the registry`);
			transit.discoverer.remoteNodeDisconnected(nodeID, true);
		}
	};
	nc.subscribe(DISCONNECT_SUBJECT, {
		callback: (_err, msg: Msg) => {
			let advisory: { client?: { name?: string }; reason?: string };
			try {
				advisory = msg.json();
			} catch {
				return;
			}
			const nodeID = advisory.client?.name;
			if (nodeID && LOST_REASONS.has(advisory.reason ?? "")) probe(nodeID, advisory.reason!);
		},
	});

	// Each call in flight, with when a check first saw it; a node that answered a probe for a slow
	// call is left alone REPROBE_MS.
	let seen = new Map<unknown, number>();
	const timer = setInterval(() => {
		const now = Date.now();
		const still = new Map<unknown, number>();
		for (const request of transit.pendingRequests.values()) {
			const since = seen.get(request) ?? now;
			still.set(request, since);
			const nodeID = request.nodeID;
			if (!nodeID || now - since < PROBE_AFTER_MS || now - (answered.get(nodeID) ?? 0) < REPROBE_MS) continue;
			probe(nodeID, "a call unanswered");
		}
		seen = still;
	}, CHECK_MS);
	timer.unref();
	nc.closed().then(() => clearInterval(timer), () => clearInterval(timer));
}
