// Sending and fetching messages: channel and direct messages, the topic rules, permissions,
// rendering that cannot be used to inject markup, anchors, windows, narrows and history rules.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, dropNotices, expectError, expectSuccess, NOTIFICATION_BOT_EMAIL, sendMessage, type Client } from "../support/http";
import { eventQueues } from "../support/events";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let carol: Account;
const as = (a: Account) => client(app.baseUrl, a);
let general: number;

const send = sendMessage;
async function fetchAll(c: Client, narrow: unknown[] = [], extra: Record<string, unknown> = {}) {
	const res = await c.get("/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow, ...extra });
	expectSuccess(res);
	return res.body;
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol", role: 600 });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [1, alice.user_id, bob.user_id] }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
});
afterAll(() => app.stop());

describe("sending to a channel", () => {
	test("by ID or name; every subscriber receives it; the sender has read it", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "greetings", content: "Hello **world**" });
		const id2 = await send(as(alice), { type: "stream", to: "general", topic: "greetings", content: "again" });
		expect(id2).toBeGreaterThan(id);
		const mine = await fetchAll(as(alice), [{ operator: "channel", operand: general }, { operator: "topic", operand: "greetings" }]);
		const m = mine.messages.find((x: { id: number }) => x.id === id);
		expect(m).toMatchObject({
			id,
			sender_id: alice.user_id,
			sender_full_name: "Alice",
			sender_email: alice.email,
			type: "stream",
			stream_id: general,
			display_recipient: "general",
			subject: "greetings",
			content: "<p>Hello <strong>world</strong></p>",
			content_type: "text/html",
			flags: ["read"],
			is_me_message: false,
			reactions: [],
			submessages: [],
			topic_links: [],
			timestamp: expect.any(Number),
			recipient_id: expect.any(Number),
			avatar_url: null,
		});
		const bobs = await fetchAll(as(bob), [{ operator: "channel", operand: "general" }]);
		expect(bobs.messages.find((x: { id: number }) => x.id === id).flags).toEqual([]);
		const raw = await fetchAll(as(bob), [["channel", "general"]], { apply_markdown: false });
		expect(raw.messages.find((x: { id: number }) => x.id === id)).toMatchObject({ content: "Hello **world**", content_type: "text/x-markdown" });
	});

	test("topic_links lists the http(s) URLs a topic names; other dotted words are not links", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "see https://example.com/a?b=1 and v1.2", content: "x" });
		const m = (await fetchAll(as(alice), [["channel", "general"]])).messages.find((x: { id: number }) => x.id === id);
		expect(m.topic_links).toEqual([{ text: "https://example.com/a?b=1", url: "https://example.com/a?b=1" }]);
		const dm = await send(owner, { type: "direct", to: [app.owner.user_id], content: "https://example.com" });
		expect((await owner.get(`/messages/${dm}`)).body.message.topic_links).toEqual([]);
	});

	test("read_by_sender false leaves the sender's copy unread", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "t", content: "later", read_by_sender: false });
		expect((await fetchAll(as(alice))).messages.find((x: { id: number }) => x.id === id).flags).toEqual([]);
	});

	test("the empty topic: '(no topic)' and the display name mean it; clients see the display name unless they handle it", async () => {
		const a = await send(as(alice), { type: "channel", to: general, topic: "(no topic)", content: "a" });
		const b = await send(as(alice), { type: "channel", to: general, topic: "general chat", content: "b" });
		const c = await send(as(alice), { type: "channel", to: general, topic: "", content: "c" });
		const plain = await fetchAll(as(alice), [["channel", "general"], ["topic", ""]]);
		expect(plain.messages.map((m: { id: number }) => m.id)).toEqual(expect.arrayContaining([a, b, c]));
		expect(plain.messages.every((m: { subject: string }) => m.subject === "general chat")).toBe(true);
		const aware = await fetchAll(as(alice), [["channel", "general"], ["topic", "general chat"]], { allow_empty_topic_name: true });
		expect(aware.messages.every((m: { subject: string }) => m.subject === "")).toBe(true);
	});

	test("a channel message without a topic is refused, as Zulip at this feature level: Missing topic, nothing stored", async () => {
		const before = (await fetchAll(as(alice), [["channel", "general"]])).messages.length;
		expectError(await as(alice).post("/messages", { type: "channel", to: general, content: "where?" }), 400, "BAD_REQUEST", "Missing topic");
		expectError(await as(alice).post("/messages", { type: "stream", to: "general", content: "" }), 400, "BAD_REQUEST", "Missing topic");
		// The legacy name of the parameter still counts.
		await send(as(alice), { type: "stream", to: "general", subject: "legacy", content: "ok" });
		expect((await fetchAll(as(alice), [["channel", "general"]])).messages.length).toBe(before + 1);
		// A direct message needs none.
		await send(as(alice), { type: "direct", to: JSON.stringify([app.owner.user_id]), content: "no topic needed" });
	});

	test("topics policy of the channel is enforced", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "strict" }], principals: [1, alice.user_id] }));
		const strict = (await owner.get("/get_stream_id", { stream: "strict" })).body.stream_id;
		expectSuccess(await owner.patch(`/streams/${strict}`, { topics_policy: "disable_empty_topic" }));
		expectError(await as(alice).post("/messages", { type: "channel", to: strict, topic: "", content: "x" }), 400, "BAD_REQUEST", /not allowed in this channel/);
		await send(as(alice), { type: "channel", to: strict, topic: "named", content: "fine" });
		expectError(await owner.patch(`/streams/${strict}`, { topics_policy: "empty_topic_only" }), 400, "BAD_REQUEST");
	});

	test.each([
		[{ topic: "t".repeat(61), content: "x" }, /Topic too long/],
		[{ topic: "t", content: "   " }, "Message must not be empty"],
		[{ topic: "t", content: "x".repeat(10001) }, /Message too long/],
		[{ topic: "t" }, "Missing 'content' argument"],
	])("%j is refused and nothing is stored", async (params, msg) => {
		const before = (await fetchAll(owner)).messages.length;
		const res = await as(alice).post("/messages", { type: "channel", to: general, ...params });
		expect(res.body.result).toBe("error");
		expect(res.body.msg).toEqual(typeof msg === "string" ? msg : expect.stringMatching(msg));
		expect((await fetchAll(owner)).messages.length).toBe(before);
	});

	test("unknown channels are STREAM_DOES_NOT_EXIST naming them", async () => {
		const byId = await as(alice).post("/messages", { type: "channel", to: 999999, topic: "t", content: "x" });
		expectError(byId, 400, "STREAM_DOES_NOT_EXIST");
		expect(byId.body.stream_id).toBe(999999);
		const byName = await as(alice).post("/messages", { type: "channel", to: "nowhere", topic: "t", content: "x" });
		expectError(byName, 400, "STREAM_DOES_NOT_EXIST");
		expect(byName.body.stream).toBe("nowhere");
	});

	test("can_send_message_group, archived channels and guests without access", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "announce" }], principals: [1, alice.user_id] }));
		const announce = (await owner.get("/get_stream_id", { stream: "announce" })).body.stream_id;
		const admins = (await owner.get("/user_groups")).body.user_groups.find((g: { name: string }) => g.name === "role:administrators").id;
		expectSuccess(await owner.patch(`/streams/${announce}`, { can_send_message_group: { new: admins } }));
		expectError(await as(alice).post("/messages", { type: "channel", to: announce, topic: "t", content: "x" }), 400, "BAD_REQUEST", "You do not have permission to post in this channel.");
		await send(owner, { type: "channel", to: announce, topic: "t", content: "from an admin" });
		expectSuccess(await owner.delete(`/streams/${announce}`));
		expectError(await owner.post("/messages", { type: "channel", to: announce, topic: "t", content: "x" }), 400, "BAD_REQUEST", "Not authorized to send to channel 'announce'");
		expectError(await as(carol).post("/messages", { type: "channel", to: general, topic: "t", content: "x" }), 400, "STREAM_DOES_NOT_EXIST");
	});

	test("markdown cannot inject markup", async () => {
		const id = await send(as(alice), {
			type: "channel",
			to: general,
			topic: "xss",
			content: '<script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) [ok](https://example.com "t\\" onmouseover=\\"x")',
		});
		const html = (await fetchAll(as(alice), [["channel", "general"], ["topic", "xss"]])).messages.find((m: { id: number }) => m.id === id).content;
		// Every tag in the output is one the renderer makes, with only its own attributes.
		for (const [, tag, attrs] of html.matchAll(/<\/?([a-z0-9]+)([^>]*)>/gi)) {
			expect(["p", "a", "br"]).toContain(tag.toLowerCase());
			for (const [, name] of attrs.matchAll(/\s([a-z-]+)="[^"]*"/gi)) expect(["href", "title", "target", "rel"]).toContain(name.toLowerCase());
			expect(attrs.replace(/\s([a-z-]+)="[^"]*"/gi, "").trim()).toBe("");
		}
		expect(html).not.toContain("javascript:alert(1)</a>");
		expect(html).not.toMatch(/href="javascript/i);
		expect(html).toContain("&lt;script&gt;");
		expect(html).toContain('href="https://example.com"');
	});

	test("/me messages", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "me", content: "/me waves" });
		expect((await fetchAll(as(alice), [{ operator: "id", operand: id }])).messages[0].is_me_message).toBe(true);
	});
});

