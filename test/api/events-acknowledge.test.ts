// GET /events' last_event_id as Zulip's event_queue.py judges it: the events up to it are dropped;
// one older than an event already dropped, or one the queue never had, is refused.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let alice: Account;
let c: Client;

beforeAll(async () => {
	app = await startTestApp();
	alice = await app.createUser({ full_name: "Alice" });
	c = client(app.baseUrl, alice);
});
afterAll(() => app.stop());

async function queueWithEvents(count: number): Promise<string> {
	const r = await c.post("/register", { event_types: JSON.stringify(["alert_words"]) });
	expectSuccess(r);
	for (let i = 0; i < count; i++) expectSuccess(await c.post("/users/me/alert_words", { alert_words: JSON.stringify([`word${i}`]) }));
	return r.body.queue_id as string;
}

const poll = (queue_id: string, last_event_id: number) => c.get("/events", { queue_id, last_event_id, dont_block: true });
const eventIds = (r: { body: { events: Array<{ id: number }> } }) => r.body.events.map((e) => e.id);

test("the events after last_event_id; those up to it are dropped for good", async () => {
	const q = await queueWithEvents(3);
	let r = await poll(q, -1);
	expectSuccess(r);
	expect(eventIds(r)).toEqual([0, 1, 2]);
	// Asking again without acknowledging anything gives the same events.
	expect(eventIds(await poll(q, -1))).toEqual([0, 1, 2]);
	r = await poll(q, 1);
	expect(eventIds(r)).toEqual([2]);
	// The same acknowledgement again is fine: nothing newer was dropped.
	expect(eventIds(await poll(q, 1))).toEqual([2]);
	expectError(await poll(q, 0), 400, "BAD_REQUEST", "An event newer than 0 has already been pruned!");
	expectError(await poll(q, -1), 400, "BAD_REQUEST", "An event newer than -1 has already been pruned!");
	r = await poll(q, 2);
	expectSuccess(r);
	expect(r.body.events).toEqual([]);
});

test("a last_event_id the queue never had is refused, after dropping what it acknowledges (as Zulip)", async () => {
	const fresh = await queueWithEvents(0);
	expectError(await poll(fresh, 0), 400, "BAD_REQUEST", "Event 0 was not in this queue");
	expect((await poll(fresh, -1)).body.events).toEqual([]);

	const q = await queueWithEvents(2);
	expectError(await poll(q, 7), 400, "BAD_REQUEST", "Event 7 was not in this queue");
	// Events 0 and 1 went with it: the queue now starts after 1.
	expectError(await poll(q, 0), 400, "BAD_REQUEST", "An event newer than 0 has already been pruned!");
	const r = await poll(q, 1);
	expectSuccess(r);
	expect(r.body.events).toEqual([]);
	expectSuccess(await c.post("/users/me/alert_words", { alert_words: JSON.stringify(["later"]) }));
	expect(eventIds(await poll(q, 1))).toEqual([2]);
});

test("a long poll acknowledges before it waits", async () => {
	const q = await queueWithEvents(1);
	const waiting = c.get("/events", { queue_id: q, last_event_id: 0 });
	await new Promise((resolve) => setTimeout(resolve, 200));
	expectSuccess(await c.post("/users/me/alert_words", { alert_words: JSON.stringify(["wake"]) }));
	const r = await waiting;
	expectSuccess(r);
	expect(eventIds(r)).toEqual([1]);
	expectError(await poll(q, -1), 400, "BAD_REQUEST", "An event newer than -1 has already been pruned!");
});
