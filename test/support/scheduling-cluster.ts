// A cluster for the scheduling figures and tests: one node with the gateway, users, channels and
// messages, and N `scheduling` replicas as their own processes over a real nats-server, each
// sweeping every second; a burst of scheduled messages due at the same second; and the store read
// through the driver to see how each was delivered.
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { type Response } from "./http";
import { startCluster, type Cluster } from "./cluster";
import type { Proc } from "./processes";

export interface SchedulingCluster {
	base: string;
	owner: Cluster["owner"];
	main: Proc;
	replicas: Proc[];
	/** The scheduling database's scheduled messages, and the messages database's messages. */
	scheduled: mongoose.mongo.Collection;
	messages: mongoose.mongo.Collection;
	stop(): Promise<void>;
}

export interface SchedulingClusterOptions {
	replicas: number;
	claimTimeoutSeconds?: number;
	/** By default the cluster's own nats-server, the test run's store and a temporary directory. */
	natsUrl?: string;
	mongoUrl?: string;
	/** A directory of its own (the owner's zuliprc is written there). */
	dataDir?: string;
}

/** Throws unless the answer is Zulip's success (the bench runs without jest's expect). */
function ok(res: Response, what: string): Response {
	if (res.status !== 200 || res.body?.result !== "success") throw new Error(`${what}: HTTP ${res.status}, ${res.body?.msg ?? res.body}`);
	return res;
}

export async function startSchedulingCluster(o: SchedulingClusterOptions): Promise<SchedulingCluster> {
	const cluster = await startCluster({
		name: "scheduling",
		nodes: ["api,users,channels,messages,catalog", ...Array.from({ length: o.replicas }, () => "scheduling")],
		gateways: 0,
		env: { SCHEDULING_CRON: "* * * * * *", SCHEDULING_CLAIM_TIMEOUT_SECONDS: String(o.claimTimeoutSeconds ?? 60) },
		ready: async (owner) => (await owner.get("/scheduled_messages")).status === 200,
		natsUrl: o.natsUrl,
		mongoUrl: o.mongoUrl,
		dataDir: o.dataDir,
	});
	const conn = mongoose.createConnection(cluster.env.MONGO_URL);
	try {
		await conn.asPromise();
	} catch (err) {
		await cluster.stop();
		throw err;
	}
	const prefix = cluster.env.DB_PREFIX;
	return {
		base: cluster.gateways[0],
		owner: cluster.owner,
		main: cluster.nodes[0],
		replicas: cluster.nodes.slice(1),
		scheduled: conn.useDb(`${prefix}_scheduling`).collection("scheduled_messages"),
		messages: conn.useDb(`${prefix}_messages`).collection("messages"),
		async stop() {
			await cluster.stop();
			await conn.close();
		},
	};
}

/**
 * Schedules `count` messages to a new channel through POST /scheduled_messages (`width` at a
 * time), due in an hour; then makes them all due at the next whole second but one, at once,
 * through the driver (so that creating them does not race the clock). Answers their IDs and the
 * due time (UNIX seconds).
 */
export async function scheduleBurst(c: SchedulingCluster, count: number, width: number): Promise<{ ids: number[]; due: number; channelId: number }> {
	const channel = `burst-${randomBytes(3).toString("hex")}`;
	ok(await c.owner.post("/users/me/subscriptions", { subscriptions: [{ name: channel }] }), "creating the channel");
	const channelId = ok(await c.owner.get("/get_stream_id", { stream: channel }), "its ID").body.stream_id as number;
	const later = Math.floor(Date.now() / 1000) + 3600;
	const ids: number[] = [];
	let next = 0;
	await Promise.all(
		Array.from({ length: width }, async () => {
			while (next < count) {
				const i = next++;
				const res = await c.owner.post("/scheduled_messages", { type: "stream", to: channelId, topic: "burst", content: `burst ${i}`, scheduled_delivery_timestamp: later });
				ok(res, "POST /scheduled_messages");
				ids.push(res.body.scheduled_message_id as number);
			}
		}),
	);
	const due = Math.floor(Date.now() / 1000) + 2;
	await c.scheduled.updateMany({ _id: { $in: ids } } as never, { $set: { scheduled_timestamp: due } });
	return { ids, due, channelId };
}
