// The events of services/events/realm-changes.ts (user_group, custom_profile_fields, realm,
// default_streams, alert_words, scheduled_messages), all_public_streams queues, and a deactivated
// user's queues: each reaches exactly the queues it should, in Zulip's form.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let admin: Account;
let alice: Account;
let bob: Account;
let guest: Account;
const clients = new Map<number, Client>();
const as = (u: Account) => clients.get(u.user_id)!;

beforeAll(async () => {
	app = await startTestApp();
	admin = await app.createUser({ role: 200, full_name: "Admin" });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ role: 600, full_name: "Guest" });
	for (const u of [admin, alice, bob, guest]) clients.set(u.user_id, client(app.baseUrl, u));
});
afterAll(() => app.stop());

type Ev = Record<string, any>;

interface Reader {
	(u: Account): Promise<Ev[]>;
	queueOf(u: Account): string;
}

/** A queue per user (registered with `params`), read incrementally without blocking. */
async function queues(users: Account[], params: Record<string, unknown> = {}): Promise<Reader> {
	const out = new Map<number, { id: string; last: number }>();
	for (const u of users) {
		const r = await as(u).post("/register", { fetch_event_types: JSON.stringify(["realm_user"]), ...params });
		expectSuccess(r);
		out.set(u.user_id, { id: r.body.queue_id, last: -1 });
	}
	const read = async (u: Account): Promise<Ev[]> => {
		const q = out.get(u.user_id)!;
		const r = await as(u).get("/events", { queue_id: q.id, last_event_id: q.last, dont_block: true });
		expectSuccess(r);
		const events = (r.body.events as Ev[]).filter((e) => e.type !== "heartbeat");
		if (events.length) q.last = events[events.length - 1].id;
		return events.map(({ id: _id, ...e }) => e);
	};
	return Object.assign(read, { queueOf: (u: Account) => out.get(u.user_id)!.id });
}

const ofType = (events: Ev[], type: string) => events.filter((e) => e.type === type);

describe("user_group", () => {
	test("create, update, members and subgroups, to every active user (guests too)", async () => {
		const read = await queues([admin, alice, guest]);
		const created = await as(alice).post("/user_groups/create", { name: "backend", description: "Backend", members: JSON.stringify([alice.user_id]) });
		expectSuccess(created);
		const id = created.body.group_id as number;
		for (const u of [admin, alice, guest]) {
			const [add] = ofType(await read(u), "user_group");
			expect(add).toMatchObject({ type: "user_group", op: "add", group: { id, name: "backend", description: "Backend", members: [alice.user_id], direct_subgroup_ids: [], is_system_group: false, deactivated: false } });
		}

		expectSuccess(await as(alice).patch(`/user_groups/${id}`, { description: "Server side" }));
		for (const u of [admin, guest]) expect(ofType(await read(u), "user_group")).toEqual([{ type: "user_group", op: "update", group_id: id, data: { description: "Server side" } }]);

		expectSuccess(await as(alice).post(`/user_groups/${id}/members`, { add: JSON.stringify([bob.user_id]), delete: JSON.stringify([alice.user_id]) }));
		expect(ofType(await read(admin), "user_group")).toEqual([
			{ type: "user_group", op: "add_members", group_id: id, user_ids: [bob.user_id] },
			{ type: "user_group", op: "remove_members", group_id: id, user_ids: [alice.user_id] },
		]);

		const other = await as(admin).post("/user_groups/create", { name: "frontend", description: "", members: JSON.stringify([]) });
		const sub = other.body.group_id as number;
		await read(admin);
		expectSuccess(await as(admin).post(`/user_groups/${id}/subgroups`, { add: JSON.stringify([sub]) }));
		expect(ofType(await read(admin), "user_group")).toEqual([{ type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [sub] }]);
		expectSuccess(await as(admin).post(`/user_groups/${id}/subgroups`, { delete: JSON.stringify([sub]) }));
		expect(ofType(await read(admin), "user_group")).toEqual([{ type: "user_group", op: "remove_subgroups", group_id: id, direct_subgroup_ids: [sub] }]);
		await read(alice);
		await read(guest);
	});

	test("deactivation: update with deactivated for clients that asked, remove for the others", async () => {
		const created = await as(admin).post("/user_groups/create", { name: "to-retire", description: "", members: JSON.stringify([]) });
		const id = created.body.group_id as number;
		const modern = await queues([alice], { client_capabilities: JSON.stringify({ include_deactivated_groups: true }) });
		const older = await queues([bob]);
		expectSuccess(await as(admin).post(`/user_groups/${id}/deactivate`, {}));
		expect(ofType(await modern(alice), "user_group")).toEqual([{ type: "user_group", op: "update", group_id: id, data: { deactivated: true } }]);
		expect(ofType(await older(bob), "user_group")).toEqual([{ type: "user_group", op: "remove", group_id: id }]);
	});

	test("event_types filters them out", async () => {
		const read = await queues([bob], { event_types: JSON.stringify(["message"]) });
		expectSuccess(await as(admin).post("/user_groups/create", { name: "quiet", description: "", members: JSON.stringify([]) }));
		expect(await read(bob)).toEqual([]);
	});
});

