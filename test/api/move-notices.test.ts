// Notification Bot: the system bot, and the notices it posts when topics are moved, resolved or
// unresolved (send_notification_to_old_thread / send_notification_to_new_thread).
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { clock } from "../../shared/clock";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let carol: Account;
let bot: { user_id: number; email: string; full_name: string };
let general: number;
let elsewhere: number;
const as = (a: Account) => client(app.baseUrl, a);

async function send(c: Client, topic: string, content: string, to = "general"): Promise<number> {
	const res = await c.post("/messages", { type: "channel", to, topic, content });
	expectSuccess(res);
	return res.body.id;
}
async function topic(c: Client, name: string, channel = "general"): Promise<any[]> {
	const res = await c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: [{ operator: "channel", operand: channel }, ["topic", name]] });
	expectSuccess(res);
	return res.body.messages;
}
/** The raw text of Notification Bot's messages in a topic, oldest first. */
async function notices(name: string, channel = "general"): Promise<string[]> {
	const mine = (await topic(as(bob), name, channel)).filter((m) => m.sender_id === bot.user_id);
	return Promise.all(mine.map(async (m) => (await as(bob).get(`/messages/${m.id}`)).body.raw_content));
}
const names = new Map<number, string>();
const mention = (a: Account) => `@_**${names.get(a.user_id)}|${a.user_id}**`;

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol" });
	for (const [a, name] of [[alice, "Alice"], [bob, "Bob"], [carol, "Carol"]] as const) names.set(a.user_id, name);
	for (const name of ["general", "elsewhere"]) {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], principals: [1, alice.user_id, bob.user_id, carol.user_id] }));
	}
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	elsewhere = (await owner.get("/get_stream_id", { stream: "elsewhere" })).body.stream_id;
	bot = (await owner.post("/register", { fetch_event_types: ["realm_user"] })).body.cross_realm_bots[0];
});
afterAll(() => app.stop());
afterEach(() => clock.reset());

describe("the bot", () => {
	test("is a system bot outside the organization's user list, found by ID, managed by no one", async () => {
		expect(bot).toMatchObject({ email: "notification-bot@zulip.com", full_name: "Notification Bot", is_bot: true, is_system_bot: true, bot_type: 1 });
		const users = (await owner.get("/users")).body.members.map((u: { user_id: number }) => u.user_id);
		expect(users).not.toContain(bot.user_id);
		const reg = (await owner.post("/register", { fetch_event_types: ["realm_user"] })).body;
		expect(reg.realm_users.map((u: { user_id: number }) => u.user_id)).not.toContain(bot.user_id);
		// It can be looked up by ID, as message senders are, but not managed.
		expect((await owner.get(`/users/${bot.user_id}`)).body.user).toMatchObject({ user_id: bot.user_id, full_name: "Notification Bot", is_bot: true });
		expectError(await owner.patch(`/users/${bot.user_id}`, { full_name: "Impostor" }), 400, "BAD_REQUEST", "No such user");
		expectError(await owner.delete(`/users/${bot.user_id}`), 400, "BAD_REQUEST", "No such user");
		expect((await owner.get(`/users/${bot.user_id}`)).body.user.full_name).toBe("Notification Bot");
	});
});

describe("moves", () => {
	test("a whole topic: announced in the new topic by default, as Notification Bot", async () => {
		const ids = [await send(as(alice), "plans", "one"), await send(as(alice), "plans", "two")];
		expectSuccess(await as(bob).patch(`/messages/${ids[0]}`, { topic: "roadmap", propagate_mode: "change_all" }));
		expect(await notices("roadmap")).toEqual([`This topic was moved here from #**general>plans** by ${mention(bob)}.`]);
		expect(await notices("plans")).toEqual([]);
		const [n] = (await topic(as(alice), "roadmap")).slice(-1);
		expect(n).toMatchObject({ sender_id: bot.user_id, sender_full_name: "Notification Bot", sender_email: "notification-bot@zulip.com", flags: [] });
		expect(n.content).toContain(`<a class="stream-topic" data-stream-id="${general}" href="/#narrow/channel/${general}-general/topic/plans">#general &gt; plans</a>`);
		expect(n.content).toContain(`<span class="user-mention silent" data-user-id="${bob.user_id}">Bob</span>`);
		// A silent mention mentions no one.
		expect((await topic(as(bob), "roadmap")).slice(-1)[0].flags).toEqual([]);
	});

	test("both threads when asked; the old one names where the topic went", async () => {
		const id = await send(as(alice), "misplaced", "hello");
		expectSuccess(await as(alice).patch(`/messages/${id}`, { stream_id: elsewhere, topic: "found", propagate_mode: "change_all", send_notification_to_old_thread: true }));
		expect(await notices("found", "elsewhere")).toEqual([`This topic was moved here from #**general>misplaced** by ${mention(alice)}.`]);
		expect(await notices("misplaced")).toEqual([`This topic was moved to #**elsewhere>found** by ${mention(alice)}.`]);
	});

	test("one message of several: a link to it in the new topic, and a count in the old", async () => {
		const ids = [await send(as(alice), "mixed", "stay"), await send(as(alice), "mixed", "go")];
		expectSuccess(await as(alice).patch(`/messages/${ids[1]}`, { topic: "split", send_notification_to_old_thread: true }));
		expect(await notices("split")).toEqual([`[A message](http://chat.test/#narrow/channel/${general}-general/topic/split/near/${ids[1]}) was moved here from #**general>mixed** by ${mention(alice)}.`]);
		expect(await notices("mixed")).toEqual([`A message was moved from this topic to #**general>split** by ${mention(alice)}.`]);
	});

	test("several messages, or into a topic that has messages already: counted", async () => {
		const ids = [await send(as(alice), "long", "a"), await send(as(alice), "long", "b"), await send(as(alice), "long", "c")];
		expectSuccess(await as(alice).patch(`/messages/${ids[1]}`, { topic: "tail", propagate_mode: "change_later", send_notification_to_old_thread: true }));
		expect(await notices("tail")).toEqual([`2 messages were moved here from #**general>long** by ${mention(alice)}.`]);
		expect(await notices("long")).toEqual([`2 messages were moved from this topic to #**general>tail** by ${mention(alice)}.`]);
		// A whole topic into one that has messages already.
		const whole = [await send(as(alice), "src", "x"), await send(as(alice), "src", "y")];
		await send(as(alice), "dst", "z");
		expectSuccess(await as(alice).patch(`/messages/${whole[0]}`, { topic: "dst", propagate_mode: "change_all" }));
		expect(await notices("dst")).toEqual([`2 messages were moved here from #**general>src** by ${mention(alice)}.`]);
	});

	test("no notices when both are turned off", async () => {
		const id = await send(as(alice), "quiet", "shh");
		expectSuccess(await as(alice).patch(`/messages/${id}`, { topic: "silent", send_notification_to_new_thread: false, send_notification_to_old_thread: false }));
		expect(await topic(as(bob), "silent")).toHaveLength(1);
		expect(await topic(as(bob), "quiet")).toHaveLength(0);
	});

	test("a non-boolean notification flag is refused and nothing moves", async () => {
		const id = await send(as(alice), "stays", "put");
		for (const key of ["send_notification_to_old_thread", "send_notification_to_new_thread"]) {
			expectError(await as(alice).patch(`/messages/${id}`, { topic: "moved", [key]: "perhaps" }), 400, "BAD_REQUEST");
		}
		expect((await topic(as(bob), "stays")).map((m) => m.id)).toEqual([id]);
		expect(await topic(as(bob), "moved")).toEqual([]);
	});
});

