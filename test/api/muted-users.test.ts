// Muted users (POST and DELETE /users/me/muted_users/{muted_user_id}, `muted_users` in
// POST /register and its event, a muted sender's messages read for the muter) and read receipts
// (GET /messages/{message_id}/read_receipts), as Zulip's views and actions do them.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, NOTIFICATION_BOT_EMAIL, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues } from "../support/events";

let app: TestApp;
let snap: Snapshotter;
let owner: Client;
let alice: Account;
let bob: Account;
let carol: Account;
let general: number;
const as = (a: Account) => client(app.baseUrl, a);

async function mutesOf(a: Account) {
	const res = await as(a).post("/register", { fetch_event_types: JSON.stringify(["muted_users"]) });
	expectSuccess(res);
	return res.body.muted_users as Array<{ id: number; timestamp: number }>;
}

async function flagsOf(a: Account, id: number): Promise<string[]> {
	const res = await as(a).get(`/messages/${id}`);
	expectSuccess(res);
	return res.body.message.flags;
}

const markRead = async (a: Account, ids: number[]) => expectSuccess(await as(a).post("/messages/flags", { messages: JSON.stringify(ids), op: "add", flag: "read" }));
const receipts = (c: Client, id: number | string) => c.get(`/messages/${id}/read_receipts`);

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id, carol.user_id] }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap?.close();
	await app.stop();
});