describe("direct messages", () => {
	test("one-to-one: both directions share a recipient ID; display_recipient lists both", async () => {
		const out = await send(as(alice), { type: "direct", to: [bob.user_id], content: "hi bob" });
		const back = await send(as(bob), { type: "private", to: alice.email, content: "hi alice" });
		const a = await fetchAll(as(alice), [{ operator: "dm", operand: [bob.user_id] }]);
		expect(a.messages.map((m: { id: number }) => m.id)).toEqual([out, back]);
		expect(a.messages[0].recipient_id).toBe(a.messages[1].recipient_id);
		expect(a.messages[0].display_recipient.map((u: { id: number }) => u.id).sort()).toEqual([alice.user_id, bob.user_id].sort());
		expect(a.messages[0]).toMatchObject({ type: "private", subject: "" });
		expect((await fetchAll(as(bob), [["dm", alice.email]])).messages.map((m: { id: number }) => m.id)).toEqual([out, back]);
		expect((await fetchAll(owner, [{ operator: "dm", operand: [bob.user_id] }])).messages).toEqual([]);
	});

	test("groups, and unknown or deactivated recipients", async () => {
		const id = await send(as(alice), { type: "direct", to: JSON.stringify([bob.user_id, 1]), content: "group" });
		expect((await fetchAll(owner, [["is", "dm"]])).messages.map((m: { id: number }) => m.id)).toContain(id);
		expectError(await as(alice).post("/messages", { type: "direct", to: [999999], content: "x" }), 400, "BAD_REQUEST", "No such user");
		// A deactivated recipient, in Zulip's words (its email as the API shows it), alone or among others.
		const gone = await app.createUser({ full_name: "Gone" });
		expectSuccess(await owner.delete(`/users/${gone.user_id}`));
		const goneEmail = (await owner.get(`/users/${gone.user_id}`)).body.user.email;
		for (const to of [[gone.user_id], [bob.user_id, gone.user_id]]) {
			expectError(await as(alice).post("/messages", { type: "direct", to, content: "x" }), 400, "BAD_REQUEST", `'${goneEmail}' is no longer using Zulip.`);
		}
		expectError(await as(alice).post("/messages", { type: "direct", to: [], content: "x" }), 400, "BAD_REQUEST");
		expectError(await as(alice).post("/messages", { type: "mail", to: [bob.user_id], content: "x" }), 400, "BAD_REQUEST", "Invalid type");
	});
});

