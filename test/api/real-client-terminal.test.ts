// zulip-terminal (PyPI `zulip-term`, installed by test/support/prerequisites.sh), the terminal
// client, run as a person runs it: in a terminal of 120x40, from a zuliprc. It must reach its
// main view (the channel and its messages drawn, and in its user list those online), draw a
// message another user sends meanwhile (its event queue), send a reply typed into it, open a
// direct-message conversation from its user list (its ["pm_with", email] narrow) and write in it,
// and quit cleanly on Ctrl+C.
import fs from "node:fs";
import path from "node:path";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectSuccess, sendMessage } from "../support/http";
import { runInTerminal, type Terminal } from "../support/terminal";

const VENV = path.resolve(__dirname, "../../node_modules/.cache/zulip-python/bin");
// The race shows in whichever of its background threads redraws first: the user list's or the
// presence reporter's (both call update_screen before the main loop has made its pipe).
const KNOWN_START_RACE = /(?:Exception in thread )?[^\n]*\((?:update_user_list|_start_presence_updates)\):[\s\S]*?assert hasattr\(self, "_update_pipe"\)\s*AssertionError/g;

let app: TestApp;
let term: Terminal | undefined;
beforeAll(async () => {
	// Short heartbeats: the app stops once the client's pending GET /events has answered.
	app = await startTestApp({ eventsHeartbeatSeconds: 5 });
});
afterAll(async () => {
	term?.kill();
	await app.stop();
});

test("zulip-terminal starts, shows a channel's messages, draws a new one, sends a reply, writes to a user and quits", async () => {
	const me = await app.createUser({ full_name: "Terminal User" });
	const friend = await app.createUser({ full_name: "Friend" });
	const [m, f] = [client(app.baseUrl, me), client(app.baseUrl, friend)];
	// The user list shows who has reported presence (POST /users/me/presence), not the others.
	const online = await app.createUser({ full_name: "Online Olive" });
	await app.createUser({ full_name: "Offline Oscar" });
	expectSuccess(await client(app.baseUrl, online).post("/users/me/presence", { status: "active" }));
	expectSuccess(await m.post("/users/me/subscriptions", { subscriptions: [{ name: "terminal-test" }], principals: [me.user_id, friend.user_id] }));
	await sendMessage(m, { type: "stream", to: "terminal-test", topic: "greetings", content: "first words from me" });
	await sendMessage(f, { type: "stream", to: "terminal-test", topic: "greetings", content: "a **greeting** from a friend" });
	// Nothing unread: the client then starts on the newest message, the friend's.
	expectSuccess(await m.post("/mark_all_as_read"));

	const cwd = fs.mkdtempSync(path.join(app.dataDir, "terminal-"));
	const rc = path.join(cwd, "zuliprc");
	fs.writeFileSync(rc, `[api]\nemail=${me.email}\nkey=${me.api_key}\nsite=${new URL(app.baseUrl).origin}\n`, { mode: 0o600 });
	term = runInTerminal(path.join(VENV, "python"), [path.join(VENV, "zulip-term"), "-c", rc], { cols: 120, rows: 40, cwd });

	// The main view: the title bar with the user, the channel in the left panel, its messages.
	await term.waitFor((t) => t.includes(`Terminal User (${me.email})`) && t.includes("# terminal-test") && t.includes("first words from me") && t.includes("a greeting from a friend"), { timeoutMs: 60_000 });
	await term.waitFor("Online Olive");
	expect(term.text()).not.toContain("Offline Oscar");

	// A message sent now reaches it through its event queue.
	await sendMessage(f, { type: "stream", to: "terminal-test", topic: "greetings", content: "live through the event queue" });
	await term.waitFor("live through the event queue");

	// Right moves from the left panel to the messages; r replies to the focused one; Ctrl+D sends.
	term.type("\x1b[C");
	const beforeReply = term.mark();
	term.type("r");
	// The compose box opens on the message's channel and topic.
	await term.waitFor(/terminal-test.*greetings/, { since: beforeReply });
	term.type("typed in the terminal");
	term.type("\x04");
	let sent: { content: string; client: string } | undefined;
	for (const end = Date.now() + 60_000; !sent && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
		const r = await f.get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "channel", operand: "terminal-test" }, { operator: "topic", operand: "greetings" }] });
		sent = (r.body.messages as Array<{ content: string; client: string; sender_id: number }>).find((msg) => msg.sender_id === me.user_id && msg.content.includes("typed in the terminal"));
	}
	expect(sent).toMatchObject({ content: "<p>typed in the terminal</p>", client: "ZulipTerminal" });

	// A direct-message conversation: w searches the user list, Enter picks Olive and opens the
	// conversation, which the client fetches with its legacy narrow [["pm_with", email]] (refused
	// here before with "Invalid narrow operator"), and a compose box to her; Ctrl+D sends.
	const olive = (await f.get("/users")).body.members.find((u: { full_name: string }) => u.full_name === "Online Olive");
	// Keys apart, as typed: an Escape straight before a key reads as Meta with it.
	const pause = () => new Promise((r) => setTimeout(r, 500));
	term.type("\x1b");
	await pause();
	term.type("w");
	await pause();
	term.type("Olive");
	await pause();
	const beforeDm = term.mark();
	term.type("\r");
	await pause();
	term.type("\r");
	await term.waitFor(/Online Olive/, { since: beforeDm });
	term.type("a direct word from the terminal");
	term.type("\x04");
	let direct: { content: string; display_recipient: Array<{ id: number }> } | undefined;
	for (const end = Date.now() + 60_000; !direct && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
		const r = await client(app.baseUrl, online).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [["dm", me.email]] });
		direct = (r.body.messages as Array<{ content: string; sender_id: number; display_recipient: Array<{ id: number }> }>).find((msg) => msg.sender_id === me.user_id);
	}
	expect(direct?.content).toBe("<p>a direct word from the terminal</p>");
	expect(direct?.display_recipient.map((u) => u.id).sort()).toEqual([me.user_id, olive.user_id].sort());
	expect(term.text(beforeDm)).not.toContain("Invalid narrow");

	// Ctrl+C: it deletes its event queue and leaves (zulip-terminal 0.7.0 always exits with status 1).
	term.type("\x03");
	await term.exited();
	// zulip-terminal 0.7.0 has a start-up race of its own: when the answer to its first presence
	// report comes back after its view exists but before its main loop does, the user list's
	// redraw fails an assertion in a background thread, which ends; the client runs on (as it
	// would against any fast server). That traceback is allowed (from either thread), no other.
	const output = term.text().replace(KNOWN_START_RACE, "");
	expect(output).not.toMatch(/Traceback|has crashed|An exception occurred|error/i);
	expect(fs.readdirSync(cwd).filter((name) => name.endsWith(".log"))).toEqual([]);
}, 120_000);
