// `npm run manage` run as a real process beside a running server: each change it makes reaches
// every running node before the command returns (services/users/management/change-relay.ts). A user it creates
// can create a channel at once (the channels service's cached group graph was dropped), clients
// hear of the user (realm_user add), and an organization setting it changes applies at once, both
// in one process with the embedded store (`npm start`'s default, no bus another process could join)
// and with the services as nodes over NATS, two users replicas among them. With no server
// running, the command waits for no one.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { RELAY_WAIT_MS } from "../../services/users/management/change-relay";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { startServerNode, waitFor, type Proc } from "../support/processes";
import { ownerKey, startCluster, type Cluster } from "../support/cluster";

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, "../..");

interface Run {
	code: number;
	stdout: string;
	stderr: string;
	ms: number;
}

/** `npm run manage -- <args>` with the server's environment, as an operator runs it. */
function manage(env: Record<string, string>, args: string[]): Promise<Run> {
	const started = Date.now();
	return new Promise((resolve) => {
		execFile(
			"npm",
			["run", "--silent", "manage", "--", ...args],
			{ cwd: ROOT, env: { ...process.env, PATH: `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, LOG_LEVEL: "warn", ...env } },
			(err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
		);
	});
}

/** The key of the zuliprc a command printed. */
const keyOf = (run: Run) => /^key=(\w+)$/m.exec(run.stdout)?.[1] ?? "";

/**
 * The checks both topologies share: `base` is a gateway, `owner` the owner's client, `env` what the
 * command needs to reach the server's database.
 */
async function changesReachTheServer(base: string, owner: Client, env: Record<string, string>, domain: string): Promise<void> {
	// The caches are warm: the owner's credentials, the group graphs (a channel created, a message edited).
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "warm" }] }));
	const queue = await owner.post("/register", { event_types: ["realm_user", "realm"] });
	expectSuccess(queue);
	expect(queue.body.queue_id).toEqual(expect.any(String));

	const made = await manage(env, ["create-user", "--email", `cli@${domain}`, "--name", "Cli User", "--role", "member", "--password", "cli-password"]);
	expect(made).toMatchObject({ code: 0, stderr: "" });
	const user = client(base, { email: `cli@${domain}`, api_key: keyOf(made) });
	const me = await user.get("/users/me");
	expectSuccess(me);
	// At once, with no other user made through the API: the new member may create a channel.
	expectSuccess(await user.post("/users/me/subscriptions", { subscriptions: [{ name: `made by cli ${domain}` }] }));
	const channelId = (await user.get("/get_stream_id", { stream: `made by cli ${domain}` })).body.stream_id as number;
	const sent = await user.post("/messages", { type: "stream", to: channelId, topic: "hello", content: "first" });
	expectSuccess(sent);
	expectSuccess(await user.patch(`/messages/${sent.body.id}`, { content: "edited" }));

	// An organization setting the group graphs carry applies at once on every node.
	const setting = await manage(env, ["realm-setting", "--name", "realm_allow_message_editing", "--value", "false"]);
	expect(setting).toMatchObject({ code: 0, stderr: "", stdout: "Set realm_allow_message_editing to false\n" });
	expectError(await user.patch(`/messages/${sent.body.id}`, { content: "edited again" }), 400, "BAD_REQUEST", "Your organization has turned off message editing");

	// A special permission, read by the users service on its next check.
	expect(await manage(env, ["grant", "--email", `cli@${domain}`, "--permission", "can_change_user_emails"])).toMatchObject({ code: 0, stderr: "" });

	// Clients heard of each, once (one replica relays), as for the same changes through the API.
	const polled = await owner.get("/events", { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true });
	expectSuccess(polled);
	const events = polled.body.events as Array<Record<string, any>>;
	const adds = events.filter((e) => e.type === "realm_user" && e.op === "add");
	expect(adds).toHaveLength(1);
	expect(adds[0].person).toMatchObject({ user_id: me.body.user_id, full_name: "Cli User", role: 400 });
	expect(events.filter((e) => e.type === "realm" && e.data?.allow_message_editing === false)).toHaveLength(1);
}

describe("one process, embedded store (npm start)", () => {
	let server: Proc;
	let dataDir: string;
	let env: Record<string, string>;
	let base: string;

	beforeAll(async () => {
		dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-manage-"));
		const port = await freePort();
		// No MONGO_URL: the server starts the embedded store of DATA_DIR, which the command joins.
		env = { MONGO_URL: "", TRANSPORTER: "", SERVICES: "", DATA_DIR: dataDir, STORE_PORT: String(await freePort()), DB_PREFIX: `m${randomBytes(4).toString("hex")}` };
		server = startServerNode({ ...env, PORT: String(port), HOST: "127.0.0.1", EXTERNAL_URL: `http://127.0.0.1:${port}`, OWNER_EMAIL: "owner@one.test", RATE_LIMIT: "0" });
		await waitFor(async () => fs.existsSync(path.join(dataDir, "zuliprc")) && (await fetch(`http://127.0.0.1:${port}/api/v1/server_settings`).catch(() => null))?.status === 200, "the server", 120_000);
		base = `http://127.0.0.1:${port}/api/v1`;
	});

	afterAll(async () => {
		await server?.stop();
		if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
	});

	test("a user the command creates can create a channel at once, and the other commands apply at once", async () => {
		await changesReachTheServer(base, client(base, ownerKey(dataDir)), env, "one.test");
	});

	test("with no server running, the command starts the store itself and waits for no one", async () => {
		expect(await server.stop()).toBe(0);
		const made = await manage(env, ["create-user", "--email", "alone@one.test", "--name", "Alone"]);
		expect(made).toMatchObject({ code: 0, stderr: "" });
		expect(keyOf(made)).toMatch(/^\w{32}$/);
	});
});

describe("services as nodes over NATS, two users replicas", () => {
	let cluster: Cluster;

	beforeAll(async () => {
		cluster = await startCluster({ name: "manage", nodes: ["users", "users", "channels,catalog", "messages,events"] });
		await waitFor(async () => (await cluster.owner.get("/streams")).status === 200 && !!(await cluster.owner.post("/register", { event_types: ["realm"] })).body.queue_id, "the channels and events nodes");
	});

	afterAll(async () => {
		await cluster?.stop();
	});

	test("a user the command creates can create a channel at once on the channels node, and the other commands apply at once", async () => {
		// The command's environment names the database, not the bus: it needs none.
		await changesReachTheServer(cluster.gateways[0], cluster.owner, { ...cluster.env, TRANSPORTER: "" }, "manage.test");
	});

	test("with every users node stopped, the command waits for no one", async () => {
		for (const node of cluster.nodes.filter((n) => n.services === "users")) expect(await node.stop()).toBe(0);
		const made = await manage({ ...cluster.env, TRANSPORTER: "" }, ["create-user", "--email", "alone@manage.test", "--name", "Alone"]);
		expect(made).toMatchObject({ code: 0, stderr: "" });
		expect(keyOf(made)).toMatch(/^\w{32}$/);
		// It did not wait for a replica to take the change (it would wait RELAY_WAIT_MS, then say so).
		expect(made.ms).toBeLessThan(RELAY_WAIT_MS);
	});
});
