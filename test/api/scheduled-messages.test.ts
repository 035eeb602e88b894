// Scheduled messages through HTTP: creating, listing, editing and deleting with Zulip's errors
// for every bad input (nothing changes), POST /register, delivery at the scheduled time by the
// sender, failure when the sender lost access, and exactly-once delivery with two scheduling
// replicas (a second node running only `scheduling`, joined over Moleculer's in-process Fake
// transporter) racing for the same messages.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { startNode, type RunningNode } from "../../services";
import type { Identity } from "../../shared/actions";

let app: TestApp;
let replica2: RunningNode;
let owner: Client;
let alice: Account;
let bob: Account;
let guest: Account;
const as = (a: Account) => client(app.baseUrl, a);
let general: number;
let vault: number;
let strict: number;

const SWEEP_MS = 300;
const later = (seconds = 3600) => Math.floor(Date.now() / 1000) + seconds;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listOf(c: Client) {
	const res = await c.get("/scheduled_messages");
	expectSuccess(res);
	return res.body.scheduled_messages;
}

async function topicMessages(c: Client, channelId: number, topic: string) {
	const res = await c.get("/messages", {
		anchor: "newest",
		num_before: 100,
		num_after: 0,
		narrow: [
			{ operator: "channel", operand: channelId },
			{ operator: "topic", operand: topic },
		],
	});
	expectSuccess(res);
	return res.body.messages;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
	const until = Date.now() + ms;
	for (;;) {
		const v = await probe();
		if (v !== undefined) return v;
		if (Date.now() > until) throw new Error("timed out");
		await sleep(100);
	}
}

beforeAll(async () => {
	app = await startTestApp({ transporter: "Fake", schedulingSweepMs: SWEEP_MS });
	replica2 = await startNode({ ...app.node.config, services: ["scheduling"] }, "replica2");
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ full_name: "Guest", role: 600 });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true, principals: [alice.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "strict" }], topics_policy: "disable_empty_topic", principals: [alice.user_id] }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	vault = (await owner.get("/get_stream_id", { stream: "vault" })).body.stream_id;
	strict = (await owner.get("/get_stream_id", { stream: "strict" })).body.stream_id;
}, 60_000);
afterAll(async () => {
	await replica2?.stop();
	await app.stop();
});

