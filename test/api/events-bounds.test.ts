// Event queues are bounded in memory (EVENT_QUEUE_MAX_EVENTS, 5 here): a client that stops
// reading loses its queue once it holds that many unread events and another arrives, and gets
// BAD_EVENT_QUEUE_ID, so it registers again rather than missing events; a client that keeps
// reading is never limited.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";

const MAX = 5;
let app: TestApp;
let alice: Account;
let bob: Account;
let a: Client;
let b: Client;

beforeAll(async () => {
	app = await startTestApp({ eventQueueMaxEvents: MAX, eventsHeartbeatSeconds: 2 });
	[alice, bob] = [await app.createUser({ full_name: "Alice" }), await app.createUser({ full_name: "Bob" })];
	[a, b] = [alice, bob].map((u) => client(app.baseUrl, u));
});
afterAll(() => app.stop());

async function register(u: Client): Promise<string> {
	const r = await u.post("/register", { event_types: JSON.stringify(["message"]) });
	expectSuccess(r);
	return r.body.queue_id;
}

const dm = (n: number) => sendMessage(b, { type: "direct", to: JSON.stringify([alice.user_id]), content: `note ${n}` });

async function read(queue_id: string, last_event_id: number) {
	const r = await a.get("/events", { queue_id, last_event_id, dont_block: true });
	expectSuccess(r);
	return r.body.events as Array<{ id: number; message: { content: string } }>;
}

test("a queue that is not read is dropped at the bound; one that is read keeps every event", async () => {
	const slow = await register(a);
	const reader = await register(a);
	let last = -1;
	const contents: string[] = [];
	for (let n = 0; n < 4 * MAX; n++) {
		await dm(n);
		const events = await read(reader, last);
		last = events[events.length - 1].id;
		contents.push(...events.map((e) => e.message.content));
	}
	// The reader saw everything, in order, far past the bound.
	expect(contents).toEqual(Array.from({ length: 4 * MAX }, (_, n) => `note ${n}`));
	expect(contents.length).toBeGreaterThan(MAX);
	// The other queue held MAX unread events when the next came: it is gone, as an expired queue would be.
	const r = await a.get("/events", { queue_id: slow, last_event_id: -1, dont_block: true });
	expectError(r, 400, "BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${slow}`);
	expect(r.body.queue_id).toBe(slow);
	// Registering again starts afresh.
	const again = await register(a);
	await dm(99);
	expect((await read(again, -1)).map((e) => e.message.content)).toEqual(["note 99"]);
});

test("the bound counts events not yet acknowledged, whatever was fetched", async () => {
	const q = await register(a);
	for (let n = 0; n < MAX; n++) await dm(n);
	// Fetched but not acknowledged (last_event_id stays -1): still held, still counted.
	expect(await read(q, -1)).toHaveLength(MAX);
	await dm(MAX);
	expectError(await a.get("/events", { queue_id: q, last_event_id: -1, dont_block: true }), 400, "BAD_EVENT_QUEUE_ID");
});

test("a client long-polling an acknowledged queue is answered, never dropped", async () => {
	const q = await register(a);
	let last = -1;
	for (let round = 0; round < 3; round++) {
		const waiting = a.get("/events", { queue_id: q, last_event_id: last });
		await new Promise((r) => setTimeout(r, 100));
		for (let n = 0; n < MAX; n++) await dm(round * MAX + n);
		const got = await waiting;
		expectSuccess(got);
		const events = got.body.events as Array<{ id: number }>;
		expect(events.length).toBeGreaterThan(0);
		last = events[events.length - 1].id;
		// Take whatever arrived after the poll returned.
		const rest = await read(q, last);
		if (rest.length) last = rest[rest.length - 1].id;
	}
	expect(last).toBe(3 * MAX - 1);
});