describe("fetching", () => {
	let ids: number[];
	beforeAll(async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "counting" }], principals: [1, alice.user_id] }));
		// The channel's own messages alone (notification-bot.test.ts has Notification Bot's).
		await dropNotices(owner, "counting");
		ids = [];
		for (let i = 1; i <= 10; i++) ids.push(await send(owner, { type: "channel", to: "counting", topic: i % 2 ? "odd" : "even", content: `n${i}`, read_by_sender: true }));
	});
	const get = (params: Record<string, unknown>, c: Client = as(alice)) => c.get("/messages", { narrow: [["channel", "counting"]], ...params });

	test("anchor newest and oldest, with found_newest and found_oldest", async () => {
		const newest = (await get({ anchor: "newest", num_before: 3, num_after: 0 })).body;
		expect(newest.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(-3));
		expect(newest).toMatchObject({ found_newest: true, found_oldest: false, found_anchor: false, history_limited: false });
		const oldest = (await get({ anchor: "oldest", num_before: 0, num_after: 4 })).body;
		expect(oldest.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(0, 4));
		expect(oldest).toMatchObject({ found_oldest: true, found_newest: false, anchor: 0 });
	});

	test("an ID anchor: before, the anchor itself, after; include_anchor false at an end only", async () => {
		const res = (await get({ anchor: ids[4], num_before: 2, num_after: 2 })).body;
		expect(res.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(2, 7));
		expect(res).toMatchObject({ anchor: ids[4], found_anchor: true, found_oldest: false, found_newest: false });
		const before = (await get({ anchor: String(ids[4]), num_before: 2, num_after: 0, include_anchor: false })).body;
		expect(before.messages.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[3]]);
		expect(before.found_anchor).toBe(false);
		const after = (await get({ anchor: ids[4], num_before: 0, num_after: 2, include_anchor: false })).body;
		expect(after.messages.map((m: { id: number }) => m.id)).toEqual([ids[5], ids[6]]);
		// As Zulip (and POST /messages/flags/narrow): not in the middle of the range.
		const middle = await get({ anchor: ids[4], num_before: 1, num_after: 1, include_anchor: false });
		expectError(middle, 400, "BAD_REQUEST", "The anchor can only be excluded at an end of the range");
		expectError(await get({ anchor: ids[4], num_before: 1, num_after: 1, include_anchor: "no" }), 400, "BAD_REQUEST", "include_anchor is not a boolean");
		const past = (await get({ anchor: ids[9] + 1000, num_before: 2, num_after: 5 })).body;
		expect(past.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(-2));
		expect(past).toMatchObject({ found_anchor: false, found_newest: true });
	});

	test("first_unread, and the deprecated use_first_unread_anchor", async () => {
		const res = (await get({ anchor: "first_unread", num_before: 0, num_after: 1 })).body;
		expect(res.messages.map((m: { id: number }) => m.id)).toEqual([ids[0], ids[1]]);
		expect(res).toMatchObject({ anchor: ids[0], found_anchor: true });
		const old = (await get({ use_first_unread_anchor: true, num_before: 0, num_after: 1 })).body;
		expect(old.anchor).toBe(ids[0]);
		// As Zulip, the flag wins over an anchor sent with it (zulip-terminal sends anchor=0 with
		// it), whatever that anchor is; without the flag the anchor counts.
		for (const anchor of [0, ids[7], "newest", "middle"]) {
			const both = await get({ anchor, use_first_unread_anchor: true, num_before: 0, num_after: 1 });
			expectSuccess(both);
			expect(both.body).toMatchObject({ anchor: ids[0], found_anchor: true });
			expect(both.body.messages.map((m: { id: number }) => m.id)).toEqual([ids[0], ids[1]]);
		}
		const flagOff = (await get({ anchor: ids[7], use_first_unread_anchor: false, num_before: 0, num_after: 0 })).body;
		expect(flagOff.messages.map((m: { id: number }) => m.id)).toEqual([ids[7]]);
		expectError(await get({ anchor: 0, use_first_unread_anchor: "yes", num_before: 0, num_after: 1 }), 400, "BAD_REQUEST", "use_first_unread_anchor is not a boolean");
		// Fetching reads nothing as read.
		expect((await get({ anchor: "first_unread", num_before: 0, num_after: 0 })).body.anchor).toBe(ids[0]);
		const none = (await get({ anchor: "first_unread", num_before: 1, num_after: 0 }, owner)).body;
		expect(none.messages.map((m: { id: number }) => m.id)).toEqual([ids[9]]);
	});

	test("narrows: topic, sender, negation, is:unread, id", async () => {
		const odd = (await get({ anchor: "newest", num_before: 100, num_after: 0, narrow: [["channel", "counting"], ["topic", "ODD"]] })).body;
		expect(odd.messages.map((m: { id: number }) => m.id)).toEqual(ids.filter((_, i) => i % 2 === 0));
		const notOdd = (await get({ anchor: "newest", num_before: 100, num_after: 0, narrow: [{ operator: "channel", operand: "counting" }, { operator: "topic", operand: "odd", negated: true }] })).body;
		expect(notOdd.messages.map((m: { id: number }) => m.id)).toEqual(ids.filter((_, i) => i % 2 === 1));
		const bySender = (await get({ anchor: "newest", num_before: 100, num_after: 0, narrow: [["channel", "counting"], ["sender", app.owner.email]] })).body;
		expect(bySender.messages).toHaveLength(10);
		const unread = (await get({ anchor: "newest", num_before: 100, num_after: 0, narrow: [["channel", "counting"], ["is", "unread"]] })).body;
		expect(unread.messages).toHaveLength(10);
		const one = (await get({ anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "id", operand: ids[3] }] })).body;
		expect(one.messages.map((m: { id: number }) => m.id)).toEqual([ids[3]]);
	});

	test("an anchor below zero is the oldest; one past any ID, the newest", async () => {
		const low = (await get({ anchor: "-5", num_before: 0, num_after: 2 })).body;
		expect(low).toMatchObject({ anchor: 0, found_oldest: true });
		expect(low.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(0, 2));
		const high = (await get({ anchor: "99999999999999999999", num_before: 2, num_after: 0 })).body;
		expect(high).toMatchObject({ found_newest: true, found_anchor: false });
		expect(high.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(-2));
	});

	test("message_ids returns the accessible subset, and excludes anchors", async () => {
		const res = await as(alice).get("/messages", { message_ids: [ids[1], ids[2], 999999] });
		expectSuccess(res);
		expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([ids[1], ids[2]]);
		expect(res.body).not.toHaveProperty("anchor");
		// Zulip's error names its fixed list of parameters, whichever clashed.
		const combination = "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor";
		for (const clash of [{ anchor: "newest" }, { num_before: 1 }, { num_after: 2 }, { use_first_unread_anchor: true }]) {
			const refused = await as(alice).get("/messages", { message_ids: [ids[1]], ...clash });
			expectError(refused, 400, "BAD_REQUEST", combination);
			expect(refused.body.parameters).toBe(combination.split(": ")[1]);
		}
		// No window is no clash (Zulip tests the counts, not their presence).
		const zero = await as(alice).get("/messages", { message_ids: [ids[1]], num_before: 0, num_after: 0, include_anchor: true, use_first_unread_anchor: false });
		expectSuccess(zero);
		expect(zero.body.messages.map((m: { id: number }) => m.id)).toEqual([ids[1]]);
	});

	test("num_before and num_after default to 0, as in Zulip's get_messages_backend", async () => {
		const before = (await get({ anchor: ids[3], num_before: 2 })).body;
		expect(before.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(1, 4));
		expect(before).toMatchObject({ found_anchor: true, found_newest: false });
		const after = (await get({ anchor: ids[3], num_after: 1 })).body;
		expect(after.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(3, 5));
		// Neither: the anchor alone, or nothing when it is excluded.
		const alone = (await get({ anchor: ids[3] })).body;
		expect(alone).toMatchObject({ result: "success", anchor: ids[3], found_anchor: true });
		expect(alone.messages.map((m: { id: number }) => m.id)).toEqual([ids[3]]);
		const none = (await get({ anchor: ids[3], include_anchor: false })).body;
		expect(none).toMatchObject({ result: "success", found_anchor: false });
		expect(none.messages).toEqual([]);
	});

	test("bad requests: missing anchor, too many, bad anchors and narrows", async () => {
		// Zulip's own error here (not the generic missing-argument one).
		expectError(await get({ num_before: 1, num_after: 1 }), 400, "BAD_REQUEST", "Missing 'anchor' argument.");
		expectError(await get({ use_first_unread_anchor: false, num_before: 1, num_after: 1 }), 400, "BAD_REQUEST", "Missing 'anchor' argument.");
		expectError(await get({ anchor: "newest", num_before: 5000, num_after: 1 }), 400, "BAD_REQUEST", "Too many messages requested (maximum 5000).");
		expectError(await get({ anchor: "middle", num_before: 1, num_after: 1 }), 400, "BAD_REQUEST", "Invalid anchor");
		expectError(await get({ anchor: "newest", num_before: -1, num_after: 1 }), 400, "BAD_REQUEST");
		expectError(await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [["colour", "blue"]] }), 400, "BAD_NARROW", "Invalid narrow operator: unknown operator colour");
		expectError(await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [["channel", "nowhere"]] }), 400, "BAD_NARROW");
		expectError(await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: "channel:general" }), 400, "BAD_REQUEST");
		const terms = (n: number) => Array.from({ length: n }, () => ({ operator: "sender", operand: alice.user_id }));
		expectSuccess(await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: terms(50) }));
		expectError(await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: terms(51) }), 400, "BAD_NARROW", "Invalid narrow operator: too many terms (limit: 50)");
	});
});

