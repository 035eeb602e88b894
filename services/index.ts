// Every service this server has, and how a node starts the subset it runs.
import { ServiceBroker } from "moleculer";
import type { ServiceSchema } from "moleculer";
import { brokerOptions } from "../moleculer.config";
import type { Config } from "../shared/config";
import { startEmbeddedStore, type RunningStore } from "../shared/store";
import { apiService } from "./api/api.service";
import { usersService } from "./users/users.service";
import { channelsService } from "./channels/channels.service";
import { messagesService } from "./messages/messages.service";

type Factory = (config: Config & { mongoUrl: string }) => ServiceSchema;

export const SERVICES: Record<string, { factory: Factory; needsDb: boolean }> = {
	api: { factory: apiService, needsDb: false },
	users: { factory: usersService, needsDb: true },
	channels: { factory: channelsService, needsDb: true },
	messages: { factory: messagesService, needsDb: true },
};

export interface RunningNode {
	broker: ServiceBroker;
	config: Config & { mongoUrl: string };
	stop(): Promise<void>;
}

/** Starts this node's services (config.services, or all), with the embedded store if needed. */
export async function startNode(config: Config, nodeName = "node"): Promise<RunningNode> {
	const names = config.services.length ? config.services : Object.keys(SERVICES);
	for (const n of names) if (!SERVICES[n]) throw new Error(`Unknown service "${n}"; known: ${Object.keys(SERVICES).join(", ")}`);

	const broker = new ServiceBroker(brokerOptions(config, nodeName));
	let store: RunningStore | undefined;
	let mongoUrl = config.mongoUrl;
	if (!mongoUrl && names.some((n) => SERVICES[n].needsDb)) {
		store = await startEmbeddedStore({ dataDir: config.dataDir, port: config.storePort, log: broker.getLogger("store") });
		mongoUrl = store.url;
	}
	const full = { ...config, mongoUrl };
	for (const n of names) broker.createService(SERVICES[n].factory(full));
	try {
		await broker.start();
	} catch (err) {
		await broker.stop().catch(() => undefined);
		await store?.stop();
		throw err;
	}
	return {
		broker,
		config: full,
		async stop() {
			await broker.stop();
			await store?.stop();
		},
	};
}