describe("muting users", () => {
	test("mute and unmute: register state, the muter's muted_users event, nothing for the muted user", async () => {
		const queues = await eventQueues(as, [alice, bob], { register: { fetch_event_types: JSON.stringify([]) }, keep: (e) => e.type === "muted_users" });
		expect(await mutesOf(alice)).toEqual([]);
		const before = Math.floor(Date.now() / 1000);
		expectSuccess(await as(alice).post(`/users/me/muted_users/${bob.user_id}`));
		const muted = await mutesOf(alice);
		expect(muted).toEqual([{ id: bob.user_id, timestamp: expect.any(Number) }]);
		expect(muted[0].timestamp).toBeGreaterThanOrEqual(before);
		expect(await queues(alice)).toEqual([{ type: "muted_users", muted_users: muted }]);
		expect(await mutesOf(bob)).toEqual([]);

		expectSuccess(await as(alice).post(`/users/me/muted_users/${carol.user_id}`));
		const both = await mutesOf(alice);
		expect(both.map((m) => m.id)).toEqual([bob.user_id, carol.user_id].sort((a, b) => a - b));
		expect(await queues(alice)).toEqual([{ type: "muted_users", muted_users: both }]);

		expectSuccess(await as(alice).delete(`/users/me/muted_users/${bob.user_id}`));
		expect(await mutesOf(alice)).toEqual([{ id: carol.user_id, timestamp: expect.any(Number) }]);
		expect(await queues(alice)).toEqual([{ type: "muted_users", muted_users: [{ id: carol.user_id, timestamp: expect.any(Number) }] }]);
		expectSuccess(await as(alice).delete(`/users/me/muted_users/${carol.user_id}`));
		expect(await queues(alice)).toEqual([{ type: "muted_users", muted_users: [] }]);
		expect(await queues(bob)).toEqual([]);
	});

	test("bots, deactivated users and the system bots may be muted, as in Zulip", async () => {
		const bot = await app.createUser({ full_name: "Helper Bot", is_bot: true, bot_owner_id: alice.user_id });
		const gone = await app.createUser({ full_name: "Gone" });
		expectSuccess(await owner.delete(`/users/${gone.user_id}`));
		const reg = await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm_user"]) });
		const notificationBot = (reg.body.cross_realm_bots as Array<{ user_id: number; email: string }>).find((b) => b.email === NOTIFICATION_BOT_EMAIL)!.user_id;
		for (const id of [bot.user_id, gone.user_id, notificationBot]) expectSuccess(await as(alice).post(`/users/me/muted_users/${id}`));
		expect((await mutesOf(alice)).map((m) => m.id)).toEqual([bot.user_id, gone.user_id, notificationBot].sort((a, b) => a - b));
		for (const id of [bot.user_id, gone.user_id, notificationBot]) expectSuccess(await as(alice).delete(`/users/me/muted_users/${id}`));
		expect(await mutesOf(alice)).toEqual([]);
	});

	test("refusals, each in Zulip's words and changing nothing", async () => {
		expectSuccess(await as(alice).post(`/users/me/muted_users/${bob.user_id}`));
		await snap.refused(() => as(alice).post(`/users/me/muted_users/${alice.user_id}`), 400, "BAD_REQUEST", "Cannot mute self");
		await snap.refused(() => as(alice).post(`/users/me/muted_users/${bob.user_id}`), 400, "BAD_REQUEST", "User already muted");
		await snap.refused(() => as(alice).post("/users/me/muted_users/999999"), 400, "BAD_REQUEST", "No such user");
		await snap.refused(() => as(alice).post("/users/me/muted_users/0"), 400, "BAD_REQUEST", "No such user");
		await snap.refused(() => as(alice).delete(`/users/me/muted_users/${carol.user_id}`), 400, "BAD_REQUEST", "User is not muted");
		await snap.refused(() => as(alice).delete(`/users/me/muted_users/${alice.user_id}`), 400, "BAD_REQUEST", "User is not muted");
		await snap.refused(() => as(alice).delete("/users/me/muted_users/999999"), 400, "BAD_REQUEST", "No such user");
		// Another user's mute is theirs alone.
		await snap.refused(() => as(carol).delete(`/users/me/muted_users/${bob.user_id}`), 400, "BAD_REQUEST", "User is not muted");
		await snap.refused(() => client(app.baseUrl).post(`/users/me/muted_users/${bob.user_id}`), 401, "UNAUTHORIZED", /./);
		expectSuccess(await as(alice).delete(`/users/me/muted_users/${bob.user_id}`));
	});

	test("two racing mutes of one user store one; two racing unmutes remove it once", async () => {
		const answers = await Promise.all([as(carol).post(`/users/me/muted_users/${bob.user_id}`), as(carol).post(`/users/me/muted_users/${bob.user_id}`)]);
		expect(answers.map((r) => r.body.result).sort()).toEqual(["error", "success"]);
		expect(answers.find((r) => r.body.result === "error")!.body.msg).toBe("User already muted");
		expect((await mutesOf(carol)).map((m) => m.id)).toEqual([bob.user_id]);
		const undone = await Promise.all([as(carol).delete(`/users/me/muted_users/${bob.user_id}`), as(carol).delete(`/users/me/muted_users/${bob.user_id}`)]);
		expect(undone.map((r) => r.body.result).sort()).toEqual(["error", "success"]);
		expect(undone.find((r) => r.body.result === "error")!.body.msg).toBe("User is not muted");
		expect(await mutesOf(carol)).toEqual([]);
	});

	test("muting marks what the muted user sent read for the muter; their new messages arrive read, for the muter only", async () => {
		const dm = await sendMessage(as(bob), { type: "private", to: JSON.stringify([alice.user_id]), content: "hi Alice" });
		const inChannel = await sendMessage(as(bob), { type: "stream", to: general, topic: "mute", content: "hello all" });
		expect(await flagsOf(alice, dm)).not.toContain("read");
		const queues = await eventQueues(as, [alice, carol], {
			register: { fetch_event_types: JSON.stringify([]) },
			keep: (e) => e.type === "update_message_flags" || e.type === "message" || e.type === "muted_users",
		});

		expectSuccess(await as(alice).post(`/users/me/muted_users/${bob.user_id}`));
		expect(await flagsOf(alice, dm)).toContain("read");
		expect(await flagsOf(alice, inChannel)).toContain("read");
		expect(await flagsOf(carol, inChannel)).not.toContain("read");
		const events = await queues(alice);
		expect(events.map((e) => e.type).sort()).toEqual(["muted_users", "update_message_flags"]);
		const flagsEvent = events.find((e) => e.type === "update_message_flags")!;
		expect(flagsEvent).toMatchObject({ op: "add", flag: "read", all: false });
		expect([...flagsEvent.messages].sort((a: number, b: number) => a - b)).toEqual([dm, inChannel]);

		const later = await sendMessage(as(bob), { type: "stream", to: general, topic: "mute", content: "@**Alice** still there?" });
		const laterDm = await sendMessage(as(bob), { type: "private", to: JSON.stringify([alice.user_id]), content: "ping" });
		expect(await flagsOf(alice, later)).toEqual(expect.arrayContaining(["read", "mentioned"]));
		expect(await flagsOf(alice, laterDm)).toContain("read");
		expect(await flagsOf(carol, later)).not.toContain("read");
		expect(await flagsOf(bob, later)).toContain("read");
		const aliceSees = (await queues(alice)).filter((e) => e.type === "message");
		expect(aliceSees.map((e) => e.message.id)).toEqual([later, laterDm]);
		for (const e of aliceSees) expect(e.flags).toContain("read");
		expect((await queues(carol)).find((e) => e.type === "message" && e.message.id === later)!.flags).not.toContain("read");

		// An edit is not a new message: marked unread again, it stays unread.
		expectSuccess(await as(alice).post("/messages/flags", { messages: JSON.stringify([later]), op: "remove", flag: "read" }));
		expectSuccess(await as(bob).patch(`/messages/${later}`, { content: "@**Alice** still there? (edited)" }));
		expect(await flagsOf(alice, later)).not.toContain("read");

		expectSuccess(await as(alice).delete(`/users/me/muted_users/${bob.user_id}`));
		const afterUnmute = await sendMessage(as(bob), { type: "private", to: JSON.stringify([alice.user_id]), content: "back" });
		expect(await flagsOf(alice, afterUnmute)).not.toContain("read");
	});
});

