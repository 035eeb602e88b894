// Several replicas of every service on one store, over a real NATS server: concurrent senders in
// a private channel and in direct conversations, through a gateway that spreads their requests
// over three `messages` replicas. Every send must succeed with its own ID, and nobody may read
// what they should not. Then event queues on two `events` replicas behind two gateways: a queue
// made through one gateway is read through the other, and stopping an events replica breaks only
// its own queues.
import { randomBytes } from "node:crypto";
import { client, expectSuccess, NOTIFICATION_BOT_EMAIL, type Client } from "../support/http";
import { waitFor } from "../support/processes";
import { ownerReadsMessages, startCluster, type Cluster } from "../support/cluster";

jest.setTimeout(180_000);

let cluster: Cluster;
let baseUrl: string;
let baseUrl2: string;
let owner: Client;

beforeAll(async () => {
	// The first users node creates the organization and its owner; two gateways.
	cluster = await startCluster({
		name: "replicas",
		nodes: ["users", "users", "channels,catalog", "channels,catalog", "messages", "messages", "messages", "events", "events"],
		gateways: 2,
		ready: ownerReadsMessages,
	});
	[baseUrl, baseUrl2] = cluster.gateways;
	owner = cluster.owner;
	// Every replica announces itself on the bus within a heartbeat or two.
	await new Promise((r) => setTimeout(r, 5000));
});

afterAll(async () => {
	await cluster?.stop();
});

const keys = new Map<string, { email: string; api_key: string }>();
const keyOf = async (name: string) => keys.get(name)!;

async function member(name: string): Promise<{ id: number; c: Client }> {
	const email = `${name}@replicas.test`;
	const made = await owner.post("/users", { email, password: "password1", full_name: name });
	expectSuccess(made);
	const key = await client(baseUrl, null).post("/fetch_api_key", { username: email, password: "password1" });
	expectSuccess(key);
	keys.set(name, { email, api_key: key.body.api_key });
	return { id: made.body.user_id, c: client(baseUrl, { email, api_key: key.body.api_key }) };
}

/** Runs the sends `width` at a time; each resolves to [status, message ID, content]. */
async function sendAll(jobs: Array<() => Promise<{ status: number; body: any }>>, width: number): Promise<Array<{ status: number; id: number }>> {
	const out: Array<{ status: number; id: number }> = [];
	let next = 0;
	await Promise.all(
		Array.from({ length: width }, async () => {
			while (next < jobs.length) {
				const r = await jobs[next++]();
				out.push({ status: r.status, id: r.body?.id });
			}
		}),
	);
	return out;
}

/** The user's messages but Notification Bot's (the notice of a channel's creation). */
async function history(c: Client): Promise<number[]> {
	const r = await c.get("/messages", { anchor: "newest", num_before: 1000, num_after: 0 });
	expectSuccess(r);
	return r.body.messages.filter((m: { sender_email: string }) => m.sender_email !== NOTIFICATION_BOT_EMAIL).map((m: { id: number }) => m.id);
}

test("concurrent senders on three messages replicas: every send succeeds once, and no one reads what is not theirs", async () => {
	const [alice, bob, carol] = [await member("alice"), await member("bob"), await member("carol")];
	const made = await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true, principals: [alice.id, bob.id] });
	expectSuccess(made);

	const sent = new Map<number, { text: string; readers: number[] }>();
	const jobs: Array<() => Promise<{ status: number; body: any }>> = [];
	const job = (from: { id: number; c: Client }, params: Record<string, unknown>, readers: number[]) => {
		const text = `${from.id}-${jobs.length}-${randomBytes(3).toString("hex")}`;
		jobs.push(async () => {
			const r = await from.c.post("/messages", { ...params, content: text });
			if (r.status === 200) sent.set(r.body.id, { text, readers });
			return r;
		});
	};
	for (let i = 0; i < 25; i++) {
		job(alice, { type: "stream", to: "secret", topic: "plans" }, [alice.id, bob.id]);
		job(bob, { type: "stream", to: "secret", topic: "plans" }, [alice.id, bob.id]);
		job(alice, { type: "direct", to: JSON.stringify([bob.id]) }, [alice.id, bob.id]);
		job(carol, { type: "direct", to: JSON.stringify([bob.id]) }, [carol.id, bob.id]);
	}
	const results = await sendAll(jobs, 12);

	expect(results.filter((r) => r.status !== 200)).toEqual([]);
	expect(new Set(results.map((r) => r.id)).size).toBe(jobs.length);

	// Each user's history is exactly the messages they were sent or sent, with the right content.
	for (const u of [alice, bob, carol]) {
		const mine = [...sent].filter(([, m]) => m.readers.includes(u.id)).map(([id]) => id);
		expect((await history(u.c)).sort((a, b) => a - b)).toEqual(mine.sort((a, b) => a - b));
	}
	const byId = await bob.c.get("/messages", { anchor: "newest", num_before: 1000, num_after: 0, apply_markdown: false });
	for (const m of byId.body.messages as Array<{ id: number; content: string }>) if (sent.has(m.id)) expect(m.content).toBe(sent.get(m.id)!.text);

	// Carol cannot reach the private channel's messages, by ID or by narrow.
	const secretIds = [...sent].filter(([, m]) => !m.readers.includes(carol.id)).map(([id]) => id);
	for (const id of secretIds.slice(0, 10)) expect((await carol.c.get(`/messages/${id}`)).status).toBe(400);
	const narrow = await carol.c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: "secret" }]) });
	expect(narrow.body.messages ?? []).toEqual([]);
});

