// One way to start a cluster for the cluster tests and benches: a nats-server (or the one given),
// server nodes as child processes each with its own SERVICES, gateways, and the owner's client.
// The first node starts alone and creates the organization and its owner (it runs `users`); the
// others start once it is ready. Every node gets a health port, and the cluster counts as up when
// each node's /readyz answers and a request through each gateway succeeds.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { client, type Client } from "./http";
import { startNats, startServerNode, waitFor, type Proc } from "./processes";
import { grantInDatabase } from "./fixtures";

export type NatsServer = Awaited<ReturnType<typeof startNats>>;

/** A node's SERVICES (comma-separated), with environment of its own if needed. */
export type NodeSpec = string | { services: string; env?: Record<string, string> };

export interface ClusterOptions {
	/** Names the data directory, the database prefix (its first letter) and the domain `<name>.test`. */
	name: string;
	/** The nodes, in start order; the first creates the owner. A node running `api` is a gateway. */
	nodes: NodeSpec[];
	/** How many nodes running `api` alone start after the others (default 1). */
	gateways?: number;
	/** Environment for every node (over the defaults: EXTERNAL_URL, OWNER_EMAIL, RATE_LIMIT=0...). */
	env?: Record<string, string>;
	/** True once the gateway reaches what the test needs (default: the owner's GET /users/me). */
	ready?: (owner: Client) => Promise<boolean>;
	/** An already running nats-server; by default one is started and stopped with the cluster. */
	natsUrl?: string;
	/** Default: the test run's store (TEST_MONGO_URL). */
	mongoUrl?: string;
	/** Where the owner's zuliprc is written; by default a new temporary directory, removed on stop. */
	dataDir?: string;
}

export interface ClusterNode extends Proc {
	services: string;
	/** The node's health endpoint. */
	readyz: string;
}

export interface Cluster {
	/** The nats-server the cluster started (undefined with `natsUrl`). */
	nats: NatsServer | undefined;
	/** What every node's environment starts from (TRANSPORTER, MONGO_URL, DB_PREFIX, DATA_DIR...). */
	env: Record<string, string>;
	dataDir: string;
	/** Every node, `nodes` first and then the gateways, and those `startNode` added. */
	nodes: ClusterNode[];
	/** Each gateway's API base URL (`.../api/v1`), in node order. */
	gateways: string[];
	ownerKey: { email: string; api_key: string };
	/** The owner, through the first gateway. */
	owner: Client;
	/** Starts one more node with the cluster's environment and waits for its /readyz. */
	startNode(spec: NodeSpec): Promise<ClusterNode>;
	/** Stops every node, then the nats-server it started, and removes the data directory it made. */
	stop(): Promise<void>;
}

/** The owner's credentials from the zuliprc the users service wrote into `dataDir`. */
export function ownerKey(dataDir: string): { email: string; api_key: string } {
	const rc = fs.readFileSync(path.join(dataDir, "zuliprc"), "utf8");
	return { email: /email=(.*)/.exec(rc)![1], api_key: /key=(.*)/.exec(rc)![1] };
}

/** A `ready` check: the owner reads the newest message, through the gateway and the messages service. */
export const ownerReadsMessages = async (owner: Client) => (await owner.get("/messages", { anchor: "newest", num_before: 1, num_after: 0 })).status === 200;

/** Waits for a node's /readyz; fails at once, with its output, if the node exits. */
async function nodeReady(node: ClusterNode): Promise<void> {
	await waitFor(
		async () => {
			if (node.child.exitCode !== null || node.child.signalCode !== null) throw new Error(`the ${node.services} node exited:\n${node.output().slice(-4000)}`);
			return (await fetch(node.readyz).catch(() => null))?.status === 200;
		},
		`the ${node.services} node's /readyz`,
		120_000,
	);
}

const servicesOf = (spec: NodeSpec) => (typeof spec === "string" ? spec : spec.services);

export async function startCluster(o: ClusterOptions): Promise<Cluster> {
	if (!o.nodes.length) throw new Error("a cluster needs a first node, running users");
	if (!(o.gateways ?? 1) && !o.nodes.some((n) => servicesOf(n).split(",").includes("api"))) throw new Error("a cluster needs a gateway: a node running api");
	const nats = o.natsUrl ? undefined : await startNats();
	const ownDataDir = !o.dataDir;
	const dataDir = o.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `chat-${o.name}-`));
	const env: Record<string, string> = {
		TRANSPORTER: o.natsUrl ?? nats!.url,
		MONGO_URL: o.mongoUrl ?? process.env.TEST_MONGO_URL!,
		DB_PREFIX: `${o.name[0]}${randomBytes(4).toString("hex")}`,
		DATA_DIR: dataDir,
		EXTERNAL_URL: `http://${o.name}.test`,
		OWNER_EMAIL: `owner@${o.name}.test`,
		RATE_LIMIT: "0",
		...o.env,
	};
	const nodes: ClusterNode[] = [];
	const gateways: string[] = [];

	const launch = async (spec: NodeSpec): Promise<ClusterNode> => {
		const services = servicesOf(spec);
		const own = typeof spec === "string" ? {} : spec.env;
		const healthPort = await freePort();
		const nodeEnv: Record<string, string> = { ...env, ...own, SERVICES: services, HOST: "127.0.0.1", HEALTH_PORT: String(healthPort) };
		if (services.split(",").includes("api")) {
			const port = await freePort();
			nodeEnv.PORT = String(port);
			gateways.push(`http://127.0.0.1:${port}/api/v1`);
		}
		const node = { ...startServerNode(nodeEnv), services, readyz: `http://127.0.0.1:${healthPort}/readyz` };
		nodes.push(node);
		return node;
	};
	const stop = async () => {
		await Promise.all(nodes.map((n) => n.stop()));
		await nats?.proc.stop();
		if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
	};

	try {
		const [first, ...rest] = o.nodes;
		await nodeReady(await launch(first));
		if (!fs.existsSync(path.join(dataDir, "zuliprc"))) throw new Error(`the first node (${nodes[0].services}) did not create the owner: it must run users`);
		for (const spec of rest) await launch(spec);
		for (let i = 0; i < (o.gateways ?? 1); i++) await launch("api");
		await Promise.all(nodes.slice(1).map(nodeReady));
		const key = ownerKey(dataDir);
		// The owner creates the tests' users through POST /users, which needs the operator's grant.
		await grantInDatabase(env.MONGO_URL, env.DB_PREFIX, key.email, "can_create_users");
		const ready = o.ready ?? (async (c: Client) => (await c.get("/users/me")).status === 200);
		for (const base of gateways) await waitFor(async () => (await ready(client(base, key)).catch(() => false)) === true, `the gateway ${base} to reach the services`, 120_000);
		return {
			nats,
			env,
			dataDir,
			nodes,
			gateways,
			ownerKey: key,
			owner: client(gateways[0], key),
			async startNode(spec) {
				const node = await launch(spec);
				await nodeReady(node);
				return node;
			},
			stop,
		};
	} catch (err) {
		await stop();
		throw err;
	}
}