describe("custom_profile_fields, realm, default_streams", () => {
	test("custom_profile_fields: the full list to every active user", async () => {
		const read = await queues([admin, alice, guest]);
		const created = await as(admin).post("/realm/profile_fields", { name: "Team", field_type: 1, hint: "Which team" });
		expectSuccess(created);
		const listed = (await as(alice).get("/realm/profile_fields")).body.custom_fields;
		for (const u of [admin, alice, guest]) expect(ofType(await read(u), "custom_profile_fields")).toEqual([{ type: "custom_profile_fields", fields: listed }]);
		expectSuccess(await as(admin).delete(`/realm/profile_fields/${created.body.id}`));
		expect(ofType(await read(alice), "custom_profile_fields")).toEqual([{ type: "custom_profile_fields", fields: (await as(alice).get("/realm/profile_fields")).body.custom_fields }]);
	});

	test("realm: update, or update_dict for the message-editing settings, to every active user", async () => {
		const read = await queues([alice, guest]);
		await app.node.broker.call("users.setRealmSetting", { name: "realm_description", value: "Our place" });
		await app.node.broker.call("users.setRealmSetting", { name: "realm_message_content_edit_limit_seconds", value: 1200 });
		for (const u of [alice, guest]) {
			expect(ofType(await read(u), "realm")).toEqual([
				{ type: "realm", op: "update", property: "description", value: "Our place" },
				{ type: "realm", op: "update_dict", property: "default", data: { message_content_edit_limit_seconds: 1200 } },
			]);
		}
	});

	test("default_streams: the default channels now, to non-guests only", async () => {
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "lobby" }]) }));
		const stream = (await as(admin).get("/get_stream_id", { stream: "lobby" })).body.stream_id as number;
		const read = await queues([admin, alice, guest]);
		expectSuccess(await as(admin).post("/default_streams", { stream_id: stream }));
		for (const u of [admin, alice]) {
			const [e] = ofType(await read(u), "default_streams");
			expect(e.default_streams.map((s: Ev) => s.stream_id)).toEqual([stream]);
			expect(e.default_streams[0]).toEqual((await as(alice).get("/default_streams")).body.default_streams[0]);
		}
		expect(ofType(await read(guest), "default_streams")).toEqual([]);
		expectSuccess(await as(admin).delete("/default_streams", { stream_id: stream }));
		expect(ofType(await read(alice), "default_streams")).toEqual([{ type: "default_streams", default_streams: [] }]);
		expect(await read(guest)).toEqual([]);
	});
});

