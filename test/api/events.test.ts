// Real-time event queues (services/events): POST /register creates one, GET /events long-polls
// it, DELETE /events removes it; message, reaction, flag, draft and saved-snippet events reach
// exactly the queues whose users may see them, in the form each queue registered for.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";

let app: TestApp;
let alice: Account;
let bob: Account;
let carol: Account;
let a: Client;
let b: Client;
let c: Client;

beforeAll(async () => {
	app = await startTestApp({ eventsHeartbeatSeconds: 2, eventQueueTimeoutSeconds: 3 });
	[alice, bob, carol] = [await app.createUser({ full_name: "Alice" }), await app.createUser({ full_name: "Bob" }), await app.createUser({ full_name: "Carol" })];
	[a, b, c] = [alice, bob, carol].map((u) => client(app.baseUrl, u));
	expectSuccess(await a.post("/users/me/subscriptions", { subscriptions: [{ name: "open" }], principals: [alice.user_id, bob.user_id, carol.user_id] }));
	expectSuccess(await a.post("/users/me/subscriptions", { subscriptions: [{ name: "closed" }], invite_only: true, principals: [alice.user_id, bob.user_id] }));
});
afterAll(() => app.stop());

async function register(u: Client, params: Record<string, unknown> = {}): Promise<string> {
	const r = await u.post("/register", { fetch_event_types: ["message"], ...params });
	expectSuccess(r);
	expect(r.body).toMatchObject({ queue_id: expect.any(String), last_event_id: -1 });
	return r.body.queue_id;
}

async function events(u: Client, queue_id: string, last_event_id = -1, dont_block = true) {
	const r = await u.get("/events", { queue_id, last_event_id, dont_block });
	expectSuccess(r);
	return r.body.events as Array<Record<string, any>>;
}