describe("history rules per role and channel kind", () => {
	const kinds = { open: {}, shared: { invite_only: true, history_public_to_subscribers: true }, closed: { invite_only: true, history_public_to_subscribers: false } };
	const early: Record<string, number> = {};
	const channelIds: Record<string, number> = {};
	beforeAll(async () => {
		for (const [name, opts] of Object.entries(kinds)) {
			expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: `rules-${name}` }], ...opts }));
			channelIds[name] = (await owner.get("/get_stream_id", { stream: `rules-${name}` })).body.stream_id;
			await dropNotices(owner, channelIds[name]);
			early[name] = await send(owner, { type: "channel", to: `rules-${name}`, topic: "t", content: `before anyone (${name})` });
		}
	});
	const seen = async (c: Client, kind: string) => (await fetchAll(c, [{ operator: "channel", operand: channelIds[kind] }])).messages.map((m: { id: number }) => m.id);
	const join = (kind: string, user: Account) => owner.post("/users/me/subscriptions", { subscriptions: [{ name: `rules-${kind}` }], principals: [user.user_id] });

	test("members: a public channel's history without subscribing; a private one's only when subscribed and shared", async () => {
		const member = await app.createUser({ full_name: "Member Rules" });
		expect(await seen(as(member), "open")).toEqual([early.open]);
		expect(await seen(as(member), "shared")).toEqual([]);
		expect(await seen(as(member), "closed")).toEqual([]);
		expectError(await as(member).get(`/messages/${early.shared}`), 400, "BAD_REQUEST", "Invalid message(s)");
		expectSuccess(await join("shared", member));
		expectSuccess(await join("closed", member));
		expect(await seen(as(member), "shared")).toEqual([early.shared]);
		expect(await seen(as(member), "closed")).toEqual([]);
	});

	test("administrators: no private history without subscribing", async () => {
		const admin = await app.createUser({ full_name: "Admin Rules", role: 200 });
		expect(await seen(as(admin), "open")).toEqual([early.open]);
		expect(await seen(as(admin), "shared")).toEqual([]);
		expectError(await as(admin).get(`/messages/${early.shared}`), 400, "BAD_REQUEST", "Invalid message(s)");
	});

	test("guests: nothing from a public channel until subscribed, then its shared history", async () => {
		const guest = await app.createUser({ full_name: "Guest Rules", role: 600 });
		expect(await seen(as(guest), "open")).toEqual([]);
		expectError(await as(guest).get(`/messages/${early.open}`), 400, "BAD_REQUEST", "Invalid message(s)");
		expectSuccess(await join("open", guest));
		expect(await seen(as(guest), "open")).toEqual([early.open]);
	});

	test("an empty channel: no messages from any anchor, and both ends found", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "rules-empty" }] }));
		await dropNotices(owner, "rules-empty");
		for (const anchor of ["newest", "oldest", "first_unread", "12345"]) {
			const res = await owner.get("/messages", { anchor, num_before: 5, num_after: 5, narrow: [["channel", "rules-empty"]] });
			expectSuccess(res);
			expect(res.body).toMatchObject({ messages: [], found_oldest: true, found_newest: true, found_anchor: false, history_limited: false });
		}
	});

	test("no match: the anchor is answered as asked, newest (and first_unread with nothing unread) as Zulip's sentinel", async () => {
		const NEWEST = 10_000_000_000_000_000;
		const lonely = await app.createUser({ full_name: "Lonely" });
		// A channel without messages, and a direct conversation that has never had one.
		for (const narrow of [[["channel", "rules-empty"]], [["dm", lonely.email]]]) {
			for (const [anchor, answered] of [["newest", NEWEST], ["first_unread", NEWEST], ["oldest", 0], ["12345", 12345]] as const) {
				const res = await owner.get("/messages", { anchor, num_before: 5, num_after: 5, narrow: JSON.stringify(narrow) });
				expectSuccess(res);
				expect({ narrow, anchor: res.body.anchor, messages: res.body.messages }).toEqual({ narrow, anchor: answered, messages: [] });
			}
			expectError(await owner.get("/messages", { anchor: "nonsense", num_before: 5, num_after: 5, narrow: JSON.stringify(narrow) }), 400, "BAD_REQUEST", "Invalid anchor");
		}
	});
});