describe("personal events", () => {
	test("alert_words: the user's full list, to that user alone", async () => {
		const read = await queues([alice, bob]);
		expectSuccess(await as(alice).post("/users/me/alert_words", { alert_words: JSON.stringify(["deploy", "outage"]) }));
		expectSuccess(await as(alice).delete("/users/me/alert_words", { alert_words: JSON.stringify(["deploy"]) }));
		expect(ofType(await read(alice), "alert_words")).toEqual([
			{ type: "alert_words", alert_words: ["deploy", "outage"] },
			{ type: "alert_words", alert_words: ["outage"] },
		]);
		expect(await read(bob)).toEqual([]);
	});

	test("scheduled_messages from scheduling.changed, to that user alone", async () => {
		const read = await queues([alice, bob]);
		const scheduled = { scheduled_message_id: 7, to: 3, type: "stream", content: "hi", rendered_content: "<p>hi</p>", topic: "t", scheduled_delivery_timestamp: 2_000_000_000, failed: false };
		await app.node.broker.broadcast("scheduling.changed", { user_id: alice.user_id, op: "add", scheduled_messages: [scheduled] });
		await app.node.broker.broadcast("scheduling.changed", { user_id: alice.user_id, op: "remove", scheduled_message_id: 7 });
		await new Promise((r) => setTimeout(r, 50));
		expect(await read(alice)).toEqual([
			{ type: "scheduled_messages", op: "add", scheduled_messages: [scheduled] },
			{ type: "scheduled_messages", op: "remove", scheduled_message_id: 7 },
		]);
		expect(await read(bob)).toEqual([]);
	});
});

describe("all_public_streams", () => {
	test("a queue with it gets every public channel's messages, not private ones; guests may not ask", async () => {
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "open-talk" }]) }));
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "hush" }]), invite_only: true }));
		const bot = await app.createUser({ is_bot: true, bot_owner_id: admin.user_id, full_name: "Watcher" });
		clients.set(bot.user_id, client(app.baseUrl, bot));
		const watching = await queues([bot, bob], { all_public_streams: true, event_types: JSON.stringify(["message"]) });
		const plain = await queues([alice], { event_types: JSON.stringify(["message"]) });
		const sent = await as(admin).post("/messages", { type: "stream", to: "open-talk", topic: "news", content: "public news" });
		expectSuccess(sent);
		expectSuccess(await as(admin).post("/messages", { type: "stream", to: "hush", topic: "x", content: "secret" }));
		expectSuccess(await as(admin).post("/messages", { type: "direct", to: JSON.stringify([alice.user_id]), content: "psst" }));
		for (const u of [bot, bob]) {
			const events = await watching(u);
			expect(events).toHaveLength(1);
			expect(events[0]).toMatchObject({ type: "message", flags: [], message: { id: sent.body.id, content: "public news", display_recipient: "open-talk" } });
		}
		expect((await plain(alice)).map((e) => e.message.content)).toEqual(["psst"]);
		expectError(await as(guest).post("/register", { all_public_streams: true }), 400, "BAD_REQUEST", "User not authorized for this query");
	});

	test("a subscriber's all_public_streams queue gets the message once, with its flags", async () => {
		expectSuccess(await as(bob).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "open-talk" }]) }));
		const read = await queues([bob], { all_public_streams: true, event_types: JSON.stringify(["message"]) });
		expectSuccess(await as(admin).post("/messages", { type: "stream", to: "open-talk", topic: "news", content: "again" }));
		const events = await read(bob);
		expect(events).toHaveLength(1);
		expect(events[0].flags).toEqual([]);
		expect(events[0].message.content).toBe("again");
	});
});

describe("deactivation", () => {
	test("a deactivated user's queues are deleted; the others get realm_user update", async () => {
		const victim = await app.createUser({ full_name: "Leaving" });
		clients.set(victim.user_id, client(app.baseUrl, victim));
		const read = await queues([victim, alice]);
		const second = await queues([victim]);
		expectSuccess(await as(admin).delete(`/users/${victim.user_id}`));
		expect(ofType(await read(alice), "realm_user")).toContainEqual({ type: "realm_user", op: "update", person: { user_id: victim.user_id, is_active: false } });
		// Deactivated users cannot authenticate; the queues are gone from the events service itself.
		for (const id of [read.queueOf(victim), second.queueOf(victim)]) {
			await expect(app.node.broker.call("events.get", { queue_id: id, dont_block: true }, { meta: { user: { user_id: victim.user_id, role: 400 } } })).rejects.toMatchObject({ type: "BAD_EVENT_QUEUE_ID" });
		}
		// Another user's queue lives on.
		expect(await read(alice)).toEqual([]);
	});
});
