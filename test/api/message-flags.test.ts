// Personal flags and read state: POST /messages/flags, /messages/flags/narrow, and the bulk
// mark-as-read endpoints, with every error leaving the flags as they were.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, dropNotices, expectError, expectSuccess, type Client } from "../support/http";
import { eventQueues, recordEvents } from "../support/events";
import { copyMessage } from "../support/fixtures";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let dave: Account;
const as = (a: Account) => client(app.baseUrl, a);
let general: number;
let random: number;
let vault: number;

async function send(c: Client, to: number | string | number[], topic = "t", content = "hello"): Promise<number> {
	const res = await c.post("/messages", Array.isArray(to) ? { type: "direct", to, content } : { type: "channel", to, topic, content });
	expectSuccess(res);
	return res.body.id;
}
/** The flags a user's client would show on one message. */
async function flagsOf(c: Client, id: number): Promise<string[]> {
	const res = await c.get(`/messages/${id}`);
	expectSuccess(res);
	return res.body.message.flags;
}
async function flag(c: Client, messages: unknown, op: string, f: string) {
	return c.post("/messages/flags", { messages, op, flag: f });
}
async function unreadCount(c: Client): Promise<number> {
	const res = await c.post("/register", { fetch_event_types: ["message", "update_message_flags"] });
	expectSuccess(res);
	return res.body.unread_msgs.count;
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	dave = await app.createUser({ full_name: "Dave" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }, { name: "random" }], principals: [1, alice.user_id, bob.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	random = (await owner.get("/get_stream_id", { stream: "random" })).body.stream_id;
	vault = (await owner.get("/get_stream_id", { stream: "vault" })).body.stream_id;
});
afterAll(() => app.stop());

