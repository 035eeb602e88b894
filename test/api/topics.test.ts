// GET /users/me/{stream_id}/topics: a channel's topics newest first, with the newest message ID
// the caller may see; the history rules of each channel kind; the empty topic; bad requests.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, sendMessage as send, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let alice: Account;
const as = (a: Account) => client(app.baseUrl, a);
const ids: Record<string, number> = {};
/** Each channel's first message: Notification Bot's creation notice, in "channel events". */
const notice: Record<number, number> = {};

async function channel(name: string, opts: Record<string, unknown> = {}, principals?: number[]): Promise<number> {
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], ...opts, ...(principals ? { principals } : {}) }));
	const id = (await owner.get("/get_stream_id", { stream: name })).body.stream_id;
	notice[id] = (await owner.get(`/streams/${id}`)).body.stream.first_message_id;
	return id;
}

async function topicsOf(c: Client, channelId: number, params: Record<string, unknown> = {}) {
	const res = await c.get(`/users/me/${channelId}/topics`, params);
	expectSuccess(res);
	expect(Object.keys(res.body).sort()).toEqual(["msg", "result", "topics"]);
	return res.body.topics;
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	ids.town = await channel("town");
	const m = (topic: string, content = `in ${topic || "the empty topic"}`) => send(owner, { type: "channel", to: "town", topic, content });
	ids.lunch1 = await m("lunch");
	ids.news = await m("news");
	ids.lunch2 = await m("Lunch", "casing of the newest message wins");
	ids.empty = await m("");
	ids.zebra = await m("zebra");
});
afterAll(() => app.stop());

test("one entry per topic, newest first, named as its newest message spells it", async () => {
	expect(await topicsOf(owner, ids.town)).toEqual([
		{ name: "zebra", max_id: ids.zebra },
		{ name: "general chat", max_id: ids.empty },
		{ name: "Lunch", max_id: ids.lunch2 },
		{ name: "news", max_id: ids.news },
		{ name: "channel events", max_id: notice[ids.town] },
	]);
});

test("the empty topic as itself with allow_empty_topic_name", async () => {
	const topics = await topicsOf(owner, ids.town, { allow_empty_topic_name: true });
	expect(topics[1]).toEqual({ name: "", max_id: ids.empty });
	expect((await topicsOf(owner, ids.town, { allow_empty_topic_name: false }))[1].name).toBe("general chat");
});

test("a public channel's whole history for a member who never subscribed; guests need a subscription", async () => {
	expect((await topicsOf(as(alice), ids.town)).map((t: { name: string }) => t.name)).toEqual(["zebra", "general chat", "Lunch", "news", "channel events"]);
	const guest = await app.createUser({ full_name: "Guest", role: 600 });
	expectError(await as(guest).get(`/users/me/${ids.town}/topics`), 400, "BAD_REQUEST", "Invalid channel ID");
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "town" }], principals: [guest.user_id] }));
	expect(await topicsOf(as(guest), ids.town)).toHaveLength(5);
});

test("a private channel without shared history: only what the caller received", async () => {
	const vault = await channel("vault", { invite_only: true, history_public_to_subscribers: false });
	const before = await send(owner, { type: "channel", to: "vault", topic: "before", content: "x" });
	const shared = await send(owner, { type: "channel", to: "vault", topic: "shared", content: "x" });
	const bob = await app.createUser({ full_name: "Bob" });
	// Not subscribed: as unknown as a channel that does not exist, even to an administrator.
	expectError(await as(bob).get(`/users/me/${vault}/topics`), 400, "BAD_REQUEST", "Invalid channel ID");
	const admin = await app.createUser({ full_name: "Admin", role: 200 });
	expectError(await as(admin).get(`/users/me/${vault}/topics`), 400, "BAD_REQUEST", "Invalid channel ID");
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], principals: [bob.user_id] }));
	expect(await topicsOf(as(bob), vault)).toEqual([]);
	const later = await send(owner, { type: "channel", to: "vault", topic: "SHARED", content: "after bob joined" });
	expect(await topicsOf(as(bob), vault)).toEqual([{ name: "SHARED", max_id: later }]);
	expect(await topicsOf(owner, vault)).toEqual([
		{ name: "SHARED", max_id: later },
		{ name: "before", max_id: before },
		{ name: "channel events", max_id: notice[vault] },
	]);
	expect(shared).toBeLessThan(later);
});

test("a private channel with shared history: everything, once subscribed", async () => {
	const club = await channel("club", { invite_only: true, history_public_to_subscribers: true });
	const early = await send(owner, { type: "channel", to: "club", topic: "early", content: "x" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "club" }], principals: [alice.user_id] }));
	expect(await topicsOf(as(alice), club)).toEqual([
		{ name: "early", max_id: early },
		{ name: "channel events", max_id: notice[club] },
	]);
});

test("a new channel has only its creation notice's topic; moved messages take their topic with them", async () => {
	const quiet = await channel("quiet", {}, [1, alice.user_id]);
	const events = { name: "channel events", max_id: notice[quiet] };
	expect(await topicsOf(as(alice), quiet)).toEqual([events]);
	const a = await send(as(alice), { type: "channel", to: "quiet", topic: "draft", content: "one" });
	const b = await send(as(alice), { type: "channel", to: "quiet", topic: "draft", content: "two" });
	expectSuccess(await owner.patch(`/messages/${a}`, { topic: "final", propagate_mode: "change_all", send_notification_to_new_thread: false }));
	expect(await topicsOf(as(alice), quiet)).toEqual([{ name: "final", max_id: b }, events]);
});

test("bad requests change nothing and name the problem", async () => {
	const before = await topicsOf(owner, ids.town);
	expectError(await owner.get("/users/me/999999/topics"), 400, "BAD_REQUEST", "Invalid channel ID");
	expectError(await owner.get(`/users/me/${ids.town}/topics`, { allow_empty_topic_name: "maybe" }), 400, "BAD_REQUEST", "allow_empty_topic_name is not a boolean");
	expect((await owner.get("/users/me/abc/topics")).status).toBe(404);
	expectError(await client(app.baseUrl, null).get(`/users/me/${ids.town}/topics`), 401, "UNAUTHORIZED");
	expect(await topicsOf(owner, ids.town)).toEqual(before);
});
