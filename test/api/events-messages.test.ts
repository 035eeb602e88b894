// Events for message changes and typing (services/events/message-changes.ts): update_message for
// content edits and moves, delete_message for deletions and for messages a move takes out of
// reach, and typing from POST /typing; each in Zulip's form, to exactly the queues whose users
// may see it.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";

let app: TestApp;
let alice: Account;
let bob: Account;
let carol: Account;
let dave: Account;
let a: Client;
let b: Client;
let c: Client;
let d: Client;
let owner: Client;
let openId: number;
let closedId: number;
let otherClosedId: number;

beforeAll(async () => {
	app = await startTestApp({ eventsHeartbeatSeconds: 2 });
	[alice, bob, carol, dave] = [
		await app.createUser({ full_name: "Alice" }),
		await app.createUser({ full_name: "Bob" }),
		await app.createUser({ full_name: "Carol" }),
		await app.createUser({ full_name: "Dave" }),
	];
	[a, b, c, d] = [alice, bob, carol, dave].map((u) => client(app.baseUrl, u));
	owner = client(app.baseUrl, app.owner);
	const everyone = [alice.user_id, bob.user_id, carol.user_id, dave.user_id, app.owner.user_id];
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "open" }], principals: everyone }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "closed" }], invite_only: true, principals: [alice.user_id, bob.user_id, app.owner.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "closed2" }], invite_only: true, history_public_to_subscribers: false, principals: [alice.user_id, app.owner.user_id] }));
	const ids = (await owner.get("/get_stream_id", { stream: "open" })).body.stream_id;
	openId = ids;
	closedId = (await owner.get("/get_stream_id", { stream: "closed" })).body.stream_id;
	otherClosedId = (await owner.get("/get_stream_id", { stream: "closed2" })).body.stream_id;
});
afterAll(() => app.stop());

async function register(u: Client, params: Record<string, unknown> = {}): Promise<string> {
	const r = await u.post("/register", { fetch_event_types: ["message"], ...params });
	expectSuccess(r);
	return r.body.queue_id;
}

async function events(u: Client, queue_id: string, type?: string) {
	const r = await u.get("/events", { queue_id, last_event_id: -1, dont_block: true });
	expectSuccess(r);
	const all = r.body.events as Array<Record<string, any>>;
	return type ? all.filter((e) => e.type === type) : all;
}

const bulk = { client_capabilities: JSON.stringify({ bulk_message_deletion: true, stream_typing_notifications: true }) };

describe("update_message", () => {
	test("a content edit reaches everyone who has the message, with their flags and Zulip's fields", async () => {
		const id = await sendMessage(a, { type: "stream", to: "closed", topic: "edits", content: "hello" });
		const [qa, qb, qc] = [await register(a, { apply_markdown: true }), await register(b), await register(c)];
		expectSuccess(await a.patch(`/messages/${id}`, { content: "hello @**Bob**" }));
		const [ea] = await events(a, qa, "update_message");
		expect(ea).toEqual({
			type: "update_message",
			id: expect.any(Number),
			user_id: alice.user_id,
			edit_timestamp: expect.any(Number),
			message_id: id,
			message_ids: [id],
			rendering_only: false,
			flags: ["read"],
			stream_name: "closed",
			stream_id: closedId,
			orig_content: "hello",
			orig_rendered_content: "<p>hello</p>",
			content: "hello @**Bob**",
			rendered_content: expect.stringContaining("user-mention"),
			is_me_message: false,
		});
		// As in Zulip, content is the Markdown and rendered_content the HTML whatever apply_markdown says.
		const [eb] = await events(b, qb, "update_message");
		expect(eb).toMatchObject({ message_id: id, flags: ["mentioned"], content: "hello @**Bob**", rendered_content: ea.rendered_content });
		expect(eb).not.toHaveProperty("subject");
		expect(eb).not.toHaveProperty("propagate_mode");
		// Carol is not in the private channel.
		expect(await events(c, qc)).toEqual([]);
	});

	test("a direct message edit has no channel fields", async () => {
		const id = await sendMessage(a, { type: "direct", to: JSON.stringify([bob.user_id]), content: "typo" });
		const [qb, qc] = [await register(b), await register(c)];
		expectSuccess(await a.patch(`/messages/${id}`, { content: "/me fixed it" }));
		const [eb] = await events(b, qb, "update_message");
		expect(eb).toMatchObject({ message_id: id, message_ids: [id], orig_content: "typo", content: "/me fixed it", is_me_message: true, flags: [] });
		expect(eb).not.toHaveProperty("stream_id");
		expect(await events(c, qc)).toEqual([]);
	});

	test("a topic move lists the moved messages, the old and new topic and the propagate mode", async () => {
		const first = await sendMessage(a, { type: "stream", to: "open", topic: "old place", content: "one" });
		const second = await sendMessage(b, { type: "stream", to: "open", topic: "old place", content: "two https://example.com" });
		const [qa, qc] = [await register(a), await register(c, { event_types: JSON.stringify(["delete_message"]) })];
		expectSuccess(await owner.patch(`/messages/${first}`, { topic: "new place https://zulip.com", propagate_mode: "change_all", send_notification_to_new_thread: false }));
		const [ea] = await events(a, qa, "update_message");
		expect(ea).toEqual({
			type: "update_message",
			id: expect.any(Number),
			user_id: app.owner.user_id,
			edit_timestamp: expect.any(Number),
			message_id: first,
			message_ids: [first, second],
			rendering_only: false,
			flags: ["read"],
			stream_name: "open",
			stream_id: openId,
			propagate_mode: "change_all",
			orig_subject: "old place",
			subject: "new place https://zulip.com",
			topic_links: [{ text: "https://zulip.com", url: "https://zulip.com" }],
		});
		// event_types filters: Carol asked for deletions only.
		expect(await events(c, qc)).toEqual([]);
	});

	test("a move to a private channel without shared history: who keeps the messages gets update_message, who loses them delete_message", async () => {
		const id = await sendMessage(a, { type: "stream", to: "closed", topic: "secret", content: "moving out" });
		const [qa, qb, qbOld, qc] = [await register(a, bulk), await register(b, bulk), await register(b), await register(c)];
		expectSuccess(await owner.patch(`/messages/${id}`, { stream_id: otherClosedId, propagate_mode: "change_one", send_notification_to_new_thread: false }));
		const [ea] = await events(a, qa, "update_message");
		expect(ea).toMatchObject({ message_id: id, message_ids: [id], stream_id: closedId, new_stream_id: otherClosedId, orig_subject: "secret", propagate_mode: "change_one" });
		expect(ea).not.toHaveProperty("subject");
		expect(ea).not.toHaveProperty("content");
		// Bob is not in closed2: for him the message is gone.
		expect(await events(b, qb)).toEqual([{ type: "delete_message", id: 0, message_ids: [id], message_type: "stream", stream_id: closedId, topic: "secret" }]);
		expect(await events(b, qbOld)).toEqual([{ type: "delete_message", id: 0, message_id: id, message_type: "stream", stream_id: closedId, topic: "secret" }]);
		expect(await events(c, qc)).toEqual([]);
	});
});