describe("history", () => {
	test("a new subscriber reads a public channel's earlier messages through a channel narrow, marked historical", async () => {
		const early = await send(owner, { type: "channel", to: "general", topic: "before dave", content: "old news" });
		const dave = await app.createUser({ full_name: "Dave" });
		expectSuccess(await as(dave).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
		const channel = await fetchAll(as(dave), [["channel", "general"]]);
		expect(channel.messages.find((m: { id: number }) => m.id === early).flags).toEqual(["read", "historical"]);
		// Not in the personal history, which holds what they received.
		expect((await fetchAll(as(dave))).messages.map((m: { id: number }) => m.id)).not.toContain(early);
		expect((await as(dave).get(`/messages/${early}`)).body.message.id).toBe(early);
	});

	test("a private channel without shared history shows a newcomer only what came after", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true }));
		const before = await send(owner, { type: "channel", to: "vault", topic: "t", content: "secret" });
		expectError(await as(bob).get(`/messages/${before}`), 400, "BAD_REQUEST", "Invalid message(s)");
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], principals: [bob.user_id] }));
		const after = await send(owner, { type: "channel", to: "vault", topic: "t", content: "newer" });
		const seen = (await fetchAll(as(bob), [["channel", "vault"]])).messages.map((m: { id: number }) => m.id);
		expect(seen).toEqual([after]);
		expectError(await as(bob).get(`/messages/${before}`), 400, "BAD_REQUEST", "Invalid message(s)");
	});

	test("GET /messages/{id}: raw content and the message; unknown IDs are refused", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "single", content: "*one*" });
		const res = await as(bob).get(`/messages/${id}`);
		expectSuccess(res);
		expect(res.body).toMatchObject({ raw_content: "*one*", message: { id, content: "<p><em>one</em></p>" } });
		expectError(await as(bob).get("/messages/999999"), 400, "BAD_REQUEST", "Invalid message(s)");
	});

	test("channels learn their first message; POST /register has max_message_id", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "fresh" }] }));
		const fresh = (await owner.get("/get_stream_id", { stream: "fresh" })).body.stream_id;
		// The first message is Notification Bot's creation notice.
		const [notice] = (await fetchAll(owner, [{ operator: "channel", operand: fresh }])).messages;
		expect(notice).toMatchObject({ sender_email: NOTIFICATION_BOT_EMAIL, subject: "channel events" });
		expect((await owner.get(`/streams/${fresh}`)).body.stream.first_message_id).toBe(notice.id);
		const id = await send(owner, { type: "channel", to: fresh, topic: "first", content: "1" });
		await send(owner, { type: "channel", to: fresh, topic: "first", content: "2" });
		await new Promise((r) => setTimeout(r, 100));
		expect((await owner.get(`/streams/${fresh}`)).body.stream.first_message_id).toBe(notice.id);
		const reg = await owner.post("/register", { fetch_event_types: ["message"] });
		expect(reg.body.max_message_id).toBeGreaterThan(id);
	});
});

describe("mentions", () => {
	async function flagsOf(c: Client, id: number): Promise<string[]> {
		return (await c.get("/messages", { message_ids: [id] })).body.messages[0].flags;
	}
	async function contentOf(id: number): Promise<string> {
		return (await owner.get(`/messages/${id}`)).body.message.content;
	}

	// An unknown name is not a mention; its asterisks are then ordinary emphasis, as in Zulip.
	test("@**Name** mentions a user: a span, and the mentioned flag for them only", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "mentions", content: "hi @**Bob** and @**Nobody Here**" });
		expect(await contentOf(id)).toBe(`<p>hi <span class="user-mention" data-user-id="${bob.user_id}">@Bob</span> and @<strong>Nobody Here</strong></p>`);
		expect(await flagsOf(as(bob), id)).toEqual(["mentioned"]);
		expect(await flagsOf(owner, id)).toEqual([]);
		expect((await fetchAll(as(bob), [["is", "mentioned"]])).messages.map((m: { id: number }) => m.id)).toContain(id);
	});

	test("@**Name|id** disambiguates; a name two users share mentions no one", async () => {
		const twin1 = await app.createUser({ full_name: "Twin" });
		const twin2 = await app.createUser({ full_name: "Twin" });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [twin1.user_id, twin2.user_id] }));
		const bare = await send(as(alice), { type: "channel", to: general, topic: "mentions", content: "@**Twin**" });
		expect(await flagsOf(as(twin1), bare)).toEqual([]);
		const exact = await send(as(alice), { type: "channel", to: general, topic: "mentions", content: `@**Twin|${twin2.user_id}**` });
		expect(await flagsOf(as(twin2), exact)).toEqual(["mentioned"]);
		expect(await flagsOf(as(twin1), exact)).toEqual([]);
		const wrong = await send(as(alice), { type: "channel", to: general, topic: "mentions", content: `@**Someone else|${twin2.user_id}**` });
		expect(await flagsOf(as(twin2), wrong)).toEqual([]);
	});

	test("silent mentions render without flagging", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "mentions", content: "@_**Bob**" });
		expect(await contentOf(id)).toBe(`<p><span class="user-mention silent" data-user-id="${bob.user_id}">Bob</span></p>`);
		expect(await flagsOf(as(bob), id)).toEqual([]);
	});

	test("group mentions flag the group's members who receive the message", async () => {
		const gid = (await owner.post("/user_groups/create", { name: "reviewers", description: "", members: [bob.user_id, carol.user_id] })).body.group_id;
		const id = await send(as(alice), { type: "channel", to: general, topic: "mentions", content: "ping @*reviewers*" });
		expect(await contentOf(id)).toBe(`<p>ping <span class="user-group-mention" data-user-group-id="${gid}">@reviewers</span></p>`);
		expect(await flagsOf(as(bob), id)).toEqual(["mentioned"]);
		// Carol (a guest) is not subscribed, so she did not receive it at all.
		expectError(await as(carol).get(`/messages/${id}`), 400, "BAD_REQUEST");
	});

	test("channel and topic wildcards", async () => {
		const all = await send(as(alice), { type: "channel", to: general, topic: "wild", content: "@**all** heads up" });
		expect(await flagsOf(as(bob), all)).toEqual(["stream_wildcard_mentioned", "wildcard_mentioned"]);
		expect(await flagsOf(as(alice), all)).toEqual(["read"]);
		await send(as(bob), { type: "channel", to: general, topic: "wild", content: "I am in this topic" });
		const topic = await send(as(alice), { type: "channel", to: general, topic: "wild", content: "@**topic** update" });
		expect(await contentOf(topic)).toBe('<p><span class="topic-mention">@topic</span> update</p>');
		expect(await flagsOf(as(bob), topic)).toEqual(["topic_wildcard_mentioned", "wildcard_mentioned"]);
		expect(await flagsOf(owner, topic)).toEqual([]);
	});

	test("mentions in code are not mentions", async () => {
		const id = await send(as(alice), { type: "channel", to: general, topic: "mentions", content: "`@**Bob**`\n\n```\n@**Bob**\n```" });
		expect(await flagsOf(as(bob), id)).toEqual([]);
		expect(await contentOf(id)).not.toContain("user-mention");
	});
});

