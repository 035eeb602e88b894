// Fast recovery from a lost NATS connection (nats-server restarted, or the network cut).
//
// Left alone, Moleculer notices nothing while the NATS client reconnects: calls published in the
// meantime sit in the client's buffer or die with nats-server and wait out their 30 s timeout, and
// a request sent to a node that has not yet reconnected is dropped by nats-server just the same.
// So, on the client's own status events:
// - disconnect: every remote node is taken out of this node's registry. Calls in flight to them are
//   rejected at once (REQUEST_REJECTED) and new calls find no endpoint (SERVICE_NOT_AVAILABLE); the
//   gateway answers both with 503 within milliseconds.
// - reconnect: this node announces itself (INFO) and asks every node for theirs (DISCOVER). A node
//   is back in the registry once its INFO arrives, which it sends only after its own reconnection,
//   so no call goes to a node that cannot receive it yet.
import type { ServiceBroker } from "moleculer";

interface NatsStatus {
	type: string;
}
interface NatsClient {
	status(): AsyncIterable<NatsStatus>;
}
interface Internals {
	transit?: {
		tx?: { client?: NatsClient | null };
		discoverer: { discoverAllNodes(): Promise<unknown>; sendLocalNodeInfo(nodeID?: string): Promise<unknown>; remoteNodeDisconnected(nodeID: string, isUnexpected: boolean): unknown };
	};
	registry: { nodes: { list(opts: { onlyAvailable: boolean; withServices: boolean }): Array<{ id: string; local: boolean }> } };
}

/** NATS client options: reconnect at once and every 250 ms (± 100 ms) after, forever; a silent server is found out by pings within 4 s. */
export const NATS_OPTIONS = {
	reconnectTimeWait: 250,
	reconnectJitter: 100,
	maxReconnectAttempts: -1,
	pingInterval: 2_000,
	maxPingOut: 2,
};

/** Brokers whose NATS client has lost its connection and not yet got it back (their /readyz fails). */
const disconnected = new WeakSet<ServiceBroker>();

/** False while the broker's NATS client is disconnected (Moleculer's own `connected` stays true meanwhile). */
export function transportUp(broker: ServiceBroker): boolean {
	return !disconnected.has(broker);
}

/** Watches the broker's NATS connection (if it has one) for the life of the client. */
export function watchTransport(broker: ServiceBroker): void {
	const internals = broker as unknown as Internals;
	const transit = internals.transit;
	const client = transit?.tx?.client;
	if (!transit || !client || typeof client.status !== "function") return;
	const log = broker.getLogger("transport");
	void (async () => {
		for await (const s of client.status()) {
			if (s.type === "disconnect") {
				disconnected.add(broker);
				const remote = internals.registry.nodes.list({ onlyAvailable: true, withServices: false }).filter((n) => !n.local);
				log.warn(`NATS connection lost; ${remote.length} remote nodes set aside until they announce themselves again`);
				for (const node of remote) transit.discoverer.remoteNodeDisconnected(node.id, false);
			} else if (s.type === "reconnect") {
				disconnected.delete(broker);
				log.info("NATS connection back; discovering nodes");
				await Promise.all([transit.discoverer.sendLocalNodeInfo(), transit.discoverer.discoverAllNodes()]).catch((err: unknown) => log.warn({ err }, "discovery after reconnecting failed"));
			}
		}
	})().catch((err: unknown) => log.error({ err }, "NATS status watcher stopped"));
}
