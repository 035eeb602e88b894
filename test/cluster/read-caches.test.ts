// The read caches of a message page across nodes: two nodes each run the users, channels and
// messages services (each with its own caches) behind two gateways. A change made through one
// gateway is seen by the very next pages read through the other, whichever replicas answer them:
// the owning service's broadcast reaches every replica's cache over NATS.
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { startCluster, ownerReadsMessages, type Cluster } from "../support/cluster";
import { DISCOVERY_MS } from "../../shared/node-cache";

jest.setTimeout(120_000);

const NODE = "users,channels,catalog,messages,events";
/** Pages read per check: with two replicas of each service, round-robin makes both answer. */
const READS = 4;

let cluster: Cluster;
let viaA: (key: { email: string; api_key: string }) => Client;
let viaB: (key: { email: string; api_key: string }) => Client;
let bob: { id: number; key: { email: string; api_key: string } };

beforeAll(async () => {
	cluster = await startCluster({ name: "readcache", nodes: [NODE, NODE], gateways: 2, ready: ownerReadsMessages });
	viaA = (key) => client(cluster.gateways[0], key);
	viaB = (key) => client(cluster.gateways[1], key);
	const made = await cluster.owner.post("/users", { email: "bob@readcache.test", password: "password1", full_name: "Bob" });
	expectSuccess(made);
	const key = await client(cluster.gateways[0], null).post("/fetch_api_key", { username: "bob@readcache.test", password: "password1" });
	bob = { id: made.body.user_id, key: { email: "bob@readcache.test", api_key: key.body.api_key } };
	// Past the caches' pause after the nodes discovered each other, so that what is read is kept.
	await new Promise((r) => setTimeout(r, DISCOVERY_MS + 1_000));
});

afterAll(async () => {
	await cluster?.stop();
});

/** The contents of a channel's topic `t` as `c` reads it, READS times (all the same, or the test fails). */
async function pages(c: Client, channelId: number): Promise<Array<Array<Record<string, any>>>> {
	const out = [];
	for (let i = 0; i < READS; i++) {
		const res = await c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, client_gravatar: false, narrow: [{ operator: "channel", operand: channelId }, { operator: "topic", operand: "t" }] });
		expectSuccess(res);
		out.push(res.body.messages);
	}
	return out;
}
const contents = async (c: Client, id: number) => (await pages(c, id)).map((p) => p.map((m) => m.content));

async function newChannel(name: string, principals: number[], extra: Record<string, unknown> = {}): Promise<number> {
	expectSuccess(await cluster.owner.post("/users/me/subscriptions", { subscriptions: [{ name }], principals, history_public_to_subscribers: true, ...extra }));
	const id = (await cluster.owner.get("/get_stream_id", { stream: name })).body.stream_id as number;
	await sendMessage(cluster.owner, { type: "stream", to: id, topic: "t", content: name });
	return id;
}

test("a channel made private on one node: its history hidden from a non-subscriber reading through the other", async () => {
	const id = await newChannel("going private", [1]);
	expect(await contents(viaB(bob.key), id)).toEqual(Array(READS).fill([`<p>going private</p>`]));
	expectSuccess(await viaA(cluster.ownerKey).patch(`/streams/${id}`, { is_private: true }));
	expect(await contents(viaB(bob.key), id)).toEqual(Array(READS).fill([]));
});

test("a channel renamed on one node: the new name on the other", async () => {
	const id = await newChannel("old name", [1]);
	expect((await pages(viaB(cluster.ownerKey), id)).map((p) => p[0].display_recipient)).toEqual(Array(READS).fill("old name"));
	expectSuccess(await viaA(cluster.ownerKey).patch(`/streams/${id}`, { new_name: "new name" }));
	expect((await pages(viaB(cluster.ownerKey), id)).map((p) => p[0].display_recipient)).toEqual(Array(READS).fill("new name"));
});

test("a member added and removed on one node: the channel's earlier history shown, then hidden, on the other", async () => {
	const id = await newChannel("membership", [1], { invite_only: true });
	expect(await contents(viaB(bob.key), id)).toEqual(Array(READS).fill([]));
	expectSuccess(await viaA(cluster.ownerKey).post("/users/me/subscriptions", { subscriptions: [{ name: "membership" }], principals: [bob.id] }));
	expect(await contents(viaB(bob.key), id)).toEqual(Array(READS).fill([`<p>membership</p>`]));
	expectSuccess(await viaA(cluster.ownerKey).delete("/users/me/subscriptions", { subscriptions: ["membership"], principals: [bob.id] }));
	expect(await contents(viaB(bob.key), id)).toEqual(Array(READS).fill([]));
});

test("a sender renamed and given a new avatar on one node: the new sender fields on the other", async () => {
	const id = await newChannel("senders", [1, bob.id]);
	await sendMessage(viaA(bob.key), { type: "stream", to: id, topic: "t", content: "from bob" });
	const bobs = async () => (await pages(viaB(cluster.ownerKey), id)).map((p) => p.find((m) => m.sender_id === bob.id)!);
	expect((await bobs()).map((m) => m.sender_full_name)).toEqual(Array(READS).fill("Bob"));
	expectSuccess(await viaA(bob.key).patch("/settings", { full_name: "Robert" }));
	expect((await bobs()).map((m) => m.sender_full_name)).toEqual(Array(READS).fill("Robert"));
	const version = Number(/version=(\d+)$/.exec((await bobs())[0].avatar_url as string)![1]);
	expectSuccess(await viaA(bob.key).delete("/users/me/avatar"));
	expect((await bobs()).map((m) => m.avatar_url)).toEqual(Array(READS).fill(expect.stringMatching(new RegExp(`version=${version + 1}$`))));
});
