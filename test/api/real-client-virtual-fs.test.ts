// zulip_bots' stock `virtual_fs` bot (PyPI `zulip_bots`, installed by
// test/support/prerequisites.sh), run as its users run it: `zulip-run-bot virtual_fs -c zuliprc`,
// the package's own runner, which registers an event queue for messages, answers each message
// that mentions the bot first (or is a one-to-one direct message to it) and keeps a file system
// per conversation in bot storage (GET and PUT /bot_storage) as JSON. People give it commands
// in a channel and in a direct message; its replies are read back through GET /messages and its
// storage through GET /bot_storage. Stopped with Ctrl+C and started again, it finds its storage
// as it left it.
import { spawn, execFile, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";

const VENV = path.resolve(__dirname, "../../node_modules/.cache/zulip-python/bin");
const run = promisify(execFile);
const CHANNEL = "file-system";

let app: TestApp;
const bots: ChildProcess[] = [];
beforeAll(async () => {
	// Short heartbeats: the app stops once the bot's pending GET /events has answered.
	app = await startTestApp({ eventsHeartbeatSeconds: 5 });
});
afterAll(async () => {
	for (const b of bots) if (b.exitCode === null && b.signalCode === null) b.kill("SIGKILL");
	await app.stop();
});

interface Message {
	id: number;
	sender_id: number;
	content: string;
	subject: string;
}

function zuliprc(a: Account, name: string): string {
	const file = path.join(app.dataDir, name);
	fs.writeFileSync(file, `[api]\nemail=${a.email}\nkey=${a.api_key}\nsite=${new URL(app.baseUrl).origin}\n`, { mode: 0o600 });
	return file;
}

/** `zulip-run-bot virtual_fs`, its output kept for a failure to show. */
function startBot(rc: string): { proc: ChildProcess; output: () => string; exited: Promise<number | null> } {
	const proc = spawn(path.join(VENV, "python"), [path.join(VENV, "zulip-run-bot"), "virtual_fs", "--config-file", rc], { env: { ...process.env, PYTHONUNBUFFERED: "1" }, stdio: ["ignore", "pipe", "pipe"] });
	bots.push(proc);
	let out = "";
	proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
	proc.stderr?.on("data", (d: Buffer) => (out += d.toString()));
	const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
	return { proc, output: () => out, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bot's messages in a narrow after `after`, oldest first. */
async function botReplies(c: Client, bot: Account, narrow: unknown[], after: number): Promise<Message[]> {
	const res = await c.get("/messages", { anchor: after, include_anchor: false, num_before: 0, num_after: 100, apply_markdown: false, narrow: JSON.stringify(narrow) });
	expectSuccess(res);
	return (res.body.messages as Message[]).filter((m) => m.sender_id === bot.user_id);
}

/** Sends a command and waits for the bot's one reply to it (the bot answers in order, one at a time). */
async function command(c: Client, bot: Account, narrow: unknown[], send: Record<string, unknown>, botOutput: () => string): Promise<Message> {
	const id = await sendMessage(c, send);
	for (let i = 0; i < 600; i++) {
		const [reply] = await botReplies(c, bot, narrow, id);
		if (reply) return reply;
		await sleep(100);
	}
	throw new Error(`no reply to ${JSON.stringify(send)}; the bot printed:\n${botOutput()}`);
}

/**
 * Waits until a newly started bot hears messages: its queue is registered once it answers a
 * direct message. A prober's own conversation, so that replies to the probes sent before the
 * queue was there cannot be taken for another conversation's.
 */
async function waitForBot(prober: Client, bot: Account, output: () => string): Promise<void> {
	const narrow = [{ operator: "dm", operand: [bot.user_id] }];
	const first = await sendMessage(prober, { type: "direct", to: JSON.stringify([bot.user_id]), content: "pwd" });
	for (let i = 0; i < 600; i++) {
		if ((await botReplies(prober, bot, narrow, first - 1)).length) return;
		if (i % 20 === 19) await sendMessage(prober, { type: "direct", to: JSON.stringify([bot.user_id]), content: "pwd" });
		await sleep(100);
	}
	throw new Error(`the bot never answered; it printed:\n${output()}`);
}

test("zulip_bots' virtual_fs bot keeps a file system per conversation in bot storage, across a restart", async () => {
	const owner = await app.createUser({ full_name: "Fs Owner" });
	const colleague = await app.createUser({ full_name: "Fs Colleague" });
	const prober = await app.createUser({ full_name: "Fs Prober" });
	const bot = await app.createUser({ full_name: "Virtual FS", is_bot: true, bot_owner_id: owner.user_id });
	const [o, c, p, b] = [owner, colleague, prober, bot].map((a) => client(app.baseUrl, a));
	expectSuccess(await o.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: CHANNEL }]), principals: JSON.stringify([owner.user_id, colleague.user_id, bot.user_id]) }));
	const rc = zuliprc(bot, "virtual-fs-zuliprc");

	let running = startBot(rc);
	await waitForBot(p, bot, running.output);

	const channel = [
		{ operator: "channel", operand: CHANNEL },
		{ operator: "topic", operand: "files" },
	];
	const say = async (who: Client, whoAccount: Account, text: string, mention = "@**Virtual FS**") => {
		const reply = await command(who, bot, channel, { type: "stream", to: CHANNEL, topic: "files", content: `${mention} ${text}` }, running.output);
		// The reply goes to the same topic, addressed to the sender.
		expect(reply.subject).toBe("files");
		const prefix = `${whoAccount.email}:\n`;
		expect(reply.content.startsWith(prefix)).toBe(true);
		return reply.content.slice(prefix.length);
	};

	expect(await say(o, owner, "mkdir home")).toBe("directory created");
	expect(await say(o, owner, "write home/notes buy milk")).toBe("file written");
	expect(await say(o, owner, "read /home/notes")).toBe("buy milk");
	expect(await say(o, owner, "write /home/notes again")).toBe("ERROR: file already exists");
	expect(await say(o, owner, "mkdir /home/todo")).toBe("directory created");
	expect(await say(o, owner, "ls /home")).toBe("* /home/*notes*\n* /home/todo/");
	expect(await say(o, owner, "cd home")).toBe("Current path: /home/");
	// Zulip's mention with the user ID, as the compose box writes it when two users share a name.
	expect(await say(o, owner, "pwd", `@**Virtual FS|${bot.user_id}**`)).toBe("/home/");
	expect(await say(o, owner, "write todo/today write the tests")).toBe("file written");
	expect(await say(o, owner, "read todo/today")).toBe("write the tests");
	// Each user has a current directory of their own in the conversation's file system.
	expect(await say(c, colleague, "pwd")).toBe("/");
	expect(await say(c, colleague, "read home/notes")).toBe("buy milk");
	expect(await say(c, colleague, "rm /home/notes")).toBe("removed");
	expect(await say(o, owner, "ls")).toBe("* /home/todo/");
	expect(await say(o, owner, "frobnicate")).toBe("ERROR: unrecognized command");
	// A message that does not mention the bot first is not for it.
	const unmentioned = await sendMessage(o, { type: "stream", to: CHANNEL, topic: "files", content: "ls, said @**Virtual FS**" });

	// A direct message is a conversation of its own, with its own file system.
	const dm = [{ operator: "dm", operand: [bot.user_id] }];
	const direct = async (text: string) => {
		const reply = await command(o, bot, dm, { type: "direct", to: JSON.stringify([bot.user_id]), content: text }, running.output);
		return reply.content.slice(`${owner.email}:\n`.length);
	};
	expect(await direct("ls")).toBe("WARNING: directory is empty");
	expect(await direct("write /secret only between us")).toBe("file written");
	expect(await direct("ls /")).toBe("* /*secret*");
	expect(await botReplies(o, bot, channel, unmentioned)).toEqual([]);

	// Its storage: one entry per conversation (the channel's name; the direct message's
	// participants' addresses), each the file system as JSON.
	const storage = await b.get("/bot_storage");
	expectSuccess(storage);
	const keys = Object.keys(storage.body.storage);
	expect(keys).toContain(CHANNEL);
	// display_recipient lists a direct message's participants by user ID, as Zulip orders them.
	const dmKey = `${owner.email} ${bot.email}`;
	expect(owner.user_id).toBeLessThan(bot.user_id);
	expect(keys).toContain(dmKey);
	const channelFs = JSON.parse(storage.body.storage[CHANNEL]);
	expect(channelFs).toMatchObject({
		"/": { kind: "dir", fns: ["/home"] },
		"/home": { kind: "dir", fns: ["/home/todo"] },
		"/home/todo": { kind: "dir", fns: ["/home/todo/today"] },
		"/home/todo/today": { kind: "text", content: "write the tests" },
		user_paths: { [owner.email]: "/home", [colleague.email]: "/" },
	});
	expect(channelFs).not.toHaveProperty(["/home/notes"]);
	expect(JSON.parse(storage.body.storage[dmKey])).toMatchObject({ "/secret": { kind: "text", content: "only between us" } });

	// Ctrl+C stops it; started again, its storage reads back through zulip_bots' StateHandler
	// (GET /bot_storage with the key) as it left it, and it answers again. (The stock bot itself
	// starts a conversation's file system anew on its first message after a restart, on Zulip
	// too: StateHandler.contains looks only at what this process has read or written.)
	running.proc.kill("SIGINT");
	expect(await running.exited).toBe(0);
	const after = await b.get("/bot_storage");
	expect(after.body.storage).toEqual(storage.body.storage);
	running = startBot(rc);
	const { stdout } = await run(
		path.join(VENV, "python"),
		[
			"-c",
			`import json, sys, zulip
from zulip_bots.lib import ExternalBotHandler
handler = ExternalBotHandler(zulip.Client(config_file=sys.argv[1]), None, None)
print(json.dumps({"channel": handler.storage.get(sys.argv[2]), "dm": handler.storage.get(sys.argv[3])}))`,
			rc,
			CHANNEL,
			dmKey,
		],
		{ timeout: 60_000 },
	);
	expect(JSON.parse(stdout)).toEqual({ channel: channelFs, dm: JSON.parse(storage.body.storage[dmKey]) });
	await waitForBot(p, bot, running.output);
	running.proc.kill("SIGINT");
	expect(await running.exited).toBe(0);
});
