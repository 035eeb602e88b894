// Status-setting clients written apart from Zulip, from PyPI (installed by
// test/support/prerequisites.sh in a virtualenv of their own):
// - kctl-zulip, an administrator's command-line tool on httpx: `presence set-status` (POST
//   /users/me/status with its own form encoding, `away=false` always sent), run as a person runs
//   it, with the site and credentials on its command line; its error handling on Zulip's envelope.
// - zulipchat-mcp, the Model Context Protocol server through which an AI assistant acts on a
//   Zulip account, built on the `zulip` package. It is started as an assistant's host starts it
//   (a subprocess from a zuliprc, speaking MCP over its standard input and output) and driven by
//   the MCP client of its own dependency fastmcp: its `update_status` tool (POST
//   /users/me/status) sets the account's status text and emoji and clears them, and its
//   `get_user_status` tool (GET /users/{user_id}/status) reads them back, as another user's GET
//   does.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";

const VENV = path.resolve(__dirname, "../../node_modules/.cache/status-clients/bin");
const run = promisify(execFile);

let app: TestApp;
beforeAll(async () => {
	app = await startTestApp();
});
afterAll(() => app.stop());

// The host's side: fastmcp's Client over a stdio transport that starts `zulipchat-mcp`. Each
// tool's answer is its structured content, as the host hands it to the assistant.
const SCRIPT = `
import asyncio, json, os, sys
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

rc, home, user_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
calls = json.loads(sys.argv[4])

async def main():
    server = StdioTransport(
        command=os.path.join(os.path.dirname(sys.executable), "zulipchat-mcp"),
        args=["--zulip-config-file", rc, "--extended-tools"],
        # No banner, and no look-up of fastmcp's newest release while it starts.
        env={"HOME": home, "PATH": os.environ.get("PATH", ""), "FASTMCP_SHOW_SERVER_BANNER": "false", "FASTMCP_CHECK_FOR_UPDATES": "off"},
        cwd=home,
        keep_alive=False,
        log_file=open(os.path.join(home, "server.log"), "a"),
    )
    out = {}
    async with Client(server) as c:
        out["tools"] = sorted(t.name for t in await c.list_tools())
        for label, name, args in calls:
            r = await c.call_tool(name, args, raise_on_error=False)
            out[label] = r.structured_content
    print(json.dumps(out))

asyncio.run(main())
`;

async function drive(who: Account, calls: Array<[string, string, Record<string, unknown>]>): Promise<Record<string, any>> {
	const home = fs.mkdtempSync(path.join(app.dataDir, "mcp-"));
	const rc = path.join(home, "zuliprc");
	fs.writeFileSync(rc, `[api]\nemail=${who.email}\nkey=${who.api_key}\nsite=${new URL(app.baseUrl).origin}\n`, { mode: 0o600 });
	try {
		const { stdout } = await run(path.join(VENV, "python"), ["-c", SCRIPT, rc, home, String(who.user_id), JSON.stringify(calls)], { timeout: 90_000 });
		return JSON.parse(stdout);
	} catch (e) {
		const log = path.join(home, "server.log");
		throw new Error(`${String(e)}\nthe server logged:\n${fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "(nothing)"}`);
	}
}

