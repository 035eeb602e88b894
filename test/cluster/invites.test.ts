// The invites service as its own Deployment would run it: two `invites` replicas, each its own
// process, beside a node with the gateway and the other services, over a real nats-server.
// Requests racing for the day's invitation budget, balanced between the replicas, never exceed it
// together; an emailed link opened through the gateway creates the account on the other nodes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { client, expectSuccess, type Client } from "../support/http";
import { startNats, startServerNode, waitFor, type Proc } from "../support/processes";

jest.setTimeout(180_000);

let nats: Awaited<ReturnType<typeof startNats>>;
let main: Proc;
let replicas: Proc[] = [];
let baseUrl: string;
let owner: Client;
let dataDir: string;

const emailDir = () => path.join(dataDir, "emails");

beforeAll(async () => {
	nats = await startNats();
	dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-invites-"));
	const port = await freePort();
	baseUrl = `http://127.0.0.1:${port}/api/v1`;
	const env = {
		TRANSPORTER: nats.url,
		MONGO_URL: process.env.TEST_MONGO_URL!,
		DB_PREFIX: `i${randomBytes(4).toString("hex")}`,
		DATA_DIR: dataDir,
		EXTERNAL_URL: "http://cluster.test",
		OWNER_EMAIL: "owner@cluster.test",
		RATE_LIMIT: "0",
		INVITES_DAILY_LIMIT: "4",
	};
	main = startServerNode({ ...env, SERVICES: "api,users,channels,messages,events", PORT: String(port), HOST: "127.0.0.1" });
	replicas = [startServerNode({ ...env, SERVICES: "invites" }), startServerNode({ ...env, SERVICES: "invites" })];
	await waitFor(async () => fs.existsSync(path.join(dataDir, "zuliprc")), "the users service to create the owner");
	const rc = fs.readFileSync(path.join(dataDir, "zuliprc"), "utf8");
	owner = client(baseUrl, { email: /email=(.*)/.exec(rc)![1], api_key: /key=(.*)/.exec(rc)![1] });
	await waitFor(async () => (await owner.get("/invites").catch(() => null))?.status === 200, "the invites replicas");
});

afterAll(async () => {
	await Promise.all([main?.stop(), ...replicas.map((r) => r.stop())]);
	await nats?.proc.stop();
	fs.rmSync(dataDir, { recursive: true, force: true });
});

test("two replicas share the daily limit; a link opened through the gateway makes the account", async () => {
	const results = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => owner.post("/invites", { invitee_emails: `c${i}a@example.com,c${i}b@example.com`, stream_ids: [] })));
	expect(results.filter((r) => r.status === 200)).toHaveLength(2);
	for (const r of results.filter((r) => r.status !== 200)) expect(r.body).toMatchObject({ code: "INVITATION_FAILED", daily_limit_reached: true });
	const mails = fs.readdirSync(emailDir()).map((f) => fs.readFileSync(path.join(emailDir(), f), "utf8"));
	expect(mails).toHaveLength(4);

	const link = /(http:\/\/cluster\.test\/\S+)/.exec(mails[0])![1];
	const to = /^To: (.*)$/m.exec(mails[0])![1].trim();
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