describe("POST /messages/flags", () => {
	test("read, starred and collapsed are added and removed; the response lists what changed", async () => {
		const a = await send(as(alice), general);
		const b = await send(as(alice), general);
		const res = await flag(as(bob), [a, b], "add", "read");
		expectSuccess(res);
		expect(res.body).toEqual({ result: "success", msg: "", messages: [a, b] });
		expect(await flagsOf(as(bob), a)).toEqual(["read"]);
		// Nothing left to change: an empty list.
		expect((await flag(as(bob), [a, b], "add", "read")).body.messages).toEqual([]);

		expect((await flag(as(bob), [b], "add", "starred")).body.messages).toEqual([b]);
		expect((await flag(as(bob), [b], "add", "collapsed")).body.messages).toEqual([b]);
		expect(await flagsOf(as(bob), b)).toEqual(["read", "starred", "collapsed"]);
		expect((await flag(as(bob), [a, b], "remove", "starred")).body.messages).toEqual([b]);
		expect((await flag(as(bob), [b], "remove", "collapsed")).body.messages).toEqual([b]);
		expect(await flagsOf(as(bob), b)).toEqual(["read"]);
		// Alice's copies are her own.
		expect(await flagsOf(as(alice), b)).toEqual(["read"]);
	});

	test("changes are announced on the bus; requests that change nothing announce nothing", async () => {
		const seen = await recordEvents(app, ["messages.flagsChanged"]);
		const a = await send(as(alice), general);
		await flag(as(bob), [a], "add", "starred");
		await flag(as(bob), [a], "add", "starred");
		expect(seen.map((e) => e.payload)).toEqual([{ user_id: bob.user_id, op: "add", flag: "starred", message_ids: [a], all: false }]);
	});

	test("removing read reports the channels skipped because the user is not subscribed", async () => {
		const a = await send(as(alice), random);
		const d = await send(as(alice), [bob.user_id]);
		expect((await flag(as(bob), [a, d], "add", "read")).body.messages).toEqual([a, d]);
		expectSuccess(await as(bob).delete("/users/me/subscriptions", { subscriptions: ["random"] }));
		const res = await flag(as(bob), [a, d], "remove", "read");
		expectSuccess(res);
		expect(res.body).toMatchObject({ messages: [d], ignored_because_not_subscribed_channels: [random] });
		expect(await flagsOf(as(bob), a)).toEqual(["read"]);
		expect(await flagsOf(as(bob), d)).toEqual([]);
		// The list is there (empty) whenever read is removed, and only then.
		expect((await flag(as(bob), [d], "remove", "read")).body).toMatchObject({ messages: [], ignored_because_not_subscribed_channels: [] });
		expect((await flag(as(bob), [d], "add", "read")).body).not.toHaveProperty("ignored_because_not_subscribed_channels");
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "random" }], principals: [bob.user_id] }));
	});

	test("marking unread tells the user's clients each message's conversation (message_details), as the mobile app requires", async () => {
		const queues = await eventQueues(as, [bob], { register: { fetch_event_types: JSON.stringify(["update_message_flags"]) }, keep: (e) => e.type === "update_message_flags" });
		const emptyName = (await as(bob).post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body.realm_empty_topic_display_name;
		expectSuccess(await as(bob).post("/user_topics", { stream_id: general, topic: "quiet", visibility_policy: 1 }));
		const mention = await send(as(alice), general, "Lunch", "@**Bob** lunch?");
		const mutedWildcard = await send(as(alice), general, "quiet", "@**all** hush");
		const wildcard = await send(as(alice), random, "loud", "@**all** hear");
		const noTopic = await send(as(alice), general, "", "no topic");
		const dm = await send(as(alice), [bob.user_id]);
		const self = await send(as(bob), [bob.user_id]);
		const group = await send(as(dave), [bob.user_id, alice.user_id]);
		const ids = [mention, mutedWildcard, wildcard, noTopic, dm, self, group];
		expectSuccess(await flag(as(bob), ids, "add", "read"));
		await queues(bob);

		expectSuccess(await flag(as(bob), ids, "remove", "read"));
		const [event] = await queues(bob);
		expect(event).toEqual({
			type: "update_message_flags",
			op: "remove",
			operation: "remove",
			flag: "read",
			messages: ids,
			all: false,
			message_details: {
				[mention]: { type: "stream", stream_id: general, topic: "Lunch", unmuted_stream_msg: true, mentioned: true },
				[mutedWildcard]: { type: "stream", stream_id: general, topic: "quiet", unmuted_stream_msg: false },
				[wildcard]: { type: "stream", stream_id: random, topic: "loud", unmuted_stream_msg: true, mentioned: true },
				[noTopic]: { type: "stream", stream_id: general, topic: emptyName, unmuted_stream_msg: true },
				[dm]: { type: "private", user_ids: [alice.user_id] },
				[self]: { type: "private", user_ids: [] },
				[group]: { type: "private", user_ids: [alice.user_id, dave.user_id].sort((x, y) => x - y) },
			},
		});
		// Other flags, and marking read, carry no details.
		expectSuccess(await flag(as(bob), [dm], "add", "starred"));
		expectSuccess(await flag(as(bob), [dm], "add", "read"));
		expect((await queues(bob)).map((e) => "message_details" in e)).toEqual([false, false]);
		expectSuccess(await as(bob).post("/user_topics", { stream_id: general, topic: "quiet", visibility_policy: 0 }));
	});

	test("starring a public channel message never received creates the user's row, marked historical", async () => {
		const a = await send(as(alice), general, "before dave");
		expect(await flagsOf(as(dave), a)).toEqual(["read", "historical"]);
		const res = await flag(as(dave), [a], "add", "starred");
		expect(res.body.messages).toEqual([a]);
		expect(await flagsOf(as(dave), a)).toEqual(["read", "historical", "starred"]);
		const reg = await as(dave).post("/register", { fetch_event_types: ["starred_messages", "message"] });
		expect(reg.body.starred_messages).toEqual([a]);
		// The message is now part of Dave's own history.
		const mine = await as(dave).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [["is", "starred"]] });
		expect(mine.body.messages.map((m: { id: number }) => m.id)).toEqual([a]);
		expect((await flag(as(dave), [a], "remove", "starred")).body.messages).toEqual([a]);
		expect(await flagsOf(as(dave), a)).toEqual(["read", "historical"]);
	});

	test("every flag the server sets is refused by name; unknown flags and operations too", async () => {
		const a = await send(as(alice), general);
		for (const f of ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "wildcard_mentioned", "has_alert_word", "historical"]) {
			expectError(await flag(as(bob), [a], "add", f), 400, "BAD_REQUEST", `Flag not editable: '${f}'`);
			expectError(await flag(as(bob), [a], "remove", f), 400, "BAD_REQUEST", `Flag not editable: '${f}'`);
		}
		expectError(await flag(as(bob), [a], "add", "is_private"), 400, "BAD_REQUEST", "Invalid flag: 'is_private'");
		expectError(await flag(as(bob), [a], "add", "bogus"), 400, "BAD_REQUEST", "Invalid flag: 'bogus'");
		expectError(await flag(as(bob), [a], "toggle", "read"), 400, "BAD_REQUEST", "Invalid op");
		expect(await flagsOf(as(bob), a)).toEqual([]);
	});

	test("bad parameters: missing, wrong types", async () => {
		const a = await send(as(alice), general);
		expectError(await as(bob).post("/messages/flags", { op: "add", flag: "read" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'messages' argument");
		expectError(await as(bob).post("/messages/flags", { messages: [a], flag: "read" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
		expectError(await as(bob).post("/messages/flags", { messages: [a], op: "add" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'flag' argument");
		expectError(await as(bob).post("/messages/flags", { messages: "nope", op: "add", flag: "read" }), 400, "BAD_REQUEST");
		expectError(await as(bob).post("/messages/flags", { messages: ["x"], op: "add", flag: "read" }), 400, "BAD_REQUEST");
		expectError(await as(bob).post("/messages/flags", { messages: [a], op: "add", flag: "read" }, { auth: null }), 401, "UNAUTHORIZED");
		expect(await flagsOf(as(bob), a)).toEqual([]);
	});

	test("unknown and inaccessible messages fail the whole request and change nothing", async () => {
		const a = await send(as(alice), general);
		const secret = await send(owner, vault);
		const theirs = await send(as(alice), [app.owner.user_id]);
		for (const bad of [999_999, secret, theirs]) {
			expectError(await flag(as(bob), [a, bad], "add", "starred"), 400, "BAD_REQUEST", "Invalid message(s)");
		}
		expect(await flagsOf(as(bob), a)).toEqual([]);
	});
});

describe("POST /messages/flags/narrow", () => {
	let ids: number[];
	beforeAll(async () => {
		ids = [];
		for (let i = 0; i < 6; i++) ids.push(await send(as(alice), general, "narrowed", `n${i}`));
		await send(as(alice), general, "elsewhere");
	});

	test("updates the range around the anchor and reports it", async () => {
		const narrow = [{ operator: "channel", operand: general }, { operator: "topic", operand: "narrowed" }];
		const res = await as(bob).post("/messages/flags/narrow", { anchor: ids[2], num_before: 1, num_after: 1, narrow, op: "add", flag: "read" });
		expectSuccess(res);
		expect(res.body).toEqual({
			result: "success",
			msg: "",
			processed_count: 3,
			updated_count: 3,
			first_processed_id: ids[1],
			last_processed_id: ids[3],
			found_oldest: false,
			found_newest: false,
		});
		expect(await flagsOf(as(bob), ids[0])).toEqual([]);
		expect(await flagsOf(as(bob), ids[2])).toEqual(["read"]);
		// The whole topic from the oldest: only the three still unread change.
		const all = await as(bob).post("/messages/flags/narrow", { anchor: "oldest", num_before: 0, num_after: 100, narrow, op: "add", flag: "read" });
		expect(all.body).toMatchObject({ processed_count: 6, updated_count: 3, first_processed_id: ids[0], last_processed_id: ids[5], found_oldest: true, found_newest: true });
		// first_unread with nothing unread falls back to the newest.
		const none = await as(bob).post("/messages/flags/narrow", { anchor: "first_unread", num_before: 0, num_after: 10, narrow, op: "add", flag: "read" });
		expect(none.body).toMatchObject({ processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null, found_newest: true });
	});

	test("include_anchor false may only drop the anchor at an end of the range", async () => {
		const narrow = [["channel", "general"], ["topic", "narrowed"]];
		expectError(
			await as(bob).post("/messages/flags/narrow", { anchor: ids[2], num_before: 1, num_after: 1, include_anchor: false, narrow, op: "add", flag: "starred" }),
			400,
			"BAD_REQUEST",
			"The anchor can only be excluded at an end of the range",
		);
		const res = await as(bob).post("/messages/flags/narrow", { anchor: ids[2], num_before: 0, num_after: 2, include_anchor: false, narrow, op: "add", flag: "starred" });
		expect(res.body).toMatchObject({ processed_count: 2, updated_count: 2, first_processed_id: ids[3], last_processed_id: ids[4] });
		expect(await flagsOf(as(bob), ids[2])).toEqual(["read"]);
		expect(await flagsOf(as(bob), ids[3])).toEqual(["read", "starred"]);
	});

	test("bad input changes nothing", async () => {
		const before = await flagsOf(as(bob), ids[5]);
		const base = { anchor: "newest", num_before: 10, num_after: 0, narrow: [], op: "add", flag: "collapsed" };
		for (const [change, code, msg] of [
			[{ anchor: undefined }, "REQUEST_VARIABLE_MISSING", "Missing 'anchor' argument"],
			[{ num_before: undefined }, "REQUEST_VARIABLE_MISSING", "Missing 'num_before' argument"],
			[{ num_after: undefined }, "REQUEST_VARIABLE_MISSING", "Missing 'num_after' argument"],
			[{ num_before: -1 }, "BAD_REQUEST", undefined],
			[{ num_after: "many" }, "BAD_REQUEST", "num_after is not an integer"],
			[{ anchor: "middle" }, "BAD_REQUEST", "Invalid anchor"],
			[{ flag: "mentioned" }, "BAD_REQUEST", "Flag not editable: 'mentioned'"],
			[{ op: "flip" }, "BAD_REQUEST", "Invalid op"],
			[{ narrow: [["channel", "no such channel"]] }, "BAD_NARROW", undefined],
			[{ narrow: [["bogus", "x"]] }, "BAD_NARROW", undefined],
			[{ narrow: "{" }, "BAD_REQUEST", undefined],
		] as Array<[Record<string, unknown>, string, string | undefined]>) {
			expectError(await as(bob).post("/messages/flags/narrow", { ...base, ...change }), 400, code, msg);
		}
		expect(await flagsOf(as(bob), ids[5])).toEqual(before);
	});
});

describe("mark all, a channel, a topic as read", () => {
	test("mark_topic_as_read: only that topic, matched without case; the empty-topic display name is the empty topic", async () => {
		const t1 = await send(as(alice), general, "Lunch");
		const t2 = await send(as(alice), general, "dinner");
		const e = await send(as(alice), general, "");
		expectSuccess(await as(bob).post("/mark_topic_as_read", { stream_id: general, topic_name: "lunch" }));
		expect(await flagsOf(as(bob), t1)).toEqual(["read"]);
		expect(await flagsOf(as(bob), t2)).toEqual([]);
		expectSuccess(await as(bob).post("/mark_topic_as_read", { stream_id: general, topic_name: "general chat" }));
		expect(await flagsOf(as(bob), e)).toEqual(["read"]);
		expectError(await as(bob).post("/mark_topic_as_read", { stream_id: general, topic_name: "never used" }), 400, "BAD_REQUEST", "No such topic 'never used'");
		expectError(await as(bob).post("/mark_topic_as_read", { stream_id: general }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'topic_name' argument");
		expectError(await as(bob).post("/mark_topic_as_read", { topic_name: "dinner" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'stream_id' argument");
		expectError(await as(bob).post("/mark_topic_as_read", { stream_id: "general", topic_name: "dinner" }), 400, "BAD_REQUEST", "stream_id is not an integer");
		expectError(await as(bob).post("/mark_topic_as_read", { stream_id: vault, topic_name: "t" }), 400, "BAD_REQUEST", "Invalid channel ID");
		expect(await flagsOf(as(bob), t2)).toEqual([]);
	});

	test("mark_stream_as_read: only that channel; unknown and inaccessible channels are refused", async () => {
		const g = await send(as(alice), general);
		const r = await send(as(alice), random);
		expectError(await as(bob).post("/mark_stream_as_read", { stream_id: 999_999 }), 400, "BAD_REQUEST", "Invalid channel ID");
		expectError(await as(bob).post("/mark_stream_as_read", { stream_id: vault }), 400, "BAD_REQUEST", "Invalid channel ID");
		expectError(await as(bob).post("/mark_stream_as_read", {}), 400, "REQUEST_VARIABLE_MISSING");
		expect(await flagsOf(as(bob), g)).toEqual([]);
		expectSuccess(await as(bob).post("/mark_stream_as_read", { stream_id: general }));
		expect(await flagsOf(as(bob), g)).toEqual(["read"]);
		expect(await flagsOf(as(bob), r)).toEqual([]);
	});

	test("mark_all_as_read clears every unread message and reports completion", async () => {
		await send(as(alice), random);
		await send(as(alice), [bob.user_id]);
		expect(await unreadCount(as(bob))).toBeGreaterThan(0);
		const res = await as(bob).post("/mark_all_as_read");
		expectSuccess(res);
		expect(res.body.complete).toBe(true);
		expect(await unreadCount(as(bob))).toBe(0);
		// Alice's unread state is untouched.
		const mine = await send(as(bob), general, "for alice");
		expect(await flagsOf(as(alice), mine)).toEqual([]);
	});

	test("a channel with more unread messages than one batch is marked read whole, while other requests go on", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "busy" }], principals: [alice.user_id, bob.user_id] }));
		const busy = (await owner.get("/get_stream_id", { stream: "busy" })).body.stream_id;
		await dropNotices(owner, busy);
		// More than one batch (1,000 rows): one message sent, the others copies made in the database.
		const total = 1_050;
		await copyMessage(app, await send(as(alice), busy, "bulk", "m"), total - 1);
		const narrow = [["channel", "busy"], ["is", "unread"]];
		const unread = async () => (await as(bob).get("/messages", { anchor: "newest", num_before: 5000, num_after: 0, narrow })).body.messages.length;
		expect(await unread()).toBe(total);
		const order: string[] = [];
		await Promise.all([
			as(bob).post("/mark_stream_as_read", { stream_id: busy }).then((res) => {
				expectSuccess(res);
				order.push("mark");
			}),
			as(alice).get("/users/me").then((res) => {
				expectSuccess(res);
				order.push("other");
			}),
		]);
		expect(order).toEqual(["other", "mark"]);
		expect(await unread()).toBe(0);
		const res = await as(bob).post("/messages/flags/narrow", { anchor: "oldest", num_before: 0, num_after: 5000, narrow: [["channel", "busy"]], op: "add", flag: "read" });
		expect(res.body).toMatchObject({ processed_count: total, updated_count: 0 });
	});
});
