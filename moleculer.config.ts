// Broker options shared by every node, whether it runs all services in one process (local
// transporter) or a subset of them as one node of a NATS cluster.
import os from "node:os";
import type { BrokerOptions, ServiceSchema } from "moleculer";
import type { Config } from "./shared/config";
import { NATS_OPTIONS } from "./shared/transport-recovery";
import { loggerOptions, usePretty } from "./shared/logging";
import { busChunks } from "./shared/bus-chunks";
import { bytesForOlderNodes, FramedJSON, READS_FRAMES } from "./shared/bus-bytes";

/**
 * A nats:// URL gets the reconnection settings of shared/transport-recovery.ts and a connection
 * named after the node, so that nats-server's disconnect advisories name it (shared/node-loss.ts);
 * anything else goes to Moleculer as given.
 */
function transporter(url: string, nodeID: string): BrokerOptions["transporter"] {
	if (!url) return null;
	if (!url.startsWith("nats://")) return url as BrokerOptions["transporter"];
	return { type: "NATS", options: { url, name: nodeID, ...NATS_OPTIONS } };
}

export function brokerOptions(config: Config, nodeName = "node"): BrokerOptions {
	const nodeID = `${nodeName}-${os.hostname()}-${process.pid}`;
	return {
		nodeID,
		namespace: config.dbPrefix,
		transporter: transporter(config.transporter, nodeID),
		// JSON, but Buffers (a file's chunks) as raw bytes after it (shared/bus-bytes.ts); every node
		// of a cluster must read it, or say it does not in its metadata (as nodes before it did).
		serializer: new FramedJSON(),
		metadata: { ...READS_FRAMES },
		logger: loggerOptions(config.logLevel, usePretty(config.logFormat)),
		logLevel: config.logLevel as BrokerOptions["logLevel"],
		// Read-mostly results (users, realm) are cached per node and cleaned by the owner's events.
		cacher: { type: "Memory", options: { ttl: 300, clone: false } },
		validator: true,
		registry: { strategy: "RoundRobin", preferLocal: true },
		// A read whose replica went away is retried on another one (RETRIED_ACTIONS below turns it on
		// per action). Nothing else is: a write may have completed before its replica went away, and
		// doing a send or a flag update twice is worse than reporting the failure. A call that timed
		// out is not retried either: it may still be running.
		retryPolicy: {
			enabled: false,
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
		// Signals are handled by deploy/server.ts, which drains the gateway before stopping the
		// broker; the broker's own handler would stop the services at once, mid-request.
		skipProcessEventRegistration: true,
		transit: { disableReconnect: false },
		// Packets over NATS's max_payload travel in chunks (shared/bus-chunks.ts).
		// Chunks' bytes go in base64 to a node that does not read frames.
		middlewares: [busChunks(), bytesForOlderNodes()],
		// Off unless METRICS_PORT is set: then request counts, errors and latency per action (and the
		// gateway's HTTP figures, services/api/http-metrics.ts) on http://<host>:METRICS_PORT/metrics.
		metrics: config.metricsPort
			? { enabled: true, reporter: { type: "Prometheus", options: { port: config.metricsPort, path: "/metrics" } } }
			: false,
		tracing: false,
	};
}

/**
 * The actions a caller retries on another replica when theirs went away: reads, which change
 * nothing (the users.authenticate and users.groupGraph lookups, the GET endpoints' actions), and
 * events.createQueue, whose repetition leaves at most an unused queue that expires. Every other
 * write is never retried; an action missing from this list is not retried, the safe default.
 */
export const RETRIED_ACTIONS = new Set([
	"users.authenticate",
	"users.serverSettings",
	"users.list",
	"users.me",
	"users.myProfile",
	"users.get",
	"users.getByEmail",
	"users.getMany",
	"users.listGroups",
	"users.groupMembers",
	"users.isGroupMember",
	"users.groupSubgroups",
	"users.listProfileFields",
	"users.registerState",
	"catalog.registerState",
	"users.resolvePrincipals",
	"users.groupGraph",
	"users.mentionTargets",
	"users.settingsOf",
	"users.mySettings",
	"users.userPresence",
	"users.realmPresence",
	"catalog.realmEmoji",
	"users.noop",
	"channels.listSubscriptions",
	"channels.list",
	"channels.get",
	"channels.members",
	"channels.getId",
	"channels.listDefaults",
	"channels.listFolders",
	"channels.registerState",
	"channels.sendTarget",
	"channels.notificationTarget",
	"channels.messagePermissions",
	"channels.readableChannels",
	"channels.idsByName",
	"channels.names",
	"channels.linkTargets",
	"channels.publicChannels",
	"channels.topicPolicies",
	"messages.list",
	"messages.get",
	"messages.history",
	"messages.topics",
	"messages.listDrafts",
	"messages.listSavedSnippets",
	"messages.alertWords",
	"messages.maxMessageId",
	"messages.registerState",
	"messages.checkSend",
	"messages.reportTarget",
	// Renders and stores nothing.
	"messages.render",
	"scheduling.list",
	"scheduling.registerState",
	"invites.list",
	"invites.signupInfo",
	"users.inviteContext",
	"users.checkInviteGroups",
	"users.welcomeBot",
	"channels.checkInviteChannels",
	// Reading a queue with the same last_event_id answers the same events again; without a queue
	// ID it makes a queue, as events.createQueue does (below).
	"events.get",
	// A write, but retrying it is harmless: a queue created on a replica that went away went with
	// it, and one whose ID never reached the client expires unused.
	"events.createQueue",
	// A file's chunk, stored by its number (the same chunk written again replaces itself) and read:
	// a transfer caught on a lost uploads replica goes on with the next.
	"uploads.writeChunk",
	"uploads.readChunk",
]);

/**
 * Marks a service's read actions (RETRIED_ACTIONS) with an action-level retry policy. The mark
 * travels with the action's description to every node, and the caller's retry middleware reads it.
 */
export function markRetries(schema: ServiceSchema): ServiceSchema {
	const actions = schema.actions ?? {};
	for (const [name, action] of Object.entries(actions)) {
		if (!RETRIED_ACTIONS.has(`${schema.name}.${name}`) || !action || typeof action !== "object") continue;
		actions[name] = { ...action, retryPolicy: { enabled: true } };
	}
	return schema;
}
