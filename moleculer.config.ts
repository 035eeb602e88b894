// Broker options shared by every node, whether it runs all services in one process (local
// transporter) or a subset of them as one node of a NATS cluster.
import os from "node:os";
import type { BrokerOptions } from "moleculer";
import type { Config } from "./shared/config";

export function brokerOptions(config: Config, nodeName = "node"): BrokerOptions {
	return {
		nodeID: `${nodeName}-${os.hostname()}-${process.pid}`,
		namespace: config.dbPrefix,
		transporter: (config.transporter || null) as BrokerOptions["transporter"],
		// Compact and fast; every node of a cluster must use the same.
		serializer: "JSON",
		logger: {
			type: "Pino",
			options: {
				level: config.logLevel,
				pino: { options: { base: undefined, timestamp: true } },
			},
		},
		logLevel: config.logLevel as BrokerOptions["logLevel"],
		// Read-mostly results (users, realm) are cached per node and cleaned by the owner's events.
		cacher: { type: "Memory", options: { ttl: 300, clone: false } },
		validator: true,
		registry: { strategy: "RoundRobin", preferLocal: true },
		// A call to a replica that went away is retried on another one. A call that timed out is
		// not: it may still be running, and doing a write (a send, a flag update) twice is worse
		// than reporting the timeout.
		retryPolicy: {
			enabled: true,
			retries: 3,
			delay: 50,
			maxDelay: 500,
			factor: 2,
			check: (err) => !!(err as { retryable?: boolean }).retryable && (err as Error).name !== "RequestTimeoutError",
		},
		requestTimeout: 30_000,
		heartbeatInterval: 2,
		heartbeatTimeout: 6,
		tracking: { enabled: true, shutdownTimeout: 10_000 },
		transit: { disableReconnect: false },
		metrics: false,
		tracing: false,
	};
}