describe("unread messages in POST /register, and is:resolved", () => {
	test("unread_msgs groups the caller's unread messages", async () => {
		const erin = await app.createUser({ full_name: "Erin" });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [erin.user_id] }));
		const c1 = await send(as(alice), { type: "channel", to: "general", topic: "Unread Topic", content: "one" });
		const c2 = await send(as(alice), { type: "channel", to: "general", topic: "unread topic", content: "two @**Erin**" });
		const dm = await send(as(alice), { type: "direct", to: [erin.user_id], content: "psst" });
		const group = await send(as(alice), { type: "direct", to: [erin.user_id, bob.user_id], content: "all of us" });
		const res = await as(erin).post("/register", { fetch_event_types: ["message", "update_message_flags"] });
		const u = res.body.unread_msgs;
		// Notification Bot told Erin she was subscribed to general.
		const notice = (await fetchAll(as(erin), [["is", "dm"]])).messages.find((m: { sender_email: string }) => m.sender_email === NOTIFICATION_BOT_EMAIL);
		expect(u.count).toBe(5);
		expect(u.streams).toEqual([{ topic: "Unread Topic", stream_id: general, unread_message_ids: [c1, c2] }]);
		expect(u.pms).toHaveLength(2);
		expect(u.pms).toEqual(
			expect.arrayContaining([
				{ other_user_id: notice.sender_id, sender_id: notice.sender_id, unread_message_ids: [notice.id] },
				{ other_user_id: alice.user_id, sender_id: alice.user_id, unread_message_ids: [dm] },
			]),
		);
		expect(u.huddles).toEqual([{ user_ids_string: [alice.user_id, bob.user_id, erin.user_id].sort((a, b) => a - b).join(","), unread_message_ids: [group] }]);
		expect(u.mentions).toEqual([c2]);
		expect(u.old_unreads_missing).toBe(false);
		expect(res.body.max_message_id).toBe(group);
		// Without update_message_flags there is no unread_msgs.
		expect((await as(erin).post("/register", { fetch_event_types: ["message"] })).body).not.toHaveProperty("unread_msgs");
	});

	test("is:resolved finds resolved topics", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "✔ done deal", content: "fixed" });
		await send(as(alice), { type: "channel", to: "general", topic: "open issue", content: "not yet" });
		const res = await fetchAll(as(alice), [["channel", "general"], ["is", "resolved"]]);
		expect(res.messages.map((m: { id: number }) => m.id)).toEqual([id]);
		const open = await fetchAll(as(alice), [{ operator: "channel", operand: "general" }, { operator: "is", operand: "resolved", negated: true }]);
		expect(open.messages.map((m: { id: number }) => m.id)).not.toContain(id);
	});
});

describe("Zulip's markdown", () => {
	async function rendered(content: string): Promise<string> {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "syntax", content });
		return (await as(alice).get(`/messages/${id}`)).body.message.content;
	}

	test("emoji by name; unknown names stay text", async () => {
		expect(await rendered(":smile: and :no_such_emoji:")).toBe(
			'<p><span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span> and :no_such_emoji:</p>',
		);
	});

	test("emoji by Zulip's names and aliases, not iamcal's", async () => {
		const span = (name: string, code: string) => `<span aria-label="${name.replace(/_/g, " ")}" class="emoji emoji-${code}" role="img" title="${name.replace(/_/g, " ")}">:${name}:</span>`;
		expect(await rendered(":working_on_it: :tools: :+1: :thumbs_up: :big_smile: :heart: :tada: :flag_åland_islands:")).toBe(
			`<p>${span("working_on_it", "1f6e0")} ${span("tools", "1f6e0")} ${span("+1", "1f44d")} ${span("thumbs_up", "1f44d")} ${span("big_smile", "1f604")} ${span("heart", "2764")} ${span("tada", "1f389")} ${span("flag_åland_islands", "1f1e6-1f1fd")}</p>`,
		);
		expect(await rendered(":thumbsup: :slightly_smiling_face:")).toBe("<p>:thumbsup: :slightly_smiling_face:</p>");
	});

	test("channel and topic links, only to channels the sender may know", async () => {
		const html = await rendered("see #**General** and #**general>lunch <plans>** and #**vault**");
		expect(html).toContain(`<a class="stream" data-stream-id="${general}" href="/#narrow/channel/${general}-general">#general</a>`);
		expect(html).toContain(`<a class="stream-topic" data-stream-id="${general}" href="/#narrow/channel/${general}-general/topic/lunch%20%3Cplans%3E">#general &gt; lunch &lt;plans&gt;</a>`);
		expect(html).not.toContain('class="stream" data-stream-id="' + (await owner.get("/get_stream_id", { stream: "vault" })).body.stream_id);
	});

	test("spoilers, quotes and code blocks", async () => {
		expect(await rendered("```spoiler The <end>\nIt was **him**\n```")).toBe(
			'<div class="spoiler-block"><div class="spoiler-header"><p>The &lt;end&gt;</p>\n</div><div class="spoiler-content" aria-hidden="true"><p>It was <strong>him</strong></p>\n</div></div>',
		);
		expect(await rendered("```quote\nwise words\n```")).toBe("<blockquote>\n<p>wise words</p>\n</blockquote>");
		expect(await rendered("```python\nprint('<hi>')\n```")).toBe('<pre><code class="language-python">print(\'&lt;hi&gt;\')\n</code></pre>');
	});
});

describe("alert words", () => {
	test("added, listed and removed; messages containing them are flagged for their owner", async () => {
		const c = as(bob);
		expect((await c.get("/users/me/alert_words")).body.alert_words).toEqual([]);
		expect((await c.post("/users/me/alert_words", { alert_words: ["Deploy", " outage ", ""] })).body.alert_words).toEqual(["Deploy", "outage"]);
		expect((await c.post("/users/me/alert_words", { alert_words: ["deploy"] })).body.alert_words).toEqual(["Deploy", "outage"]);
		const hit = await send(as(alice), { type: "channel", to: "general", topic: "ops", content: "the DEPLOY is done" });
		const miss = await send(as(alice), { type: "channel", to: "general", topic: "ops", content: "redeployment later" });
		const flags = async (id: number) => (await c.get("/messages", { message_ids: [id] })).body.messages[0].flags;
		expect(await flags(hit)).toEqual(["has_alert_word"]);
		expect(await flags(miss)).toEqual([]);
		expect((await fetchAll(c, [["is", "alerted"]])).messages.map((m: { id: number }) => m.id)).toEqual([hit]);
		expect((await c.delete("/users/me/alert_words", { alert_words: ["DEPLOY"] })).body.alert_words).toEqual(["outage"]);
		expect((await c.post("/register", { fetch_event_types: ["alert_words"] })).body.alert_words).toEqual(["outage"]);
	});

	test("an alert word over 100 characters is refused, naming it", async () => {
		expectError(await as(bob).post("/users/me/alert_words", { alert_words: ["ok", "x".repeat(101)] }), 400, "BAD_REQUEST", "alert_words[1] is too long (limit: 100 characters)");
		expect((await as(bob).get("/users/me/alert_words")).body.alert_words).toEqual(["outage"]);
		expectError(await as(bob).post("/users/me/alert_words", {}), 400, "REQUEST_VARIABLE_MISSING");
	});
});

