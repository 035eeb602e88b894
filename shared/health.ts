// Each node's health endpoint, for Kubernetes probes (HEALTH_PORT; off when 0): `/healthz` answers
// while the process runs, `/readyz` only while the node can serve: its broker started and, in a
// cluster, connected to the transporter (unready from the moment the NATS client loses its
// connection until it has it back), every database connection of its services open and the
// embedded store it runs up (unready from the store's unexpected exit until its restart answers:
// shared/store.ts), and not draining. Both answer JSON saying which check failed.
import http from "node:http";
import type { ServiceBroker } from "moleculer";
import { openConnections } from "./db";
import { transportUp } from "./transport-recovery";

export interface Health {
	/** Marks the node as draining: /readyz fails from now on. */
	draining(): void;
	close(): Promise<void>;
}

/** `storeUp`: whether the node's own embedded store runs (part of the `databases` check). */
export function readiness(broker: ServiceBroker, draining: boolean, storeUp: () => boolean = () => true): Record<string, boolean> {
	const transit = (broker as unknown as { transit?: { connected: boolean } }).transit;
	return {
		started: (broker as unknown as { started: boolean }).started,
		transporter: !transit || (transit.connected && transportUp(broker)),
		databases: storeUp() && openConnections().every((c) => c.readyState === 1),
		accepting: !draining,
	};
}

export function startHealth(broker: ServiceBroker, port: number, host: string, storeUp?: () => boolean): Promise<Health | undefined> {
	if (!port) return Promise.resolve(undefined);
	let draining = false;
	const server = http.createServer((req, res) => {
		const checks = req.url === "/readyz" ? readiness(broker, draining, storeUp) : req.url === "/healthz" ? { alive: true } : undefined;
		const ok = !!checks && Object.values(checks).every(Boolean);
		res.writeHead(checks ? (ok ? 200 : 503) : 404, { "Content-Type": "application/json" });
		res.end(JSON.stringify(checks ? { status: ok ? "ok" : "unavailable", checks } : { status: "not found" }));
	});
	return new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(port, host, () =>
			resolve({
				draining: () => (draining = true),
				close: () => new Promise((done) => server.close(() => done())),
			}),
		);
	});
}
