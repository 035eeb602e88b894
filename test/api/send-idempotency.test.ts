// POST /messages with Zulip's queue_id and local_id pair: a retry (the first answer lost to a
// timeout) is answered the first message's ID instead of sending twice, per user and per pair,
// also when both copies arrive at once; the sender's queue named by queue_id gets local_message_id
// in its message event (Zulip's local echo), and no other queue does.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let alice: Account;
let bob: Account;
let a: Client;
let b: Client;

beforeAll(async () => {
	app = await startTestApp();
	[alice, bob] = [await app.createUser({ full_name: "Alice" }), await app.createUser({ full_name: "Bob" })];
	[a, b] = [alice, bob].map((u) => client(app.baseUrl, u));
	const owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "retries" }], principals: [alice.user_id, bob.user_id] }));
});
afterAll(() => app.stop());

/** The topic's messages as Bob sees them: IDs and contents, oldest first. */
async function topic(name: string) {
	const r = await b.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, apply_markdown: false, narrow: [["channel", "retries"], ["topic", name]] });
	expectSuccess(r);
	return (r.body.messages as Array<{ id: number; content: string }>).map((m) => ({ id: m.id, content: m.content }));
}

const send = (c: Client, params: Record<string, unknown>) => c.post("/messages", { type: "stream", to: "retries", ...params });

test("the same pair twice: one message, the same ID both times", async () => {
	const first = await send(a, { topic: "twice", content: "once only", queue_id: "q-1", local_id: "100.01" });
	expectSuccess(first);
	const again = await send(a, { topic: "twice", content: "once only", queue_id: "q-1", local_id: "100.01" });
	expectSuccess(again);
	expect(again.body.id).toBe(first.body.id);
	expect(await topic("twice")).toEqual([{ id: first.body.id, content: "once only" }]);
});

test("another local_id, another queue, the pair from another user, or only one of the two: separate messages", async () => {
	const ids = [];
	for (const [c, extra] of [
		[a, { queue_id: "q-2", local_id: "1" }],
		[a, { queue_id: "q-2", local_id: "2" }],
		[a, { queue_id: "q-3", local_id: "1" }],
		[b, { queue_id: "q-2", local_id: "1" }],
		[a, { queue_id: "q-2" }],
		[a, { queue_id: "q-2" }],
		[a, { local_id: "1" }],
		[a, { local_id: "1" }],
		[a, {}],
		[a, {}],
	] as const) {
		const r = await send(c, { topic: "separate", content: "same words", ...extra });
		expectSuccess(r);
		ids.push(r.body.id);
	}
	expect(new Set(ids).size).toBe(10);
	expect((await topic("separate")).map((m) => m.id)).toEqual(ids);
});

test("copies sent at the same moment: one message, every copy answered its ID, no stray rows", async () => {
	for (let round = 0; round < 4; round++) {
		const params = { topic: "concurrent", content: `round ${round}`, queue_id: "q-4", local_id: `${round}.01` };
		const answers = await Promise.all([send(a, params), send(a, params), send(a, params)]);
		for (const r of answers) expectSuccess(r);
		const id = answers[0].body.id;
		expect(answers.map((r) => r.body.id)).toEqual([id, id, id]);
		expect((await topic("concurrent")).filter((m) => m.content === `round ${round}`)).toEqual([{ id, content: `round ${round}` }]);
		// The copies that lost left no per-user rows behind: Bob's newest row is this message.
		const me = await b.get("/users/me");
		expect(me.body.max_message_id).toBe(id);
	}
});

test("local_id is a string, as in Zulip", async () => {
	expectError(await a.post("/messages", { type: "stream", to: "retries", topic: "bad", content: "x", queue_id: "q-5", local_id: 5 }, { json: true }), 400, "BAD_REQUEST");
	expect(await topic("bad")).toEqual([]);
});

test("the sender's queue named by queue_id gets local_message_id; the sender's other queues and the recipients do not", async () => {
	const register = async (c: Client) => {
		const r = await c.post("/register", { event_types: ["message"] });
		expectSuccess(r);
		return r.body.queue_id as string;
	};
	const [mine, myOther, bobs] = [await register(a), await register(a), await register(b)];
	const sent = await send(a, { topic: "echo", content: "echoed", queue_id: mine, local_id: "7.01" });
	expectSuccess(sent);
	// The retry sends no second event.
	expectSuccess(await send(a, { topic: "echo", content: "echoed", queue_id: mine, local_id: "7.01" }));
	const eventsOf = async (c: Client, queue_id: string) => {
		const r = await c.get("/events", { queue_id, last_event_id: -1, dont_block: true });
		expectSuccess(r);
		return (r.body.events as Array<Record<string, any>>).filter((e) => e.type === "message");
	};
	const [own] = await eventsOf(a, mine);
	expect(own).toMatchObject({ type: "message", local_message_id: "7.01", message: { id: sent.body.id } });
	expect(await eventsOf(a, mine)).toHaveLength(1);
	for (const [c, q] of [[a, myOther], [b, bobs]] as const) {
		const got = await eventsOf(c, q);
		expect(got.map((e) => e.message.id)).toEqual([sent.body.id]);
		expect(got[0]).not.toHaveProperty("local_message_id");
	}
});
