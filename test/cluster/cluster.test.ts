// The services split across processes over a real NATS server: `api` and `users` as separate
// nodes, then two `users` replicas, one of which stops while requests keep coming.
import { client, expectSuccess, type Client } from "../support/http";
import { waitFor, type Proc } from "../support/processes";
import { startCluster, type Cluster } from "../support/cluster";

jest.setTimeout(120_000);

let cluster: Cluster;
let usersA: Proc;
let baseUrl: string;
let owner: Client;

beforeAll(async () => {
	cluster = await startCluster({ name: "cluster", nodes: ["users", "channels"] });
	usersA = cluster.nodes[0];
	baseUrl = cluster.gateways[0];
	owner = cluster.owner;
});

afterAll(async () => {
	await cluster?.stop();
});

test("a request crosses the bus from the api node to the users node", async () => {
	const me = await owner.get("/users/me");
	expectSuccess(me);
	expect(me.body).toMatchObject({ user_id: 1, email: "owner@cluster.test", role: 100 });
	const created = await owner.post("/users", { email: "remote@cluster.test", password: "password1", full_name: "Remote" });
	expectSuccess(created);
	const fetched = await owner.get(`/users/${created.body.user_id}`);
	expect(fetched.body.user.full_name).toBe("Remote");
});

test("a deactivation on one node reaches the gateway's credential cache over the bus", async () => {
	// Past the gateway's pause after discovery (DISCOVERY_MS), so the key below is cached.
	await new Promise((r) => setTimeout(r, 3_500));
	const pw = "password-x1";
	const made = await owner.post("/users", { email: "cached@cluster.test", password: pw, full_name: "Cached" });
	const key = await client(baseUrl, null).post("/fetch_api_key", { username: "cached@cluster.test", password: pw });
	const user = client(baseUrl, { email: "cached@cluster.test", api_key: key.body.api_key });
	expectSuccess(await user.get("/users/me"));
	expectSuccess(await owner.delete(`/users/${made.body.user_id}`));
	const after = await user.get("/users/me");
	expect(after.body).toMatchObject({ code: "UNAUTHORIZED", msg: "Account is deactivated" });
});

test("channels, on a node of its own, checks permissions against groups the users node changes", async () => {
	await waitFor(async () => (await owner.get("/streams")).status === 200, "the channels node");
	const member = await owner.post("/users", { email: "chan@cluster.test", password: "password1", full_name: "Chan" });
	const key = (await client(baseUrl, null).post("/fetch_api_key", { username: "chan@cluster.test", password: "password1" })).body.api_key;
	const mc = client(baseUrl, { email: "chan@cluster.test", api_key: key });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "ops" }] }));
	const id = (await owner.get("/get_stream_id", { stream: "ops" })).body.stream_id;
	// Warm the channels node's cached group graph with the member as a member.
	expect((await mc.patch(`/streams/${id}`, { description: "x" })).body.code).toBe("BAD_REQUEST");
	// The role change happens on the users node; the channels node hears of it over NATS.
	expectSuccess(await owner.patch(`/users/${member.body.user_id}`, { role: 200 }));
	expectSuccess(await mc.patch(`/streams/${id}`, { description: "edited by a new administrator" }));
	const reg = await mc.post("/register", { fetch_event_types: ["stream", "realm_user"] });
	expect(reg.body.streams.map((s: { name: string }) => s.name)).toContain("ops");
	expect(reg.body.is_admin).toBe(true);
});

test("with two users replicas, stopping one loses no request", async () => {
	await cluster.startNode("users");
	// Both replicas are registered once requests keep succeeding for a while after B's start.
	await new Promise((r) => setTimeout(r, 4000));

	const results: number[] = [];
	let running = true;
	const load = (async () => {
		while (running) {
			const batch = await Promise.all(Array.from({ length: 8 }, () => owner.get("/users/me").then((r) => r.status, () => -1)));
			results.push(...batch);
		}
	})();

	await new Promise((r) => setTimeout(r, 1500));
	const code = await usersA.stop("SIGTERM");
	expect(code).toBe(0);
	const atStop = results.length;
	await new Promise((r) => setTimeout(r, 2000));
	running = false;
	await load;

	expect(atStop).toBeGreaterThan(50);
	expect(results.length).toBeGreaterThan(atStop);
	expect(results.filter((s) => s !== 200)).toEqual([]);

	// And afterwards every request is served by the remaining replica.
	const after = await Promise.all(Array.from({ length: 50 }, () => owner.get("/users/me")));
	expect(after.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
});