describe("create, list, edit, delete", () => {
	test("a channel message and a direct message, listed in Zulip's shape, soonest first, per user", async () => {
		const t1 = later(7200);
		const t2 = later(3600);
		const a = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "plans", content: "**Hello**", scheduled_delivery_timestamp: t1 });
		expectSuccess(a);
		const b = await as(alice).post("/scheduled_messages", { type: "direct", to: [bob.user_id], content: "psst", scheduled_delivery_timestamp: t2 });
		expectSuccess(b);
		expect(await listOf(as(alice))).toEqual([
			{ scheduled_message_id: b.body.scheduled_message_id, type: "private", to: [bob.user_id], content: "psst", rendered_content: "<p>psst</p>", scheduled_delivery_timestamp: t2, failed: false },
			{
				scheduled_message_id: a.body.scheduled_message_id,
				type: "stream",
				to: general,
				topic: "plans",
				content: "**Hello**",
				rendered_content: "<p><strong>Hello</strong></p>",
				scheduled_delivery_timestamp: t1,
				failed: false,
			},
		]);
		expect(await listOf(as(bob))).toEqual([]);
		const reg = await as(alice).post("/register", { fetch_event_types: ["scheduled_messages"] });
		expectSuccess(reg);
		expect(reg.body.scheduled_messages).toEqual(await listOf(as(alice)));
		for (const id of [a.body.scheduled_message_id, b.body.scheduled_message_id]) expectSuccess(await as(alice).delete(`/scheduled_messages/${id}`));
		expect(await listOf(as(alice))).toEqual([]);
	});

	test("aliases, JSON bodies, `(no topic)` as the empty topic, and a message to oneself", async () => {
		const res = await as(alice).post("/scheduled_messages", { type: "channel", to: [general], topic: "(no topic)", content: "x", scheduled_delivery_timestamp: later() }, { json: true });
		expectSuccess(res);
		const self = await as(alice).post("/scheduled_messages", { type: "private", to: JSON.stringify([alice.user_id]), content: "note", scheduled_delivery_timestamp: later() });
		expectSuccess(self);
		const listed = await listOf(as(alice));
		expect(listed.find((m: any) => m.scheduled_message_id === res.body.scheduled_message_id)).toMatchObject({ type: "stream", to: general, topic: "" });
		expect(listed.find((m: any) => m.scheduled_message_id === self.body.scheduled_message_id)).toMatchObject({ type: "private", to: [alice.user_id] });
		for (const m of listed) expectSuccess(await as(alice).delete(`/scheduled_messages/${m.scheduled_message_id}`));
	});

	test("every bad creation gets Zulip's error and stores nothing", async () => {
		const good = { type: "stream", to: general, topic: "t", content: "hi", scheduled_delivery_timestamp: later() };
		const cases: Array<[Record<string, unknown>, number, string, string | RegExp | undefined, Account?]> = [
			[{ ...good, type: "carrier-pigeon" }, 400, "BAD_REQUEST", undefined],
			[{ ...good, content: undefined }, 400, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument"],
			[{ ...good, to: undefined }, 400, "REQUEST_VARIABLE_MISSING", "Missing 'to' argument"],
			[{ ...good, scheduled_delivery_timestamp: undefined }, 400, "REQUEST_VARIABLE_MISSING", "Missing 'scheduled_delivery_timestamp' argument"],
			[{ ...good, scheduled_delivery_timestamp: "soon" }, 400, "BAD_REQUEST", "scheduled_delivery_timestamp is not an integer"],
			[{ ...good, scheduled_delivery_timestamp: later(-60) }, 400, "BAD_REQUEST", "Scheduled delivery time must be in the future."],
			[{ ...good, scheduled_delivery_timestamp: 10 ** 15 }, 400, "BAD_REQUEST", undefined],
			[{ ...good, read_by_sender: "maybe" }, 400, "BAD_REQUEST", "read_by_sender is not a boolean"],
			[{ ...good, to: 999_999 }, 400, "STREAM_DOES_NOT_EXIST", "Channel with ID '999999' does not exist"],
			[{ ...good, to: vault }, 400, "STREAM_DOES_NOT_EXIST", undefined, bob],
			[{ ...good, to: general }, 400, "STREAM_DOES_NOT_EXIST", undefined, guest],
			[{ ...good, to: [general, vault] }, 400, "BAD_REQUEST", undefined],
			[{ ...good, to: "general" }, 400, "BAD_REQUEST", "Invalid data type for channel"],
			[{ ...good, type: "direct", to: [999_999] }, 400, "BAD_REQUEST", /Invalid user ID/],
			[{ ...good, type: "direct", to: ["bob@chat.test"] }, 400, "BAD_REQUEST", "Invalid data type for recipients"],
			[{ ...good, topic: "x".repeat(61) }, 400, "BAD_REQUEST", "Topic too long (limit: 60 characters)"],
			[{ ...good, content: "x".repeat(10_001) }, 400, "BAD_REQUEST", "Message too long (limit: 10000 characters)"],
			[{ ...good, content: "   " }, 400, "BAD_REQUEST", "Message must not be empty"],
			[{ ...good, to: strict, topic: "(no topic)" }, 400, "BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel."],
			[{ ...good, to: strict, topic: "" }, 400, "BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel."],
		];
		for (const [body, status, code, msg, who] of cases) {
			const res = await as(who ?? alice).post("/scheduled_messages", body);
			expectError(res, status, code, msg);
			if (code === "STREAM_DOES_NOT_EXIST") expect(typeof res.body.stream_id).toBe("number");
			expect(await listOf(as(who ?? alice))).toEqual([]);
		}
	});

	test("editing: any subset of the fields, Zulip's rules for changing type, every error changing nothing", async () => {
		const t = later();
		const id = (await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "a", content: "one", scheduled_delivery_timestamp: t })).body.scheduled_message_id;
		const before = await listOf(as(alice));
		const errors: Array<[Record<string, unknown>, number, string, string | RegExp | undefined, Account?, number?]> = [
			[{}, 400, "BAD_REQUEST", "Nothing to change"],
			[{ type: "direct" }, 400, "BAD_REQUEST", "Recipient required when updating type of scheduled message."],
			[{ type: "channel", to: vault }, 400, "BAD_REQUEST", "Topic required when updating scheduled message type to stream."],
			[{ scheduled_delivery_timestamp: later(-5) }, 400, "BAD_REQUEST", "Scheduled delivery time must be in the future."],
			[{ content: "" }, 400, "BAD_REQUEST", "Message must not be empty"],
			[{ topic: "y".repeat(61) }, 400, "BAD_REQUEST", "Topic too long (limit: 60 characters)"],
			[{ type: "stream", to: 999_999, topic: "z" }, 400, "STREAM_DOES_NOT_EXIST", undefined],
			[{ type: "direct", to: [999_999] }, 400, "BAD_REQUEST", /Invalid user ID/],
			[{ to: strict, topic: "" }, 400, "BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel."],
			[{ type: "whatever", to: general }, 400, "BAD_REQUEST", undefined],
			[{ content: "mine" }, 404, "BAD_REQUEST", "Scheduled message does not exist", bob],
			[{ content: "gone" }, 404, "BAD_REQUEST", "Scheduled message does not exist", alice, 999_999],
		];
		for (const [body, status, code, msg, who, target] of errors) {
			expectError(await as(who ?? alice).patch(`/scheduled_messages/${target ?? id}`, body), status, code, msg);
			expect(await listOf(as(alice))).toEqual(before);
		}
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { content: "*two*" }));
		expect((await listOf(as(alice)))[0]).toMatchObject({ topic: "a", content: "*two*", rendered_content: "<p><em>two</em></p>", scheduled_delivery_timestamp: t });
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { topic: "b", scheduled_delivery_timestamp: t + 60 }));
		expect((await listOf(as(alice)))[0]).toMatchObject({ topic: "b", content: "*two*", scheduled_delivery_timestamp: t + 60 });
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { type: "direct", to: [bob.user_id] }));
		expect((await listOf(as(alice)))[0]).toEqual({
			scheduled_message_id: id,
			type: "private",
			to: [bob.user_id],
			content: "*two*",
			rendered_content: "<p><em>two</em></p>",
			scheduled_delivery_timestamp: t + 60,
			failed: false,
		});
		// A topic alone is ignored for a direct message, as in Zulip.
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { topic: "ignored" }));
		expect((await listOf(as(alice)))[0]).not.toHaveProperty("topic");
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { type: "stream", to: general, topic: "back" }));
		expect((await listOf(as(alice)))[0]).toMatchObject({ type: "stream", to: general, topic: "back" });

		expectError(await as(bob).delete(`/scheduled_messages/${id}`), 404, "BAD_REQUEST", "Scheduled message does not exist");
		expectError(await as(alice).delete(`/scheduled_messages/999999`), 404, "BAD_REQUEST", "Scheduled message does not exist");
		expect(await listOf(as(alice))).toHaveLength(1);
		expectSuccess(await as(alice).delete(`/scheduled_messages/${id}`));
		expectError(await as(alice).delete(`/scheduled_messages/${id}`), 404, "BAD_REQUEST", "Scheduled message does not exist");
		expect(await listOf(as(alice))).toEqual([]);
	});
});

