// Every service this server has, and how a node starts the subset it runs.
import { ServiceBroker } from "moleculer";
import type { ServiceSchema } from "moleculer";
import { brokerOptions, markRetries, RETRIED_ACTIONS } from "../moleculer.config";
import { markKeyed, requestRecords } from "../shared/request-records";
import type { Config } from "../shared/config";
import { startEmbeddedStore, type RunningStore } from "../shared/store";
import { startHealth, type Health } from "../shared/health";
import { storeGuard } from "../shared/store-guard";
import { watchTransport } from "../shared/transport-recovery";
import { watchNodeLoss } from "../shared/node-loss";
import { apiService } from "./api/api.service";
import { usersService } from "./users/users.service";
import { channelsService } from "./channels/channels.service";
import { messagesService } from "./messages/messages.service";
import { eventsService } from "./events/events.service";
import { schedulingService } from "./scheduling/scheduling.service";
import { moderationService } from "./moderation/moderation.service";
import { invitesService } from "./invites/invites.service";
import { uploadsService } from "./uploads/uploads.service";
import { notificationsService } from "./notifications/notifications.service";
import { catalogService } from "./catalog/catalog.service";
import { integrationsService } from "./integrations/integrations.service";

/** What a service is made from: the settings, the database URL, and whether the node is the management CLI's. */
export type NodeConfig = Config & { mongoUrl: string; cli?: boolean };

type Factory = (config: NodeConfig) => ServiceSchema;

export const SERVICES: Record<string, { factory: Factory; needsDb: boolean }> = {
	api: { factory: apiService, needsDb: false },
	users: { factory: usersService, needsDb: true },
	channels: { factory: channelsService, needsDb: true },
	messages: { factory: messagesService, needsDb: true },
	events: { factory: eventsService, needsDb: false },
	scheduling: { factory: schedulingService, needsDb: true },
	moderation: { factory: moderationService, needsDb: true },
	invites: { factory: invitesService, needsDb: true },
	uploads: { factory: uploadsService, needsDb: true },
	notifications: { factory: notificationsService, needsDb: true },
	catalog: { factory: catalogService, needsDb: true },
	integrations: { factory: integrationsService, needsDb: true },
};

/** How long a stopping gateway waits for the requests in flight (the broker then waits 10 s more per service). */
const DRAIN_TIMEOUT_MS = 20_000;

export interface RunningNode {
	broker: ServiceBroker;
	config: NodeConfig;
	/** Whether this process started the embedded store, so no other process (no server) uses it. */
	ownStore: boolean;
	stop(): Promise<void>;
}

/**
 * Starts this node's services (config.services, or all), with the embedded store if needed.
 * `cli`: the node of `npm run manage`, which serves no one (its users service relays nothing:
 * services/users/management/change-relay.ts).
 */
export async function startNode(config: Config, nodeName = "node", o: { cli?: boolean } = {}): Promise<RunningNode> {
	const names = config.services.length ? config.services : Object.keys(SERVICES);
	for (const n of names) if (!Object.hasOwn(SERVICES, n)) throw new Error(`Unknown service "${n}"; known: ${Object.keys(SERVICES).join(", ")}`);

	let store: RunningStore | undefined;
	const storeUp = () => store?.isUp() ?? true;
	const options = brokerOptions(config, nodeName);
	// While the store this node runs is down, its database services answer 503 at once (shared/store-guard.ts).
	const dbServices = new Set(names.filter((n) => SERVICES[n].needsDb));
	// A write the gateway calls again after a lost answer runs once (shared/request-records.ts),
	// inside the store guard (the last middleware wraps the others), which refuses first.
	options.middlewares = [...(options.middlewares ?? []), requestRecords(), storeGuard(dbServices, () => !storeUp())];
	const broker = new ServiceBroker(options);
	let mongoUrl = config.mongoUrl;
	if (!mongoUrl && names.some((n) => SERVICES[n].needsDb)) {
		store = await startEmbeddedStore({ dataDir: config.dataDir, port: config.storePort, log: broker.getLogger("store"), logLevel: config.logLevel });
		mongoUrl = store.url;
	}
	const full: NodeConfig = { ...config, mongoUrl, cli: o.cli ?? false };
	for (const n of names) {
		const schema = markRetries(SERVICES[n].factory(full));
		broker.createService(SERVICES[n].needsDb ? markKeyed(schema, RETRIED_ACTIONS) : schema);
	}
	let health: Health | undefined;
	try {
		await broker.start();
		watchTransport(broker);
		watchNodeLoss(broker);
		health = await startHealth(broker, config.healthPort, config.host, storeUp);
	} catch (err) {
		await broker.stop().catch(() => undefined);
		await store?.stop();
		throw err;
	}
	return {
		broker,
		config: full,
		ownStore: !!store?.owned,
		/**
		 * Drains, in order: the gateway stops taking requests (503 with Retry-After to any that
		 * arrive on open connections) and waits for those in flight, while every service they call
		 * still runs; then the broker leaves the cluster and stops the services (each waits for the
		 * calls it is running), which close their databases; the embedded store goes last.
		 */
		async stop() {
			health?.draining();
			const api = broker.getLocalService("api") as unknown as { drain(timeoutMs: number): Promise<void> } | undefined;
			await api?.drain(DRAIN_TIMEOUT_MS);
			await broker.stop();
			await health?.close();
			await store?.stop();
		},
	};
}