describe("resolving", () => {
	test("announced in the topic, unread only for those who took part; no move notice", async () => {
		const id = await send(as(alice), "bug", "broken");
		expectSuccess(await as(carol).post(`/messages/${id}/reactions`, { emoji_name: "smile" }));
		expectSuccess(await as(bob).patch(`/messages/${id}`, { topic: "✔ bug", propagate_mode: "change_all" }));
		expect(await notices("✔ bug")).toEqual([`${mention(bob)} has marked this topic as resolved.`]);
		const flagsOf = async (a: Account) => (await topic(as(a), "✔ bug")).slice(-1)[0].flags;
		expect(await flagsOf(alice)).toEqual([]);
		expect(await flagsOf(carol)).toEqual([]);
		expect(await flagsOf(bob)).toEqual(["read"]);
		expect((await topic(owner, "✔ bug")).slice(-1)[0].flags).toEqual(["read"]);

		// A minute later, unresolving is announced too.
		clock.advance(61_000);
		expectSuccess(await as(alice).patch(`/messages/${id}`, { topic: "bug", propagate_mode: "change_all" }));
		expect(await notices("bug")).toEqual([`${mention(bob)} has marked this topic as resolved.`, `${mention(alice)} has marked this topic as unresolved.`]);
	});

	test("undone within a minute: the notice is deleted, and nothing is added", async () => {
		const id = await send(as(alice), "flaky", "sometimes");
		expectSuccess(await as(bob).patch(`/messages/${id}`, { topic: "✔ flaky", propagate_mode: "change_all" }));
		const [notice] = (await topic(as(bob), "✔ flaky")).filter((m) => m.sender_id === bot.user_id);
		expectSuccess(await as(bob).patch(`/messages/${id}`, { topic: "flaky", propagate_mode: "change_all" }));
		expect(await notices("flaky")).toEqual([]);
		expect((await topic(as(bob), "flaky")).map((m) => m.id)).toEqual([id]);
		expectError(await as(bob).get(`/messages/${notice.id}`), 400, "BAD_REQUEST", "Invalid message(s)");
		// Not when someone has written since: the notice is no longer the topic's last message.
		expectSuccess(await as(bob).patch(`/messages/${id}`, { topic: "✔ flaky", propagate_mode: "change_all" }));
		const reply = await send(as(carol), "✔ flaky", "thanks");
		expectSuccess(await as(bob).patch(`/messages/${id}`, { topic: "flaky", propagate_mode: "change_all" }));
		expect(await notices("flaky")).toEqual([`${mention(bob)} has marked this topic as resolved.`, `${mention(bob)} has marked this topic as unresolved.`]);
		expect((await topic(as(bob), "flaky")).map((m) => m.id)).toContain(reply);
	});

	test("resolving while moving to another channel: both notices there", async () => {
		const id = await send(as(alice), "crash", "again");
		expectSuccess(await as(alice).patch(`/messages/${id}`, { stream_id: elsewhere, topic: "✔ crash", propagate_mode: "change_all" }));
		expect(await notices("✔ crash", "elsewhere")).toEqual([`${mention(alice)} has marked this topic as resolved.`, `This topic was moved here from #**general>crash** by ${mention(alice)}.`]);
	});

	test("renaming and resolving at once is a move", async () => {
		const id = await send(as(alice), "typo", "x");
		expectSuccess(await as(alice).patch(`/messages/${id}`, { topic: "✔ fixed", propagate_mode: "change_all" }));
		expect(await notices("✔ fixed")).toEqual([`This topic was moved here from #**general>typo** by ${mention(alice)}.`]);
	});
});