describe("more narrows", () => {
	let linkMsg: number;
	let plainMsg: number;
	beforeAll(async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "narrowing" }], principals: [1, alice.user_id] }));
		await dropNotices(owner, "narrowing");
		linkMsg = await send(owner, { type: "channel", to: "narrowing", topic: "Search Me", content: "read https://example.com about Kittens" });
		plainMsg = await send(owner, { type: "channel", to: "narrowing", topic: "other", content: "puppies and kittens <3" });
	});
	const ids = (body: any) => body.messages.map((m: { id: number }) => m.id);

	test("has:link and its negation", async () => {
		expect(ids(await fetchAll(as(alice), [["channel", "narrowing"], ["has", "link"]]))).toEqual([linkMsg]);
		expect(ids(await fetchAll(as(alice), [{ operator: "channel", operand: "narrowing" }, { operator: "has", operand: "link", negated: true }]))).toEqual([plainMsg]);
		expectError(await as(alice).get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: [["has", "video"]] }), 400, "BAD_NARROW");
	});

	test("has:reaction, from the channel's history or the caller's own, and its negation", async () => {
		const liked = await send(owner, { type: "channel", to: "narrowing", topic: "reacts", content: "like me" });
		const ignored = await send(owner, { type: "channel", to: "narrowing", topic: "reacts", content: "or not" });
		expectSuccess(await as(alice).post(`/messages/${liked}/reactions`, { emoji_name: "smile" }));
		const inTopic = (has: unknown) => fetchAll(as(alice), [["channel", "narrowing"], ["topic", "reacts"], has]);
		expect(ids(await inTopic(["has", "reaction"]))).toEqual([liked]);
		expect(ids(await inTopic({ operator: "has", operand: "reaction", negated: true }))).toEqual([ignored]);
		const mine = ids(await fetchAll(as(alice), [["has", "reaction"]]));
		expect(mine).toContain(liked);
		expect(mine).not.toContain(ignored);
		expect(ids(await fetchAll(as(alice), [["has", "reaction"], { operator: "has", operand: "reaction", negated: true }]))).toEqual([]);
		expectSuccess(await as(alice).delete(`/messages/${liked}/reactions`, { emoji_name: "smile" }));
		expect(ids(await inTopic(["has", "reaction"]))).toEqual([]);
	});

	test("search: every keyword, in content or topic, with highlighting", async () => {
		const res = await fetchAll(as(alice), [["channel", "narrowing"], ["search", "kittens"]]);
		expect(ids(res)).toEqual([linkMsg, plainMsg]);
		const both = await fetchAll(as(alice), [["search", "kittens search"]]);
		expect(ids(both)).toEqual([linkMsg]);
		const m = both.messages[0];
		expect(m.match_content).toContain('<span class="highlight">Kittens</span>');
		expect(m.match_content).toContain('<a href="https://example.com"');
		expect(m.match_subject).toBe('<span class="highlight">Search</span> Me');
		expect(ids(await fetchAll(as(alice), [["search", "giraffes"]]))).toEqual([]);
	});

	test("channels:public searches every public channel's shared history", async () => {
		const frank = await app.createUser({ full_name: "Frank" });
		const res = await fetchAll(as(frank), [["channels", "public"], ["search", "kittens"]]);
		expect(ids(res)).toEqual([linkMsg, plainMsg]);
		expect(res.messages[0].flags).toEqual(["read", "historical"]);
		expectError(await as(frank).get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: [["channels", "private"]] }), 400, "BAD_NARROW");
		expect(ids(await fetchAll(as(carol), [["channels", "public"], ["search", "kittens"]]))).toEqual([]);
	});

	test("dm-including finds every conversation with that user", async () => {
		const one = await send(as(alice), { type: "direct", to: [carol.user_id], content: "1:1" });
		const group = await send(as(alice), { type: "direct", to: [carol.user_id, bob.user_id], content: "group" });
		const other = await send(as(alice), { type: "direct", to: [bob.user_id], content: "not carol" });
		const res = ids(await fetchAll(as(alice), [{ operator: "dm-including", operand: carol.user_id }]));
		expect(res).toEqual(expect.arrayContaining([one, group]));
		expect(res).not.toContain(other);
		// Oneself: every direct conversation; negated, every other message.
		expect(ids(await fetchAll(as(alice), [{ operator: "dm-including", operand: alice.user_id }]))).toEqual(expect.arrayContaining([one, group, other]));
		const notCarol = ids(await fetchAll(as(alice), [{ operator: "dm-including", operand: carol.user_id, negated: true }]));
		expect(notCarol).toContain(other);
		expect(notCarol).not.toContain(one);
	});

	test("sender, dm and dm-including take the system bots and deactivated users, as Zulip's narrows do", async () => {
		// Notification Bot's creation notice in a new channel's "channel events" topic, by email (any case) or ID.
		const events = await eventQueues(as, [app.owner], { register: { event_types: JSON.stringify(["message"]), narrow: JSON.stringify([["sender", NOTIFICATION_BOT_EMAIL]]) } });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "bot-news" }] }));
		const inChannel = (...terms: unknown[]) => fetchAll(owner, [["channel", "bot-news"], ...terms]);
		const notices = (await inChannel(["sender", NOTIFICATION_BOT_EMAIL])).messages;
		expect(notices).toHaveLength(1);
		expect(notices[0]).toMatchObject({ sender_email: NOTIFICATION_BOT_EMAIL, subject: "channel events" });
		const botId: number = notices[0].sender_id;
		expect(ids(await inChannel(["sender", NOTIFICATION_BOT_EMAIL.toUpperCase()]))).toEqual([notices[0].id]);
		expect(ids(await inChannel({ operator: "sender", operand: botId }))).toEqual([notices[0].id]);
		const own = await send(owner, { type: "channel", to: "bot-news", topic: "mine", content: "by a person" });
		expect(ids(await inChannel({ operator: "sender", operand: NOTIFICATION_BOT_EMAIL, negated: true }))).toEqual([own]);
		// POST /messages/flags/narrow reads the same narrow.
		const starred = await owner.post("/messages/flags/narrow", {
			anchor: "newest",
			num_before: 10,
			num_after: 0,
			narrow: JSON.stringify([["channel", "bot-news"], ["sender", NOTIFICATION_BOT_EMAIL]]),
			op: "add",
			flag: "starred",
		});
		expectSuccess(starred);
		expect(starred.body).toMatchObject({ processed_count: 1, first_processed_id: notices[0].id });
		// An event queue registered with that narrow gets the bot's messages only.
		expect((await events(app.owner)).map((e) => e.message.id)).toEqual([notices[0].id]);

		// The bot's direct messages: "subscribed you" when someone else subscribes Bob.
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "bot-news" }], principals: [bob.user_id] }));
		const fromBot = ids(await fetchAll(as(bob), [["is", "dm"], { operator: "sender", operand: botId }]));
		expect(fromBot.length).toBeGreaterThan(0);
		expect(ids(await fetchAll(as(bob), [["dm", NOTIFICATION_BOT_EMAIL]]))).toEqual(fromBot);
		expect(ids(await fetchAll(as(bob), [{ operator: "dm", operand: [botId] }]))).toEqual(fromBot);
		expect(ids(await fetchAll(as(bob), [{ operator: "dm-including", operand: botId }]))).toEqual(fromBot);

		// A deactivated user's messages stay findable; an unknown user is still refused.
		const leaving = await app.createUser({ full_name: "Leaving" });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "bot-news" }], principals: [leaving.user_id] }));
		const last = await send(as(leaving), { type: "channel", to: "bot-news", topic: "bye", content: "bye" });
		expectSuccess(await owner.delete(`/users/${leaving.user_id}`));
		expect(ids(await inChannel({ operator: "sender", operand: leaving.user_id }))).toEqual([last]);
		const get = (narrow: unknown[]) => owner.get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow });
		expectError(await get([["sender", "nobody@zulip.com"]]), 400, "BAD_NARROW", /unknown user/);
		expectError(await get([{ operator: "sender", operand: 99999999 }]), 400, "BAD_NARROW", /unknown user/);
	});

	test("with: the conversation a message is in now, wherever the narrow thought it was", async () => {
		const first = await send(owner, { type: "channel", to: "narrowing", topic: "draft name", content: "w1" });
		const second = await send(owner, { type: "channel", to: "narrowing", topic: "draft name", content: "w2" });
		expectSuccess(await owner.patch(`/messages/${first}`, { topic: "final name", propagate_mode: "change_all", send_notification_to_new_thread: false }));
		const moved = await fetchAll(as(alice), [["channel", "narrowing"], ["topic", "draft name"], { operator: "with", operand: first }]);
		expect(ids(moved)).toEqual([first, second]);
		expect(moved.messages[0].subject).toBe("final name");
		// Other terms stay.
		expect(ids(await fetchAll(as(alice), [["with", String(second)], ["search", "w1"]]))).toEqual([first]);
		// A direct message: its conversation.
		const dm = await send(as(alice), { type: "direct", to: [bob.user_id], content: "between us" });
		const conversation = ids(await fetchAll(as(bob), [{ operator: "dm", operand: [alice.user_id] }]));
		expect(conversation).toContain(dm);
		expect(ids(await fetchAll(as(bob), [["channel", "general"], { operator: "with", operand: dm }]))).toEqual(conversation);
	});

	test("with: a message out of reach is ignored where the narrow names a conversation, refused elsewhere", async () => {
		const secret = await send(as(alice), { type: "direct", to: [bob.user_id], content: "not for carol" });
		const own = await send(owner, { type: "channel", to: "narrowing", topic: "other", content: "for all" });
		expect(ids(await fetchAll(as(carol), [["channel", "narrowing"], ["topic", "other"], { operator: "with", operand: secret }]))).toEqual([]);
		expect(ids(await fetchAll(owner, [["channel", "narrowing"], ["topic", "other"], { operator: "with", operand: secret }]))).toContain(own);
		const get = (narrow: unknown[]) => as(carol).get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow });
		expectError(await get([{ operator: "with", operand: secret }]), 400, "BAD_NARROW", "Invalid narrow operator: Invalid 'with' operator");
		expectError(await get([{ operator: "with", operand: 99999999 }]), 400, "BAD_NARROW", "Invalid narrow operator: Invalid 'with' operator");
		expectError(await get([["with", "soon"]]), 400, "BAD_NARROW", "Invalid narrow operator: Invalid 'with' operator");
		expectError(await get([{ operator: "with", operand: own }, { operator: "with", operand: own }]), 400, "BAD_NARROW", "Invalid narrow operator combination: Duplicate 'with' operators.");
	});

	test("near sets the anchor", async () => {
		const res = (await as(alice).get("/messages", { anchor: "newest", num_before: 0, num_after: 0, narrow: [["channel", "narrowing"], ["near", String(linkMsg)]] })).body;
		expect(res.anchor).toBe(linkMsg);
		expect(ids(res)).toEqual([linkMsg]);
	});
});