test("a user's deactivation, reactivation and role change reach each queue once, with two users and two channels replicas", async () => {
	const [frank, gina] = [await member("frank"), await member("gina")];
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "crowd" }], principals: [frank.id, gina.id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "plaza" }] }));
	const [crowd, plaza] = [(await owner.get("/get_stream_id", { stream: "crowd" })).body.stream_id, (await owner.get("/get_stream_id", { stream: "plaza" })).body.stream_id];
	const queue = async (c: Client, types: string[]) => {
		const r = await c.post("/register", { event_types: JSON.stringify(types) });
		expectSuccess(r);
		let last = -1;
		const seen: any[] = [];
		return async () => {
			const got = await c.get("/events", { queue_id: r.body.queue_id, last_event_id: last, dont_block: true });
			expectSuccess(got);
			const events = got.body.events.filter((e: any) => e.type !== "heartbeat");
			if (events.length) last = events[events.length - 1].id;
			seen.push(...events.map(({ id: _id, ...e }: any) => e));
			return seen;
		};
	};
	const ginas = await queue(gina.c, ["subscription", "user_group"]);
	expectSuccess(await owner.delete(`/users/${frank.id}`));
	expectSuccess(await owner.post(`/users/${frank.id}/reactivate`));
	const franks = await queue(frank.c, ["stream"]);
	expectSuccess(await owner.patch(`/users/${frank.id}`, { role: 600 }));
	// Peer and stream events come from one channels replica (an emitted event), group events from one users replica.
	await waitFor(async () => (await ginas()).length >= 5 && (await franks()).length >= 1, "the events of the changes", 15_000);
	await new Promise((r) => setTimeout(r, 1500));
	const groups = (await owner.get("/user_groups")).body.user_groups as Array<{ id: number; name: string }>;
	const group = (name: string) => groups.find((g) => g.name === name)!.id;
	expect(await ginas()).toEqual([
		{ type: "subscription", op: "peer_remove", stream_ids: [crowd], user_ids: [frank.id] },
		{ type: "subscription", op: "peer_add", stream_ids: [crowd], user_ids: [frank.id] },
		{ type: "user_group", op: "remove_members", group_id: group("role:members"), user_ids: [frank.id] },
		{ type: "user_group", op: "add_members", group_id: group("role:everyone"), user_ids: [frank.id] },
		{ type: "user_group", op: "remove_members", group_id: group("role:fullmembers"), user_ids: [frank.id] },
	]);
	// Now a guest, Frank no longer sees the public channel he is not in: one deletion.
	const mine = await franks();
	expect(mine).toHaveLength(1);
	expect(mine[0]).toMatchObject({ type: "stream", op: "delete", stream_ids: [plaza] });
});

test("event queues on two events replicas, read through either gateway; a stopped replica loses only its own", async () => {
	const dave = await member("dave");
	const erin = await member("erin");
	// Enough queues that both replicas hold some (the gateway spreads the calls).
	const queues: string[] = [];
	for (let i = 0; i < 8; i++) {
		const r = await dave.c.post("/register", { event_types: JSON.stringify(["message"]) });
		expectSuccess(r);
		queues.push(r.body.queue_id);
	}
	// A queue ID starts with its replica's node ID, which ends with the node's process ID.
	const owners = queues.map((q) => q.slice(0, q.lastIndexOf(":")));
	const replicas = [...new Set(owners)];
	expect(replicas).toHaveLength(2);

	const dm = await erin.c.post("/messages", { type: "direct", to: JSON.stringify([dave.id]), content: "across" });
	expectSuccess(dm);
	const daveOther = client(baseUrl2, await keyOf("dave"));
	for (const q of queues) {
		const r = await daveOther.get("/events", { queue_id: q, last_event_id: -1, dont_block: true });
		expectSuccess(r);
		expect(r.body.events).toMatchObject([{ type: "message", message: { id: dm.body.id, content: "across" } }]);
	}

	process.kill(Number(replicas[0].split("-").pop()), "SIGKILL");
	// The registry drops the dead node within a heartbeat timeout.
	await new Promise((r) => setTimeout(r, 7000));
	const after = [];
	for (const [i, q] of queues.entries()) {
		const r = await daveOther.get("/events", { queue_id: q, last_event_id: 0, dont_block: true });
		after.push({ owner: owners[i] === replicas[0] ? "dead" : "alive", code: r.body.code ?? r.body.result });
	}
	if (after.some((x) => x.code === "INTERNAL_SERVER_ERROR")) console.log(cluster.nodes.map((n) => n.output()).join("\n----\n").slice(-5000));
	expect(after).toEqual(owners.map((o) => ({ owner: o === replicas[0] ? "dead" : "alive", code: o === replicas[0] ? "BAD_EVENT_QUEUE_ID" : "success" })));
	// A client that registers again gets a queue on the replica that is left.
	const again = await dave.c.post("/register", { event_types: JSON.stringify(["message"]) });
	expectSuccess(again);
	expect(again.body.queue_id.startsWith(`${replicas[1]}:`)).toBe(true);
});