describe("queues", () => {
	test("an empty queue answers at once with dont_block, and with a heartbeat after a period without", async () => {
		const q = await register(a);
		expect(await events(a, q)).toEqual([]);
		const started = Date.now();
		const polled = await events(a, q, -1, false);
		expect(polled).toEqual([{ type: "heartbeat", id: 0 }]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
		// Acknowledged events are dropped.
		expect(await events(a, q, 0)).toEqual([]);
	});

	test("a waiting GET /events returns as soon as an event arrives", async () => {
		const q = await register(b);
		const waiting = events(b, q, -1, false);
		await new Promise((r) => setTimeout(r, 200));
		const id = await sendMessage(a, { type: "direct", to: JSON.stringify([bob.user_id]), content: "wake up" });
		// The message, not the heartbeat a wait that was not woken would end with.
		expect(await waiting).toMatchObject([{ type: "message", id: 0, message: { id, content: "wake up" }, flags: [] }]);
	});

	test("unknown, foreign, deleted and expired queues are BAD_EVENT_QUEUE_ID with the queue ID", async () => {
		const r = await a.get("/events", { queue_id: "nope:1", last_event_id: -1 });
		expectError(r, 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: nope:1");
		expect(r.body.queue_id).toBe("nope:1");
		const q = await register(a);
		expectError(await b.get("/events", { queue_id: q, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
		expectError(await b.delete("/events", { queue_id: q }), 400, "BAD_EVENT_QUEUE_ID");
		expectSuccess(await a.delete("/events", { queue_id: q }));
		expectError(await a.get("/events", { queue_id: q, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
		// Nobody reads this one: it expires after the idle timeout (3 s here).
		const idle = await register(a);
		await new Promise((r) => setTimeout(r, 4500));
		expectError(await a.get("/events", { queue_id: idle, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
	});

	test("bad parameters", async () => {
		const q = await register(a);
		expectError(await a.get("/events", { queue_id: q, last_event_id: "x" }), 400, "BAD_REQUEST");
		expectError(await a.get("/events", { queue_id: q, last_event_id: -1, dont_block: "maybe" }), 400, "BAD_REQUEST");
		// Zulip's fetch_events: a JsonableError, before the queue is looked up.
		for (const queue_id of [q, "nope:1"]) {
			const missing = await a.get("/events", { queue_id, dont_block: true });
			expectError(missing, 400, "BAD_REQUEST", "Missing 'last_event_id' argument");
			expect(missing.body).toEqual({ result: "error", msg: "Missing 'last_event_id' argument", code: "BAD_REQUEST" });
		}
		expectError(await a.post("/register", { narrow: JSON.stringify([5]) }), 400, "BAD_REQUEST");
		expectError(await client(app.baseUrl, null).get("/events", { queue_id: q, last_event_id: -1 }), 401, "UNAUTHORIZED");
	});
});

describe("GET /events without queue_id (Zulip's queue made on the fly)", () => {
	test("without dont_block it is Zulip's JsonableError, whatever else is sent", async () => {
		for (const params of [{}, { last_event_id: -1 }, { dont_block: false }, { dont_block: false, narrow: [["colour", "blue"]] }]) {
			const r = await a.get("/events", params);
			expectError(r, 400, "BAD_REQUEST", "Missing 'queue_id' argument");
			expect(r.body).toEqual({ result: "error", msg: "Missing 'queue_id' argument", code: "BAD_REQUEST" });
		}
	});

	test("with dont_block it answers at once with a new queue of this replica, which then works as a registered one", async () => {
		const r = await b.get("/events", { dont_block: true, slim_presence: true, user_client: "internal" });
		expectSuccess(r);
		expect(r.body).toEqual({ result: "success", msg: "", events: [], queue_id: expect.any(String) });
		const q: string = r.body.queue_id;
		expect(q.startsWith(`${app.node.broker.nodeID}:`)).toBe(true);
		const id = await sendMessage(a, { type: "direct", to: JSON.stringify([bob.user_id]), content: "to the new queue" });
		// apply_markdown defaults to false, as at POST /register.
		expect(await events(b, q)).toMatchObject([{ type: "message", id: 0, message: { id, content: "to the new queue", content_type: "text/x-markdown" } }]);
		// Another user cannot read it; its owner deletes it.
		expectError(await c.get("/events", { queue_id: q, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
		expectSuccess(await b.delete("/events", { queue_id: q }));
		expectError(await b.get("/events", { queue_id: q, last_event_id: 0, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
	});

	test("the new queue takes event_types, narrow and apply_markdown", async () => {
		const make = async (params: Record<string, unknown>) => {
			const r = await b.get("/events", { dont_block: true, ...params });
			expectSuccess(r);
			return r.body.queue_id as string;
		};
		const reactionsOnly = await make({ event_types: ["reaction"] });
		const openOnly = await make({ narrow: [["channel", "open"]], apply_markdown: true });
		const inOpen = await sendMessage(a, { type: "stream", to: "open", topic: "t", content: "**one**" });
		await sendMessage(a, { type: "direct", to: JSON.stringify([bob.user_id]), content: "two" });
		expect(await events(b, reactionsOnly)).toEqual([]);
		const got = await events(b, openOnly);
		expect(got.map((e) => e.message.id)).toEqual([inOpen]);
		expect(got[0].message.content).toBe("<p><strong>one</strong></p>");
	});

	test("lifespan_secs sets how long it lives unread, shorter or longer than the idle timeout", async () => {
		const make = async (lifespan_secs?: number) => (await a.get("/events", { dont_block: true, lifespan_secs })).body.queue_id as string;
		const [short, long, usual] = [await make(1), await make(60), await make()];
		// The idle timeout is 3 s here.
		await new Promise((r) => setTimeout(r, 4500));
		expectError(await a.get("/events", { queue_id: short, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
		expectError(await a.get("/events", { queue_id: usual, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
		expect(await events(a, long)).toEqual([]);
	});

	test("bad options are refused as Zulip refuses them", async () => {
		const bad: Array<[Record<string, unknown>, string]> = [
			[{ narrow: [["colour", "blue"]] }, "Operator colour not supported."],
			[{ narrow: [["is", "followed"]] }, "Operand followed not supported."],
			[{ narrow: [["channel"]] }, "Invalid narrow"],
			[{ narrow: [5] }, "narrow[0] is not a list"],
			[{ narrow: [{ operator: "channel", operand: "open" }] }, "narrow[0] is not a list"],
			[{ lifespan_secs: -1 }, "Invalid lifespan_secs"],
			[{ event_types: "message" }, 'Argument "event_types" is not valid JSON.'],
			[{ apply_markdown: "yes" }, "apply_markdown is not a boolean"],
		];
		for (const [params, msg] of bad) expectError(await a.get("/events", { dont_block: true, ...params }), 400, "BAD_REQUEST", msg);
	});

	test("POST /register checks its queue's narrow the same way, and takes queue_lifespan_secs", async () => {
		const bad: Array<[Record<string, unknown>, string]> = [
			[{ narrow: JSON.stringify([["colour", "blue"]]) }, "Operator colour not supported."],
			[{ narrow: JSON.stringify([{ operator: "search", operand: "x" }]) }, "Operator search not supported."],
			[{ narrow: JSON.stringify([["is", "followed"]]) }, "Operand followed not supported."],
			[{ queue_lifespan_secs: -1 }, "Invalid queue_lifespan_secs"],
			[{ queue_lifespan_secs: "soon" }, "queue_lifespan_secs is not an integer"],
		];
		for (const [params, msg] of bad) expectError(await a.post("/register", { fetch_event_types: JSON.stringify(["realm_user"]), ...params }), 400, "BAD_REQUEST", msg);
		const make = async (queue_lifespan_secs: number) => {
			const r = await a.post("/register", { fetch_event_types: JSON.stringify(["realm_user"]), narrow: JSON.stringify([{ operator: "channel", operand: "open" }]), queue_lifespan_secs });
			expectSuccess(r);
			return r.body.queue_id as string;
		};
		const [short, long] = [await make(1), await make(60)];
		// The idle timeout is 3 s here.
		await new Promise((r) => setTimeout(r, 4500));
		expectError(await a.get("/events", { queue_id: short, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
		expect(await events(a, long)).toEqual([]);
	});

	test("all_public_streams is refused to a guest, with or without a queue_id, as Zulip's view does", async () => {
		const guest = client(app.baseUrl, await app.createUser({ role: 600 }));
		expectError(await guest.get("/events", { dont_block: true, all_public_streams: true }), 400, "BAD_REQUEST", "User not authorized for this query");
		const q = (await guest.post("/register", {})).body.queue_id as string;
		expectError(await guest.get("/events", { queue_id: q, last_event_id: -1, dont_block: true, all_public_streams: true }), 400, "BAD_REQUEST", "User not authorized for this query");
		// A member may.
		const r = await a.get("/events", { dont_block: true, all_public_streams: true });
		expectSuccess(r);
		const id = await sendMessage(b, { type: "stream", to: "open", topic: "pub", content: "public" });
		expect((await events(a, r.body.queue_id)).map((e) => e.message.id)).toEqual([id]);
	});
});

describe("message events", () => {
	test("each recipient's queue gets the message with their flags; others get nothing", async () => {
		const [qa, qb, qc] = [await register(a, { apply_markdown: true }), await register(b), await register(c)];
		const id = await sendMessage(a, { type: "stream", to: "closed", topic: "plans", content: "hi @**Bob**" });
		const [ea] = await events(a, qa);
		expect(ea).toMatchObject({ type: "message", flags: ["read"], message: { id, type: "stream", display_recipient: "closed", subject: "plans", sender_id: alice.user_id, content_type: "text/html" } });
		expect(ea.message.content).toContain("user-mention");
		expect(ea.message.flags).toBeUndefined();
		const [eb] = await events(b, qb);
		expect(eb).toMatchObject({ type: "message", flags: ["mentioned"], message: { id, content: "hi @**Bob**", content_type: "text/x-markdown" } });
		expect(await events(c, qc)).toEqual([]);
	});

	test("event_types and narrow filter a queue's messages", async () => {
		const onlyReactions = await register(b, { event_types: JSON.stringify(["reaction"]) });
		const openOnly = await register(b, { narrow: JSON.stringify([["channel", "open"]]) });
		const dmsOnly = await register(b, { narrow: JSON.stringify([{ operator: "is", operand: "dm" }]) });
		const inOpen = await sendMessage(a, { type: "stream", to: "open", topic: "t", content: "one" });
		const dm = await sendMessage(a, { type: "direct", to: JSON.stringify([bob.user_id]), content: "two" });
		expect(await events(b, onlyReactions)).toEqual([]);
		expect((await events(b, openOnly)).map((e) => e.message.id)).toEqual([inOpen]);
		expect((await events(b, dmsOnly)).map((e) => e.message.id)).toEqual([dm]);
	});
});

describe("other events", () => {
	test("reactions reach everyone who has the message; flags, drafts and snippets reach their user", async () => {
		const id = await sendMessage(a, { type: "stream", to: "open", topic: "react", content: "react to me" });
		const [qa, qb, qc] = [await register(a), await register(b), await register(c)];
		expectSuccess(await b.post(`/messages/${id}/reactions`, { emoji_name: "+1" }));
		const reaction = { type: "reaction", op: "add", user_id: bob.user_id, message_id: id, emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" };
		for (const [u, q] of [[a, qa], [b, qb], [c, qc]] as const) expect(await events(u, q)).toMatchObject([reaction]);

		expectSuccess(await c.post("/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "starred" }));
		expect(await events(c, qc, 0)).toEqual([{ type: "update_message_flags", id: 1, op: "add", operation: "add", flag: "starred", messages: [id], all: false }]);
		expect(await events(a, qa, 0)).toEqual([]);

		const draft = await c.post("/drafts", { drafts: JSON.stringify([{ type: "private", to: [bob.user_id], topic: "", content: "draft", timestamp: 1700000000 }]) });
		expectSuccess(draft);
		expect(await events(c, qc, 1)).toMatchObject([{ type: "drafts", op: "add", drafts: [{ id: draft.body.ids[0], content: "draft" }] }]);

		const snippet = await c.post("/saved_snippets", { title: "Hi", content: "Hello there" });
		expectSuccess(snippet);
		expect(await events(c, qc, 2)).toMatchObject([{ type: "saved_snippets", op: "add", saved_snippet: { id: snippet.body.saved_snippet_id, title: "Hi" } }]);
	});
});

describe("reactions in a private channel", () => {
	test("reach its subscribers, not the others; removal too", async () => {
		const id = await sendMessage(a, { type: "stream", to: "closed", topic: "react", content: "private reaction" });
		const [qa, qb, qc] = [await register(a), await register(b), await register(c)];
		expectSuccess(await b.post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		expectSuccess(await b.delete(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		const reaction = { user_id: bob.user_id, message_id: id, emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" };
		for (const [u, q] of [[a, qa], [b, qb]] as const) {
			expect(await events(u, q)).toEqual([
				{ type: "reaction", id: 0, op: "add", ...reaction, user: { user_id: bob.user_id, email: bob.email, full_name: "Bob" } },
				{ type: "reaction", id: 1, op: "remove", ...reaction, user: { user_id: bob.user_id, email: bob.email, full_name: "Bob" } },
			]);
		}
		expect(await events(c, qc)).toEqual([]);
	});
});

describe("a real Zulip client", () => {
	test("a bot using the Python client's call_on_each_message answers a message another user sends", async () => {
		const bot = await app.createUser({ full_name: "Echo Bot" });
		const rc = path.join(app.dataDir, "bot-zuliprc");
		fs.writeFileSync(rc, `[api]\nemail=${bot.email}\nkey=${bot.api_key}\nsite=${new URL(app.baseUrl).origin}\n`);
		const script = `
import os, sys, zulip
c = zulip.Client(config_file=sys.argv[1], client="EchoBot")
def answer(m):
    if m["sender_email"] != c.email:
        c.send_message({"type": "private", "to": [m["sender_email"]], "content": "echo: " + m["content"]})
        os._exit(0)
c.call_on_each_message(answer)
`;
		const python = path.resolve(__dirname, "../../node_modules/.cache/zulip-python/bin/python");
		const botRun = promisify(execFile)(python, ["-c", script, rc], { timeout: 60_000 });
		// The bot registers when it starts: send until its queue hears one.
		const answered = async () => {
			const r = await a.get("/messages", { anchor: "newest", num_before: 5, num_after: 0, apply_markdown: false, narrow: JSON.stringify([{ operator: "dm", operand: [bot.user_id] }]) });
			return (r.body.messages as Array<{ content: string; sender_id: number }>).find((m) => m.sender_id === bot.user_id);
		};
		let reply: { content: string } | undefined;
		for (let i = 0; i < 40 && !reply; i++) {
			if (i % 5 === 0) await sendMessage(a, { type: "direct", to: JSON.stringify([bot.user_id]), content: `ping ${i}` });
			await new Promise((r) => setTimeout(r, 250));
			reply = await answered();
		}
		await botRun;
		expect(reply?.content).toMatch(/^echo: ping \d+$/);
	});
});
