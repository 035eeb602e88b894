// A cluster for the scheduling figures and tests: one node with the gateway, users, channels and
// messages, and N `scheduling` replicas as their own processes over a real nats-server, each
// sweeping every second; a burst of scheduled messages due at the same second; and the store read
// through the driver to see how each was delivered.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { freePort } from "../../shared/store";
import { client, type Response } from "./http";
import { startServerNode, waitFor, type Proc } from "./processes";

export interface SchedulingCluster {
	base: string;
	owner: ReturnType<typeof client>;
	main: Proc;
	replicas: Proc[];
	/** The scheduling database's scheduled messages, and the messages database's messages. */
	scheduled: mongoose.mongo.Collection;
	messages: mongoose.mongo.Collection;
	stop(): Promise<void>;
}

export interface ClusterOptions {
	natsUrl: string;
	mongoUrl: string;
	replicas: number;
	/** A directory of its own (the owner's zuliprc is written there). */
	dataDir: string;
	claimTimeoutSeconds?: number;
}

/** Throws unless the answer is Zulip's success (the bench runs without jest's expect). */
function ok(res: Response, what: string): Response {
	if (res.status !== 200 || res.body?.result !== "success") throw new Error(`${what}: HTTP ${res.status}, ${res.body?.msg ?? res.body}`);
	return res;
}

/** Waits for a node's /readyz (connected to the bus and its database). */
async function ready(proc: Proc, port: number, what: string): Promise<void> {
	await waitFor(async () => {
		if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`${what} exited:\n${proc.output().slice(-4000)}`);
		return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200;
	}, what, 120_000);
}

export async function startSchedulingCluster(o: ClusterOptions): Promise<SchedulingCluster> {
	const prefix = `s${randomBytes(4).toString("hex")}`;
	const port = await freePort();
	const env = {
		TRANSPORTER: o.natsUrl,
		MONGO_URL: o.mongoUrl,
		DB_PREFIX: prefix,
		DATA_DIR: o.dataDir,
		EXTERNAL_URL: "http://scheduling.test",
		OWNER_EMAIL: "owner@scheduling.test",
		RATE_LIMIT: "0",
		SCHEDULING_CRON: "* * * * * *",
		SCHEDULING_CLAIM_TIMEOUT_SECONDS: String(o.claimTimeoutSeconds ?? 60),
	};
	fs.mkdirSync(o.dataDir, { recursive: true });
	const procs: Proc[] = [];
	const conn = mongoose.createConnection(o.mongoUrl);
	const stop = async () => {
		await Promise.all(procs.map((p) => p.stop()));
		await conn.close();
	};
	try {
		const mainHealth = await freePort();
		const main = startServerNode({ ...env, SERVICES: "api,users,channels,messages", PORT: String(port), HOST: "127.0.0.1", HEALTH_PORT: String(mainHealth) });
		procs.push(main);
		await ready(main, mainHealth, "the main node");
		const replicas: Proc[] = [];
		const health: number[] = [];
		for (let i = 0; i < o.replicas; i++) {
			health.push(await freePort());
			replicas.push(startServerNode({ ...env, SERVICES: "scheduling", HEALTH_PORT: String(health[i]) }));
		}
		procs.push(...replicas);
		await Promise.all(replicas.map((r, i) => ready(r, health[i], `scheduling replica ${i + 1}`)));
		const rc = fs.readFileSync(path.join(o.dataDir, "zuliprc"), "utf8");
		const base = `http://127.0.0.1:${port}/api/v1`;
		const owner = client(base, { email: /email=(.*)/.exec(rc)![1], api_key: /key=(.*)/.exec(rc)![1] });
		await waitFor(async () => (await owner.get("/scheduled_messages").catch(() => null))?.status === 200, "the gateway to reach the scheduling service", 60_000);
		await conn.asPromise();
		return {
			base,
			owner,
			main,
			replicas,
			scheduled: conn.useDb(`${prefix}_scheduling`).collection("scheduled_messages"),
			messages: conn.useDb(`${prefix}_messages`).collection("messages"),
			stop,
		};
	} catch (err) {
		await stop();
		throw err;
	}
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
