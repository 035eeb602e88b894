// A lost replica, for test/cluster/replica-loss.test.ts and the bench's "replica-loss" part: a
// gateway, users, channels and three `messages` replicas, each its own process over NATS; 20
// clients (five users, four each) each sending a message, reading the channel's newest and
// reading their own profile (GET /users/me, which asks a messages replica for the newest message
// ID) in turn, without pause; one `messages` replica killed with SIGKILL while they run.
import { randomBytes } from "node:crypto";
import { client, type Client, type Response } from "./http";
import { serverPid } from "./processes";
import { ownerReadsMessages, startCluster, type Cluster } from "./cluster";

export const CLIENTS = 20;
const USERS = 5;
const CHANNEL = "load";

export interface Call {
	client: number;
	/** A send, a read of the channel, or GET /users/me (also a read). */
	kind: "send" | "read" | "me";
	start: number;
	end: number;
	status: number;
	code?: string;
	/** A send's content, unique to the call. */
	content?: string;
}

/** The answer's body, or an error naming what failed (this module also runs outside jest, in the bench). */
function ok(r: Response, what: string): any {
	if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
	return r.body;
}

export interface LossCluster {
	cluster: Cluster;
	clients: Client[];
}

/** The cluster, its channel and the clients (each user subscribed); a nats-server and a store of the caller's own if given. */
export async function startLossCluster(name: string, o: { natsUrl?: string; mongoUrl?: string } = {}): Promise<LossCluster> {
	const cluster = await startCluster({ name, nodes: ["users", "channels,catalog", "messages", "messages", "messages"], ready: ownerReadsMessages, ...o });
	try {
		const { owner, gateways } = cluster;
		const users: Client[] = [];
		const ids: number[] = [];
		for (let u = 0; u < USERS; u++) {
			const email = `loss${u}@${name}.test`;
			const made = ok(await owner.post("/users", { email, password: "password1", full_name: `Loss ${u}` }), "creating a user");
			const key = ok(await client(gateways[0], null).post("/fetch_api_key", { username: email, password: "password1" }), "fetching an API key");
			ids.push(made.user_id);
			users.push(client(gateways[0], { email, api_key: key.api_key }));
		}
		ok(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: CHANNEL }], principals: ids }), "subscribing");
		return { cluster, clients: Array.from({ length: CLIENTS }, (_, i) => users[i % USERS]) };
	} catch (err) {
		await cluster.stop();
		throw err;
	}
}

export interface LossRun {
	calls: Call[];
	killedAt: number;
	/** The clients' messages in the channel afterwards, by content. */
	stored: Map<string, number>;
}

/** Runs the clients `beforeMs`, kills one messages replica, runs them `afterMs` more and waits for every call's answer. */
export async function loseReplica({ cluster, clients }: LossCluster, beforeMs: number, afterMs: number): Promise<LossRun> {
	const calls: Call[] = [];
	let running = true;
	const loops = clients.map(async (c, i) => {
		for (let n = 0; running; n++) {
			const content = `c${i}-${n}-${randomBytes(3).toString("hex")}`;
			const start = Date.now();
			const kind = (["send", "read", "me"] as const)[n % 3];
			const send = kind === "send";
			const r = await (send
				? c.post("/messages", { type: "stream", to: CHANNEL, topic: `client ${i}`, content })
				: kind === "read"
					? c.get("/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: CHANNEL }]) })
					: c.get("/users/me")
			).catch(() => ({ status: 0, body: undefined }));
			calls.push({ client: i, kind, start, end: Date.now(), status: r.status, code: r.body?.code, content: send ? content : undefined });
		}
	});
	await new Promise((r) => setTimeout(r, beforeMs));
	const victim = cluster.nodes.find((n) => n.services === "messages")!;
	process.kill(serverPid(victim), "SIGKILL");
	const killedAt = Date.now();
	await new Promise((r) => setTimeout(r, afterMs));
	running = false;
	await Promise.all(loops);

	const read = ok(await clients[0].get("/messages", { anchor: "newest", num_before: 5000, num_after: 0, apply_markdown: false, narrow: JSON.stringify([{ operator: "channel", operand: CHANNEL }]) }), "reading the channel");
	const sent = (read.messages as Array<{ id: number; content: string; subject: string }>).filter((m) => m.subject.startsWith("client "));
	const stored = new Map<string, number>(sent.map((m) => [m.content, m.id]));
	return { calls, killedAt, stored };
}

/** The calls answered (ended) in [from, to). */
export const answeredIn = (calls: Call[], from: number, to: number) => calls.filter((c) => c.end >= from && c.end < to);

/** The longest time from the kill to the end of the run in which no call of any client was answered. */
export function longestStall(calls: Call[], killedAt: number): number {
	const ends = calls.map((c) => c.end).filter((e) => e >= killedAt).sort((a, b) => a - b);
	let longest = 0;
	let last = killedAt;
	for (const e of ends) {
		longest = Math.max(longest, e - last);
		last = e;
	}
	return longest;
}
