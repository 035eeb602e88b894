// The invites service as its own Deployment would run it: two `invites` replicas, each its own
// process, beside a node with the gateway and the other services, over a real nats-server.
// Requests racing for the day's invitation budget, balanced between the replicas, never exceed it
// together; an emailed link opened through the gateway creates the account on the other nodes.
import fs from "node:fs";
import path from "node:path";
import { parseMail } from "../support/emails";
import { client, expectSuccess, type Client } from "../support/http";
import { startCluster, type Cluster } from "../support/cluster";

jest.setTimeout(180_000);

let cluster: Cluster;
let baseUrl: string;
let owner: Client;

const emailDir = () => path.join(cluster.dataDir, "emails");

beforeAll(async () => {
	cluster = await startCluster({
		name: "invites",
		nodes: ["api,users,channels,messages,events,notifications,catalog", "invites", "invites"],
		gateways: 0,
		env: { INVITES_DAILY_LIMIT: "4" },
		ready: async (c) => (await c.get("/invites")).status === 200,
	});
	baseUrl = cluster.gateways[0];
	owner = cluster.owner;
});

afterAll(async () => {
	await cluster?.stop();
});

test("two replicas share the daily limit; a link opened through the gateway makes the account", async () => {
	const results = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => owner.post("/invites", { invitee_emails: `c${i}a@example.com,c${i}b@example.com`, stream_ids: [] })));
	expect(results.filter((r) => r.status === 200)).toHaveLength(2);
	for (const r of results.filter((r) => r.status !== 200)) expect(r.body).toMatchObject({ code: "INVITATION_FAILED", daily_limit_reached: true });
	const mails = fs.readdirSync(emailDir()).map((f) => parseMail(fs.readFileSync(path.join(emailDir(), f), "utf8")));
	expect(mails).toHaveLength(4);

	const link = /(http:\/\/invites\.test\/[^\s>]+)/.exec(mails[0].body)![1];
	const to = mails[0].to;
	const url = `${baseUrl.replace(/\/api\/v1$/, "")}${new URL(link).pathname}`;
	const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ full_name: "Cluster Person", password: "secret-123" }) });
	expect(res.status).toBe(200);
	const key = await client(baseUrl, null).post("/fetch_api_key", { username: to, password: "secret-123" });
	expectSuccess(key);
	const person = client(baseUrl, { email: to, api_key: key.body.api_key });
	const dms = await person.get("/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "is", operand: "dm" }] });
	expect(dms.body.messages.map((m: { sender_email: string }) => m.sender_email)).toEqual(["welcome-bot@zulip.com"]);
	expect((await owner.get("/invites")).body.invites).toHaveLength(3);
});