describe("read receipts", () => {
	test("who read a message: not its sender, only those who send receipts, ascending IDs", async () => {
		const id = await sendMessage(owner, { type: "stream", to: general, topic: "receipts", content: "read me" });
		let res = await receipts(owner, id);
		expectSuccess(res);
		expect(res.body.user_ids).toEqual([]);
		await markRead(carol, [id]);
		await markRead(alice, [id]);
		res = await receipts(as(bob), id);
		expectSuccess(res);
		expect(Object.keys(res.body).sort()).toEqual(["msg", "result", "user_ids"]);
		expect(res.body.user_ids).toEqual([alice.user_id, carol.user_id]);
		// The sender, who read their own message, is never listed.
		expect(await flagsOf(app.owner, id)).toContain("read");
		expect((await receipts(as(alice), id)).body.user_ids).toEqual([alice.user_id, carol.user_id]);

		expectSuccess(await as(carol).patch("/settings", { send_read_receipts: false }));
		expect((await receipts(owner, id)).body.user_ids).toEqual([alice.user_id]);
		expectSuccess(await as(carol).patch("/settings", { send_read_receipts: true }));
		// Marked unread again: no longer read.
		expectSuccess(await as(alice).post("/messages/flags", { messages: JSON.stringify([id]), op: "remove", flag: "read" }));
		expect((await receipts(owner, id)).body.user_ids).toEqual([carol.user_id]);
	});

	test("users the caller muted and users who muted the caller are left out; deactivated users too", async () => {
		const dave = await app.createUser({ full_name: "Dave" });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [dave.user_id] }));
		const id = await sendMessage(as(carol), { type: "stream", to: general, topic: "receipts", content: "muting" });
		for (const u of [alice, bob, dave]) await markRead(u, [id]);
		const all = [alice.user_id, bob.user_id, dave.user_id].sort((a, b) => a - b);
		expect((await receipts(owner, id)).body.user_ids).toEqual(all);
		expectSuccess(await owner.post(`/users/me/muted_users/${alice.user_id}`));
		expectSuccess(await as(bob).post(`/users/me/muted_users/${app.owner.user_id}`));
		expect((await receipts(owner, id)).body.user_ids).toEqual([dave.user_id]);
		// Others' mutes do not hide anyone from a third user.
		expect((await receipts(as(carol), id)).body.user_ids).toEqual(all);
		expectSuccess(await owner.delete(`/users/${dave.user_id}`));
		expect((await receipts(as(carol), id)).body.user_ids).toEqual([alice.user_id, bob.user_id].sort((a, b) => a - b));
		expectSuccess(await owner.delete(`/users/me/muted_users/${alice.user_id}`));
		expectSuccess(await as(bob).delete(`/users/me/muted_users/${app.owner.user_id}`));
	});

	test("a message the caller cannot access is 'Invalid message(s)'; a direct message is the participants'", async () => {
		const dm = await sendMessage(as(alice), { type: "private", to: JSON.stringify([bob.user_id]), content: "between us" });
		await markRead(bob, [dm]);
		expect((await receipts(as(alice), dm)).body.user_ids).toEqual([bob.user_id]);
		await snap.refused(() => receipts(as(carol), dm), 400, "BAD_REQUEST", "Invalid message(s)");
		await snap.refused(() => receipts(owner, 999999), 400, "BAD_REQUEST", "Invalid message(s)");
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
		const secret = (await owner.get("/get_stream_id", { stream: "secret" })).body.stream_id;
		const hidden = await sendMessage(owner, { type: "stream", to: secret, topic: "t", content: "hidden" });
		await snap.refused(() => receipts(as(alice), hidden), 400, "BAD_REQUEST", "Invalid message(s)");
		await snap.refused(() => client(app.baseUrl).get(`/messages/${dm}/read_receipts`), 401, "UNAUTHORIZED", /./);
	});

	test("an organization with read receipts disabled refuses, after the access check", async () => {
		const id = await sendMessage(owner, { type: "stream", to: general, topic: "receipts", content: "off" });
		const queues = await eventQueues(as, [alice], { register: { fetch_event_types: JSON.stringify(["realm"]) }, keep: (e) => e.type === "realm" });
		expectSuccess(await owner.patch("/realm", { enable_read_receipts: false }));
		expect(await queues(alice)).toEqual([{ type: "realm", op: "update", property: "enable_read_receipts", value: false }]);
		expect((await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body.realm_enable_read_receipts).toBe(false);
		try {
			await snap.refused(() => receipts(as(alice), id), 400, "BAD_REQUEST", "Read receipts are disabled in this organization.");
			await snap.refused(() => receipts(as(alice), 999999), 400, "BAD_REQUEST", "Invalid message(s)");
		} finally {
			expectSuccess(await owner.patch("/realm", { enable_read_receipts: true }));
		}
		expectSuccess(await receipts(as(alice), id));
	});
});
