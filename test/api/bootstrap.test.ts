// First start, the management CLI, and a real Zulip client (the official Python package)
// configured by the zuliprc the server wrote.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectError, expectSuccess } from "../support/http";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../..");
const PYTHON = path.join(ROOT, "node_modules/.cache/zulip-python/bin/python");

let app: TestApp;

beforeAll(async () => {
	app = await startTestApp();
});
afterAll(() => app.stop());

function manage(args: string[]) {
	return run(path.join(ROOT, "node_modules/.bin/tsx"), ["deploy/manage.ts", ...args], {
		cwd: ROOT,
		env: {
			...process.env,
			MONGO_URL: app.node.config.mongoUrl,
			DB_PREFIX: app.node.config.dbPrefix,
			EXTERNAL_URL: app.node.config.externalUrl,
			DATA_DIR: app.dataDir,
		},
	});
}

describe("first start", () => {
	test("creates the owner and writes their zuliprc into the data dir", async () => {
		const rc = fs.readFileSync(path.join(app.dataDir, "zuliprc"), "utf8");
		expect(rc).toMatch(/^\[api\]\nemail=owner@chat\.test\nkey=[A-Za-z0-9]{32}\nsite=http:\/\/chat\.test\n$/);
		const me = await client(app.baseUrl, app.owner).get("/users/me");
		expect(me.body).toMatchObject({ user_id: 1, role: 100, is_owner: true });
	});

	test("a second start on the same database creates nothing new", async () => {
		const second = await startTestApp({ dbPrefix: app.node.config.dbPrefix, port: 0 });
		try {
			const users = await client(second.baseUrl, app.owner).get("/users");
			expect(users.body.members.filter((m: { role: number }) => m.role === 100)).toHaveLength(1);
		} finally {
			await second.stop();
		}
	});
});

describe("npm run manage", () => {
	test("create-user makes a user with the role asked for and prints a working zuliprc", async () => {
		const { stdout } = await manage(["create-user", "--email", "cli@chat.test", "--name", "Cli User", "--role", "moderator", "--password", "cli-password"]);
		const key = /key=(\w+)/.exec(stdout)![1];
		expect(stdout).toContain("email=cli@chat.test");
		const me = await client(app.baseUrl, { email: "cli@chat.test", api_key: key }).get("/users/me");
		expectSuccess(me);
		expect(me.body).toMatchObject({ role: 300, full_name: "Cli User" });

		const again = await manage(["zuliprc", "--email", "cli@chat.test"]);
		expect(again.stdout).toBe(stdout);
	});

	test("grant and revoke a special permission", async () => {
		const { stdout } = await manage(["grant", "--email", app.owner.email, "--permission", "can_change_user_emails"]);
		expect(stdout).toContain("Granted can_change_user_emails");
		const target = await app.createUser({});
		const owner = client(app.baseUrl, app.owner);
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { new_email: "granted@chat.test" }));
		await manage(["revoke", "--email", app.owner.email, "--permission", "can_change_user_emails"]);
		expectError(await owner.patch(`/users/${target.user_id}`, { new_email: "revoked@chat.test" }), 400, "BAD_REQUEST", "Insufficient permission");
		await expect(manage(["grant", "--email", app.owner.email, "--permission", "fly"])).rejects.toMatchObject({ code: 1 });

		// POST /users, as in Zulip, only for an administrator the operator granted can_create_users.
		const newcomer = { email: "api-made@chat.test", password: "password123", full_name: "Api Made" };
		expectError(await owner.post("/users", newcomer), 400, "BAD_REQUEST", "User not authorized to create users");
		expect((await manage(["grant", "--email", app.owner.email, "--permission", "can_create_users"])).stdout).toContain("Granted can_create_users");
		expectSuccess(await owner.post("/users", newcomer));
	});

	test("refuses a duplicate address, an unknown role and missing arguments", async () => {
		await expect(manage(["create-user", "--email", "cli@chat.test", "--name", "Again"])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("already in use") });
		await expect(manage(["create-user", "--email", "x@chat.test", "--name", "X", "--role", "emperor"])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("Unknown role") });
		await expect(manage(["create-user", "--email", "x@chat.test"])).rejects.toMatchObject({ code: 2 });
		expectError(await client(app.baseUrl, app.owner).get("/users/x%40chat.test"), 400, "BAD_REQUEST", "No such user");
	});
});

describe("a real Zulip client", () => {
	test("the Python zulip package authenticates from a zuliprc and calls server_settings, register and users/me", async () => {
		const origin = new URL(app.baseUrl).origin;
		const rcFile = path.join(app.dataDir, "client-zuliprc");
		fs.writeFileSync(rcFile, `[api]\nemail=${app.owner.email}\nkey=${app.owner.api_key}\nsite=${origin}\n`);
		const script = `
import json, sys, zulip
c = zulip.Client(config_file=sys.argv[1], client="test-suite")
out = {
  "server_settings": c.get_server_settings(),
  "register": c.register(fetch_event_types=["realm", "realm_user"]),
  "me": c.get_profile(),
}
print(json.dumps(out))
`;
		const { stdout } = await run(PYTHON, ["-c", script, rcFile]);
		const out = JSON.parse(stdout);
		expect(out.server_settings).toMatchObject({ result: "success", realm_uri: "http://chat.test" });
		expect(out.register).toMatchObject({ result: "success", max_message_length: 10000, user_id: 1 });
		expect(out.me).toMatchObject({ result: "success", user_id: 1, email: app.owner.email });
	});
});
