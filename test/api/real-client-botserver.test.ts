// A real bot server: zulip_botserver from PyPI (installed by test/support/prerequisites.sh)
// running the stock `helloworld` bot of zulip_bots, registered as an outgoing webhook bot's
// payload URL. A mention of the bot through the API reaches the bot server with Zulip's payload
// (it checks the bot's email and token, and strips the leading mention using the profile it read
// at start), and the bot's reply, which it posts through the API with its own key, appears in the
// channel's topic, with the wave it reacts with.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { eventually } from "../support/eventually";

const BOTSERVER = path.resolve(__dirname, "../../node_modules/.cache/zulip-python/bin/zulip-botserver");

let app: TestApp;
let owner: Client;
let botserver: ChildProcess | undefined;
let output = "";

/** A port free now, for the bot server (Flask takes a port number, not 0). */
async function freePort(): Promise<number> {
	const s = net.createServer();
	await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
	const port = (s.address() as net.AddressInfo).port;
	await new Promise((r) => s.close(r));
	return port;
}

const listening = (port: number) =>
	new Promise<boolean>((resolve) => {
		const socket = net.connect(port, "127.0.0.1");
		socket.once("connect", () => resolve(!!socket.end()));
		socket.once("error", () => resolve(false));
	});

beforeAll(async () => {
	app = await startTestApp({ outgoingWebhookAllowedNetworks: ["127.0.0.0/8"] });
	owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "bots" }] }));
});
afterAll(async () => {
	if (botserver?.pid && botserver.exitCode === null) {
		const exited = new Promise((r) => botserver!.once("exit", r));
		botserver.kill();
		await exited;
	}
	await app?.stop();
});

test("zulip_botserver's helloworld bot answers a mention in the channel", async () => {
	const port = await freePort();
	const created = await owner.post("/bots", { full_name: "Hello Bot", short_name: "hello", bot_type: 3, payload_url: JSON.stringify(`http://127.0.0.1:${port}/`), interface_type: 1 });
	expectSuccess(created);
	const reg = await owner.post("/register", { fetch_event_types: JSON.stringify(["realm_bot"]) });
	const bot = (reg.body.realm_bots as Array<{ user_id: number; email: string; api_key: string; services: Array<{ token: string }> }>).find((b) => b.user_id === created.body.user_id)!;

	const config = { helloworld: { email: bot.email, key: created.body.api_key, site: new URL(app.baseUrl).origin, token: bot.services[0].token } };
	botserver = spawn(BOTSERVER, ["--use-env-vars", "--hostname", "127.0.0.1", "--port", String(port)], { env: { ...process.env, ZULIP_BOTSERVER_CONFIG: JSON.stringify(config) }, stdio: ["ignore", "pipe", "pipe"] });
	botserver.on("error", (err) => (output += `could not start: ${err.message}\n`));
	botserver.stdout!.on("data", (d) => (output += d));
	botserver.stderr!.on("data", (d) => (output += d));
	const gone = () => botserver!.exitCode !== null || output.startsWith("could not start");
	await eventually(async () => (gone() ? Promise.reject(new Error(`the bot server exited:\n${output}`)) : listening(port)), "the bot server");

	const id = await sendMessage(owner, { type: "stream", to: "bots", topic: "greetings", content: "@**Hello Bot** hello there" });
	const reply = await eventually(async () => {
		const res = await owner.get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "sender", operand: bot.user_id }], apply_markdown: false });
		return (res.body.messages as Array<Record<string, any>>).find((m) => m.id > id);
	}, `the bot's reply (bot server output:\n${output})`);
	expect({ type: reply.type, display_recipient: reply.display_recipient, subject: reply.subject, content: reply.content }).toEqual({ type: "stream", display_recipient: "bots", subject: "greetings", content: "beep boop" });

	const reacted = await eventually(async () => {
		const res = await owner.get(`/messages/${id}`, {});
		const reactions = res.body.message?.reactions as Array<{ emoji_name: string; user_id: number }> | undefined;
		return reactions?.length ? reactions : undefined;
	}, "the bot's reaction");
	expect(reacted.map((r) => ({ emoji_name: r.emoji_name, user_id: r.user_id }))).toEqual([{ emoji_name: "wave", user_id: bot.user_id }]);
});