test("zulipchat-mcp sets, reads and clears a user's status through its tools", async () => {
	const me = await app.createUser({ full_name: "Assistant User" });
	const colleague = await app.createUser({ full_name: "Colleague" });
	const c = client(app.baseUrl, colleague);

	const out = await drive(me, [
		["set", "update_status", { status_text: "on call", emoji_name: "phone" }],
		["read", "get_user_status", { user_id: me.user_id }],
		["text_only", "update_status", { status_text: "reviewing" }],
		["read_text_only", "get_user_status", { user_id: me.user_id }],
		["clear", "update_status", { status_text: "", emoji_name: "" }],
		["read_cleared", "get_user_status", { user_id: me.user_id }],
	]);
	expect(out.tools).toEqual(expect.arrayContaining(["update_status", "get_user_status"]));
	expect(out.set).toEqual({ status: "success", updated_status: { status_text: "on call", emoji_name: "phone", reaction_type: "unicode_emoji" } });
	expect(out.read).toEqual({ status: "success", user_id: me.user_id, user_status: { status_text: "on call", emoji_name: "phone", emoji_code: "260e", reaction_type: "unicode_emoji" } });
	// Only the text sent: the emoji stays.
	expect(out.text_only.status).toBe("success");
	expect(out.read_text_only.user_status).toEqual({ status_text: "reviewing", emoji_name: "phone", emoji_code: "260e", reaction_type: "unicode_emoji" });
	// Empty text and emoji name clear both, as Zulip's "Clear status".
	expect(out.clear.status).toBe("success");
	expect(out.read_cleared).toEqual({ status: "success", user_id: me.user_id, user_status: {} });
	const seen = await c.get(`/users/${me.user_id}/status`);
	expectSuccess(seen);
	expect(seen.body.status).toEqual({});
});

/** kctl-zulip with the site and credentials on its command line, as in a script; its exit code and output. */
async function kctl(who: Account, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	const home = fs.mkdtempSync(path.join(app.dataDir, "kctl-"));
	const argv = ["--url", new URL(app.baseUrl).origin, "--email", who.email, "--api-key", who.api_key, ...args];
	// Its own switch for test suites: no look-up of its newest release at start.
	const env = { PATH: process.env.PATH ?? "", HOME: home, KCTL_NO_UPDATE_CHECK: "1", NO_COLOR: "1", COLUMNS: "200" };
	try {
		const { stdout, stderr } = await run(path.join(VENV, "kctl-zulip"), argv, { env, timeout: 60_000 });
		return { code: 0, stdout, stderr };
	} catch (e) {
		const err = e as { code?: number; stdout?: string; stderr?: string };
		return { code: err.code ?? -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
	}
}

const statusOf = async (c: Client, who: Account) => {
	const res = await c.get(`/users/${who.user_id}/status`);
	expectSuccess(res);
	return res.body.status;
};

test("kctl-zulip, an administrator's CLI, sets and clears a status; its away=false brings an away user back", async () => {
	const admin = await app.createUser({ full_name: "Chat Admin", role: 200 });
	const colleague = client(app.baseUrl, await app.createUser({ full_name: "Colleague Two" }));
	const self = client(app.baseUrl, admin);
	expectSuccess(await self.post("/users/me/status", { away: true }));
	expect(await statusOf(colleague, admin)).toEqual({ away: true });

	const set = await kctl(admin, ["presence", "set-status", "--text", "Out sick", "--emoji", "palm_tree"]);
	expect(set).toMatchObject({ code: 0 });
	expect(set.stdout + set.stderr).toContain("Status updated");
	// away=false, which it always sends, turns presence back on: no longer away.
	expect(await statusOf(colleague, admin)).toEqual({ status_text: "Out sick", emoji_name: "palm_tree", emoji_code: "1f334", reaction_type: "unicode_emoji" });

	// The text alone: the emoji stays.
	expect(await kctl(admin, ["presence", "set-status", "--text", "Back tomorrow"])).toMatchObject({ code: 0 });
	expect(await statusOf(colleague, admin)).toEqual({ status_text: "Back tomorrow", emoji_name: "palm_tree", emoji_code: "1f334", reaction_type: "unicode_emoji" });

	// Zulip's error envelope reaches its user as the message, and changes nothing.
	const bad = await kctl(admin, ["presence", "set-status", "--emoji", "no_such_emoji_here"]);
	expect(bad.code).not.toBe(0);
	expect(bad.stdout + bad.stderr).toContain("Emoji 'no_such_emoji_here' does not exist");
	expect((await statusOf(colleague, admin)).status_text).toBe("Back tomorrow");

	// Empty text and emoji clear the status.
	expect(await kctl(admin, ["presence", "set-status", "--text", "", "--emoji", ""])).toMatchObject({ code: 0 });
	expect(await statusOf(colleague, admin)).toEqual({});
});