describe("delete_message", () => {
	test("reaches everyone who had the message, in the form each client declared", async () => {
		const id = await sendMessage(a, { type: "stream", to: "closed", topic: "gone", content: "delete me" });
		const [qa, qb, qc] = [await register(a, bulk), await register(b), await register(c, bulk)];
		expectSuccess(await a.delete(`/messages/${id}`));
		expect(await events(a, qa)).toEqual([{ type: "delete_message", id: 0, message_ids: [id], message_type: "stream", stream_id: closedId, topic: "gone" }]);
		expect(await events(b, qb)).toEqual([{ type: "delete_message", id: 0, message_id: id, message_type: "stream", stream_id: closedId, topic: "gone" }]);
		expect(await events(c, qc)).toEqual([]);
	});

	test("a direct message's deletion has no channel or topic", async () => {
		const id = await sendMessage(a, { type: "direct", to: JSON.stringify([bob.user_id]), content: "oops" });
		const [qb, qc] = [await register(b, bulk), await register(c, bulk)];
		expectSuccess(await a.delete(`/messages/${id}`));
		expect(await events(b, qb)).toEqual([{ type: "delete_message", id: 0, message_ids: [id], message_type: "private" }]);
		expect(await events(c, qc)).toEqual([]);
	});
});

describe("typing", () => {
	test("direct: the other participants get Zulip's event with every recipient, the sender among them", async () => {
		const [qa, qb, qc, qd] = [await register(a), await register(b), await register(c), await register(d)];
		expectSuccess(await a.post("/typing", { op: "start", to: JSON.stringify([bob.user_id, carol.user_id]) }));
		const expected = {
			type: "typing",
			id: 0,
			op: "start",
			message_type: "direct",
			sender: { user_id: alice.user_id, email: alice.email },
			recipients: [
				{ user_id: bob.user_id, email: bob.email },
				{ user_id: carol.user_id, email: carol.email },
				{ user_id: alice.user_id, email: alice.email },
			],
		};
		expect(await events(b, qb)).toEqual([expected]);
		expect(await events(c, qc)).toEqual([expected]);
		expect(await events(a, qa)).toEqual([]);
		expect(await events(d, qd)).toEqual([]);
		// The legacy type "private", and stop.
		expectSuccess(await a.post("/typing", { type: "private", op: "stop", to: JSON.stringify([bob.user_id]) }));
		expect((await events(b, qb)).map((e) => [e.op, e.message_type])).toEqual([["start", "direct"], ["stop", "direct"]]);
	});

	test("only users with receives_typing_notifications get it", async () => {
		expectSuccess(await c.patch("/settings", { receives_typing_notifications: false }));
		try {
			const [qb, qc] = [await register(b), await register(c)];
			expectSuccess(await a.post("/typing", { op: "start", to: JSON.stringify([bob.user_id, carol.user_id]) }));
			expect(await events(b, qb, "typing")).toHaveLength(1);
			expect(await events(c, qc, "typing")).toEqual([]);
		} finally {
			expectSuccess(await c.patch("/settings", { receives_typing_notifications: true }));
		}
	});

	test("channel topics: subscribers whose clients declared stream_typing_notifications", async () => {
		const [qa, qb, qbOld, qc] = [await register(a, bulk), await register(b, bulk), await register(b), await register(c, bulk)];
		for (const type of ["stream", "channel"]) expectSuccess(await a.post("/typing", { type, op: "start", stream_id: closedId, topic: "plans" }));
		const expected = { type: "typing", op: "start", message_type: "stream", sender: { user_id: alice.user_id, email: alice.email }, stream_id: closedId, topic: "plans" };
		expect(await events(b, qb)).toEqual([
			{ ...expected, id: 0 },
			{ ...expected, id: 1 },
		]);
		expect(await events(b, qbOld)).toEqual([]);
		// Carol is not subscribed to the private channel; the sender does not hear herself.
		expect(await events(c, qc)).toEqual([]);
		expect(await events(a, qa)).toEqual([]);
	});

	test("typing in \"(no topic)\" is typing in the empty topic (feature level 372), shown by its display name", async () => {
		const qb = await register(b, bulk);
		const emptyName = (await b.post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body.realm_empty_topic_display_name;
		for (const topic of ["(no topic)", "", emptyName]) expectSuccess(await a.post("/typing", { type: "stream", op: "start", stream_id: closedId, topic }));
		expect((await events(b, qb)).map((e) => e.topic)).toEqual([emptyName, emptyName, emptyName]);
	});

	test("the sender's send_*_typing_notifications settings refuse the request, as Zulip does", async () => {
		expectSuccess(await a.patch("/settings", { send_private_typing_notifications: false, send_stream_typing_notifications: false }));
		try {
			const qb = await register(b, bulk);
			expectError(await a.post("/typing", { op: "start", to: JSON.stringify([bob.user_id]) }), 400, "BAD_REQUEST", "User has disabled typing notifications for direct messages");
			expectError(await a.post("/typing", { type: "stream", op: "start", stream_id: openId, topic: "t" }), 400, "BAD_REQUEST", "User has disabled typing notifications for channel messages");
			// The setting's error comes first, as in Zulip, even for a channel the sender cannot post in.
			expectError(await a.post("/typing", { type: "stream", op: "start", stream_id: 999999, topic: "t" }), 400, "BAD_REQUEST", "User has disabled typing notifications for channel messages");
			expect(await events(b, qb)).toEqual([]);
		} finally {
			expectSuccess(await a.patch("/settings", { send_private_typing_notifications: true, send_stream_typing_notifications: true }));
		}
	});

	test("bad input: Zulip's errors, and nothing is delivered", async () => {
		const qb = await register(b, bulk);
		expectError(await a.post("/typing", { to: JSON.stringify([bob.user_id]) }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
		expectError(await a.post("/typing", { op: "typing", to: JSON.stringify([bob.user_id]) }), 400, "BAD_REQUEST");
		expectError(await a.post("/typing", { type: "huddle", op: "start", to: JSON.stringify([bob.user_id]) }), 400, "BAD_REQUEST");
		expectError(await a.post("/typing", { op: "start" }), 400, "BAD_REQUEST", "Missing 'to' argument");
		expectError(await a.post("/typing", { op: "start", to: "[]" }), 400, "BAD_REQUEST", "Empty 'to' list");
		expectError(await a.post("/typing", { op: "start", to: JSON.stringify(["bob"]) }), 400, "BAD_REQUEST");
		expectError(await a.post("/typing", { op: "start", to: JSON.stringify([bob.user_id, 999999]) }), 400, "BAD_REQUEST", "Invalid user ID 999999");
		expectError(await a.post("/typing", { type: "stream", op: "start", topic: "t" }), 400, "BAD_REQUEST", "Missing 'stream_id' argument");
		expectError(await a.post("/typing", { type: "stream", op: "start", stream_id: openId }), 400, "BAD_REQUEST", "Missing topic");
		expectError(await a.post("/typing", { type: "stream", op: "start", stream_id: 999999, topic: "t" }), 400, "BAD_REQUEST", "Invalid channel ID");
		// Carol cannot see the private channel: the same answer as for an unknown one.
		expectError(await c.post("/typing", { type: "stream", op: "start", stream_id: closedId, topic: "t" }), 400, "BAD_REQUEST", "Invalid channel ID");
		expectError(await client(app.baseUrl, null).post("/typing", { op: "start", to: JSON.stringify([bob.user_id]) }), 401, "UNAUTHORIZED");
		expect(await events(b, qb)).toEqual([]);
	});
});