describe("delivery", () => {
	test("at the scheduled time the sender's message arrives, once, and leaves the list", async () => {
		const res = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "delivery", content: "on time", scheduled_delivery_timestamp: later(2) });
		expectSuccess(res);
		const [message] = await waitFor(async () => {
			const found = await topicMessages(as(bob), general, "delivery");
			return found.length ? found : undefined;
		});
		expect(message).toMatchObject({ sender_id: alice.user_id, content: "<p>on time</p>", subject: "delivery" });
		// Zulip's heuristic: not to oneself alone, so it starts read for the sender.
		const mine = await topicMessages(as(alice), general, "delivery");
		expect(mine[0].flags).toContain("read");
		expect(await listOf(as(alice))).toEqual([]);
		await sleep(SWEEP_MS * 4);
		expect(await topicMessages(as(bob), general, "delivery")).toHaveLength(1);
	});

	test("two replicas racing over the same due messages deliver each exactly once", async () => {
		const due = later(2);
		const ids: number[] = [];
		for (let i = 0; i < 5; i++) {
			const res = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "race", content: `race ${i}`, scheduled_delivery_timestamp: due });
			expectSuccess(res);
			ids.push(res.body.scheduled_message_id);
		}
		// Both nodes' timers run too; at the due time both replicas are also asked to sweep at once.
		await sleep(Math.max(0, due * 1000 - Date.now()) + 20);
		const sweeps = await Promise.all([
			app.node.broker.call<{ delivered: number[] }, { replica: string }>("scheduling.sweep", { replica: "a" }, { nodeID: app.node.broker.nodeID }),
			replica2.broker.call<{ delivered: number[] }, { replica: string }>("scheduling.sweep", { replica: "b" }, { nodeID: replica2.broker.nodeID }),
			app.node.broker.call<{ delivered: number[] }, { replica: string }>("scheduling.sweep", { replica: "c" }, { nodeID: replica2.broker.nodeID }),
		]);
		const claimedTwice = sweeps.flatMap((s) => s.delivered).filter((id, i, all) => all.indexOf(id) !== i);
		expect(claimedTwice).toEqual([]);
		const messages = await waitFor(async () => {
			const found = await topicMessages(as(bob), general, "race");
			return found.length >= 5 ? found : undefined;
		});
		await sleep(SWEEP_MS * 4);
		const after = await topicMessages(as(bob), general, "race");
		expect(after.map((m: any) => m.content).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `<p>race ${i}</p>`));
		expect(after).toHaveLength(messages.length);
		expect((await listOf(as(alice))).filter((m: any) => ids.includes(m.scheduled_message_id))).toEqual([]);
	});

	test("the send is idempotent: a repeated delivery answers the first message", async () => {
		const me = await app.node.broker.call<Identity, { email: string; api_key: string }>("users.authenticate", { email: alice.email, api_key: alice.api_key });
		const send = () =>
			app.node.broker.call<{ id: number; repeated: boolean }, Record<string, unknown>>(
				"messages.sendScheduled",
				{ type: "channel", to: general, topic: "idem", content: "only once", read_by_sender: true, idempotency_key: "scheduled:test-1" },
				{ meta: { user: me } },
			);
		const [a, b] = await Promise.all([send(), send()]);
		const c = await send();
		expect(new Set([a.id, b.id, c.id]).size).toBe(1);
		expect(c.repeated).toBe(true);
		expect(await topicMessages(as(bob), general, "idem")).toHaveLength(1);
	});

	test("a sender who lost access: failed, still listed; editing needs a new time and schedules it again", async () => {
		const res = await as(alice).post("/scheduled_messages", { type: "stream", to: vault, topic: "secret", content: "for the vault", scheduled_delivery_timestamp: later(2) });
		expectSuccess(res);
		const id = res.body.scheduled_message_id;
		expectSuccess(await owner.delete("/users/me/subscriptions", { subscriptions: ["vault"], principals: [alice.user_id] }));
		const failed = await waitFor(async () => (await listOf(as(alice))).find((m: any) => m.scheduled_message_id === id && m.failed));
		expect(failed).toMatchObject({ type: "stream", to: vault, topic: "secret", failed: true });
		expect(await topicMessages(owner, vault, "secret")).toEqual([]);
		expectError(await as(alice).patch(`/scheduled_messages/${id}`, { content: "again" }), 400, "BAD_REQUEST", "Scheduled delivery time must be in the future.");
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { type: "stream", to: general, topic: "secret", scheduled_delivery_timestamp: later(3600) }));
		expect((await listOf(as(alice))).find((m: any) => m.scheduled_message_id === id)).toMatchObject({ to: general, failed: false });
		expectSuccess(await as(alice).delete(`/scheduled_messages/${id}`));
	});
});