describe("is:muted and is:followed", () => {
	test("follow a topic's and a muted channel's messages, with unmuted topics excepted", async () => {
		const grace = await app.createUser({ full_name: "Grace" });
		for (const name of ["quiet", "loud"]) {
			expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], principals: [1, grace.user_id] }));
			await dropNotices(owner, name);
		}
		const quiet = (await owner.get("/get_stream_id", { stream: "quiet" })).body.stream_id;
		const loud = (await owner.get("/get_stream_id", { stream: "loud" })).body.stream_id;
		const q1 = await send(owner, { type: "channel", to: "quiet", topic: "a", content: "1" });
		const q2 = await send(owner, { type: "channel", to: "quiet", topic: "b", content: "2" });
		const l1 = await send(owner, { type: "channel", to: "loud", topic: "noise", content: "3" });
		const l2 = await send(owner, { type: "channel", to: "loud", topic: "news", content: "4" });
		const g = as(grace);
		expectSuccess(await g.post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: quiet, property: "is_muted", value: true }] }));
		expectSuccess(await g.post("/user_topics", { stream_id: quiet, topic: "b", visibility_policy: 2 }));
		expectSuccess(await g.post("/user_topics", { stream_id: loud, topic: "noise", visibility_policy: 1 }));
		expectSuccess(await g.post("/user_topics", { stream_id: loud, topic: "news", visibility_policy: 3 }));
		const idsOf = async (narrow: unknown[]) => (await fetchAll(g, narrow)).messages.map((m: { id: number }) => m.id);
		expect(await idsOf([["is", "muted"]])).toEqual([q1, l1]);
		expect(await idsOf([{ operator: "is", operand: "muted", negated: true }])).toEqual(expect.arrayContaining([q2, l2]));
		expect(await idsOf([{ operator: "is", operand: "muted", negated: true }])).not.toEqual(expect.arrayContaining([q1]));
		expect(await idsOf([["is", "followed"]])).toEqual([l2]);
		expect(await idsOf([["channel", "loud"], ["is", "followed"]])).toEqual([l2]);

		// first_unread skips muted topics, and muted channels unless the narrow names the channel.
		const firstUnread = async (narrow: unknown[]) => (await g.get("/messages", { anchor: "first_unread", num_before: 0, num_after: 0, narrow })).body.anchor;
		expect(await firstUnread([])).toBe(q2);
		expect(await firstUnread([["channel", "quiet"]])).toBe(q1);
		expect(await firstUnread([["channel", "loud"]])).toBe(l2);
	});
});
