// The events of services/events/realm-changes.ts (user_group, custom_profile_fields, realm,
// default_streams, alert_words, scheduled_messages), all_public_streams queues, and a deactivated
// user's queues: each reaches exactly the queues it should, in Zulip's form.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { eventQueues, type Ev } from "../support/events";
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
	await app.grant(admin, "can_create_users");
	for (const u of [admin, alice, bob, guest]) clients.set(u.user_id, client(app.baseUrl, u));
});
afterAll(() => app.stop());

/** A queue per user (registered with `register`), read incrementally without blocking. */
const queues = (users: Account[], register: Record<string, unknown> = {}) => eventQueues(as, users, { register });

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

describe("system groups: user_group add_members and remove_members, as Zulip", () => {
	let ids: Record<string, number>;
	beforeAll(async () => {
		const groups = (await as(admin).get("/user_groups")).body.user_groups as Ev[];
		ids = Object.fromEntries(groups.filter((g) => g.is_system_group).map((g) => [g.name, g.id]));
	});
	const members = (group: string, user_ids: number[]) => ({ type: "user_group", op: "add_members", group_id: ids[group], user_ids });
	const leaves = (group: string, user_ids: number[]) => ({ type: "user_group", op: "remove_members", group_id: ids[group], user_ids });
	const userEvents = (events: Ev[]) => events.filter((e) => e.type === "realm_user" || e.type === "user_group");
	const memberOf = async (group: string) => ((await as(admin).get("/user_groups")).body.user_groups as Ev[]).find((g) => g.id === ids[group])!.members as number[];

	test("a new user joins its role's group, and role:fullmembers when a member past the waiting period", async () => {
		const read = await queues([admin, guest]);
		const created = await as(admin).post("/users", { email: "newbie@chat.test", password: "password123", full_name: "Newbie" });
		expectSuccess(created);
		const id = created.body.user_id as number;
		for (const u of [admin, guest]) {
			const events = userEvents(await read(u));
			expect(events[0]).toMatchObject({ type: "realm_user", op: "add", person: { user_id: id } });
			expect(events.slice(1)).toEqual([members("role:members", [id]), members("role:fullmembers", [id])]);
		}
		const moderator = await app.createUser({ role: 300, full_name: "Mod" });
		expect(userEvents(await read(admin)).slice(1)).toEqual([members("role:moderators", [moderator.user_id])]);
		expect(await memberOf("role:fullmembers")).toContain(id);
	});

	test("a role change: out of the old role's group, into the new one's, then role:fullmembers", async () => {
		const frank = await app.createUser({ full_name: "Frank" });
		const read = await queues([admin, alice, guest]);
		const role = async (value: number) => expectSuccess(await as(admin).patch(`/users/${frank.user_id}`, { role: value }));
		const realmUser = (value: number) => ({ type: "realm_user", op: "update", person: { user_id: frank.user_id, role: value } });
		await role(200);
		for (const u of [admin, alice, guest]) {
			expect(userEvents(await read(u))).toEqual([
				realmUser(200),
				leaves("role:members", [frank.user_id]),
				members("role:administrators", [frank.user_id]),
				leaves("role:fullmembers", [frank.user_id]),
			]);
		}
		await role(600);
		expect(userEvents(await read(alice))).toEqual([realmUser(600), leaves("role:administrators", [frank.user_id]), members("role:everyone", [frank.user_id])]);
		expect(await memberOf("role:everyone")).toContain(frank.user_id);
		await role(400);
		expect(userEvents(await read(alice))).toEqual([realmUser(400), leaves("role:everyone", [frank.user_id]), members("role:members", [frank.user_id]), members("role:fullmembers", [frank.user_id])]);
		// What the events said is what GET /user_groups (and so POST /register) shows.
		expect(await memberOf("role:fullmembers")).toContain(frank.user_id);
		expect(await memberOf("role:everyone")).not.toContain(frank.user_id);
		expect(await memberOf("role:administrators")).not.toContain(frank.user_id);
		// The same role again changes nothing.
		await role(400);
		expect(await read(alice)).toEqual([]);
	});

	test("deactivation and reactivation: realm_user only, as Zulip sends when everyone may see every user", async () => {
		const gina = await app.createUser({ full_name: "Gina" });
		const read = await queues([admin, guest]);
		expectSuccess(await as(admin).delete(`/users/${gina.user_id}`));
		expect(await memberOf("role:members")).not.toContain(gina.user_id);
		expectSuccess(await as(admin).post(`/users/${gina.user_id}/reactivate`));
		expect(await memberOf("role:members")).toContain(gina.user_id);
		for (const u of [admin, guest]) {
			expect(userEvents(await read(u))).toEqual([
				{ type: "realm_user", op: "update", person: { user_id: gina.user_id, is_active: false } },
				{ type: "realm_user", op: "update", person: { user_id: gina.user_id, is_active: true } },
			]);
		}
	});

	test("a new waiting period moves members out of role:fullmembers and back", async () => {
		const owner = client(app.baseUrl, app.owner);
		const read = await queues([alice, guest]);
		const full = [...(await memberOf("role:fullmembers"))].sort((a, b) => a - b);
		expect(full).toContain(alice.user_id);
		expectSuccess(await owner.patch("/realm", { waiting_period_threshold: 30 }));
		try {
			for (const u of [alice, guest]) {
				expect(await read(u)).toEqual([{ type: "realm", op: "update", property: "waiting_period_threshold", value: 30 }, leaves("role:fullmembers", full)]);
			}
			expect(await memberOf("role:fullmembers")).toEqual([]);
		} finally {
			expectSuccess(await owner.patch("/realm", { waiting_period_threshold: 0 }));
		}
		expect(await read(alice)).toEqual([{ type: "realm", op: "update", property: "waiting_period_threshold", value: 0 }, members("role:fullmembers", full)]);
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

	test("default_streams when a channel is created default, made default by PATCH, and archived", async () => {
		const read = await queues([admin, alice, guest]);
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "welcome" }]), is_default_stream: true }));
		const welcome = (await as(admin).get("/get_stream_id", { stream: "welcome" })).body.stream_id as number;
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "news" }]) }));
		const news = (await as(admin).get("/get_stream_id", { stream: "news" })).body.stream_id as number;
		expectSuccess(await as(admin).patch(`/streams/${news}`, { is_default_stream: true }));
		const defaults = (events: Ev[]) => ofType(events, "default_streams").map((e) => e.default_streams.map((d: Ev) => d.stream_id));
		const mine = await read(alice);
		expect(defaults(mine)).toEqual([[welcome], [news, welcome]]);
		// The channel's creation comes first, so clients know the channel the list names.
		expect(mine.findIndex((e) => e.type === "stream" && e.op === "create")).toBeLessThan(mine.findIndex((e) => e.type === "default_streams"));
		expect(defaults(await read(admin))).toEqual([[welcome], [news, welcome]]);

		// Archiving a default channel takes it out of the defaults: the new list, then the channel's
		// archiving, then (to its subscriber) Notification Bot's notice of it.
		expectSuccess(await as(admin).delete(`/streams/${news}`));
		for (const u of [admin, alice]) {
			const events = await read(u);
			const notice = u === admin ? ["message/"] : [];
			expect(events.map((e) => `${e.type}/${e.op ?? ""}`)).toEqual(["default_streams/", "stream/update", "stream/delete", ...notice]);
			expect(events[0]).toEqual({ type: "default_streams", default_streams: (await as(alice).get("/default_streams")).body.default_streams });
			expect(defaults(events)).toEqual([[welcome]]);
		}
		// The guest sees neither the defaults nor the public channels.
		expect(await read(guest)).toEqual([]);
		expectSuccess(await as(admin).delete("/default_streams", { stream_id: welcome }));
		expect(defaults(await read(alice))).toEqual([[]]);
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

	test("drafts, saved_snippets, scheduled_messages and navigation_view through the API: add, update, remove, to that user alone", async () => {
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "drafting" }]) }));
		const channel = (await as(alice).get("/get_stream_id", { stream: "drafting" })).body.stream_id as number;
		const read = await queues([alice, bob]);
		const draft = { type: "stream", to: [channel], topic: "plans", content: "first", timestamp: 1_700_000_000 };
		const [draftId] = (await as(alice).post("/drafts", { drafts: JSON.stringify([draft]) })).body.ids;
		expectSuccess(await as(alice).patch(`/drafts/${draftId}`, { draft: JSON.stringify({ ...draft, content: "second" }) }));
		expectSuccess(await as(alice).delete(`/drafts/${draftId}`));
		const snippet = (await as(alice).post("/saved_snippets", { title: "Hi", content: "Hello" })).body.saved_snippet_id as number;
		expectSuccess(await as(alice).patch(`/saved_snippets/${snippet}`, { content: "Hello!" }));
		expectSuccess(await as(alice).delete(`/saved_snippets/${snippet}`));
		const at = Math.floor(Date.now() / 1000) + 3600;
		const scheduled = await as(alice).post("/scheduled_messages", { type: "stream", to: channel, topic: "later", content: "soon", scheduled_delivery_timestamp: at });
		expectSuccess(scheduled);
		const scheduledId = scheduled.body.scheduled_message_id as number;
		expectSuccess(await as(alice).patch(`/scheduled_messages/${scheduledId}`, { content: "sooner" }));
		expectSuccess(await as(alice).delete(`/scheduled_messages/${scheduledId}`));
		expectSuccess(await as(alice).post("/navigation_views", { fragment: "inbox", is_pinned: true }));
		expectSuccess(await as(alice).delete("/navigation_views/inbox"));

		const view = { id: draftId, type: "stream", to: [channel], topic: "plans", timestamp: 1_700_000_000 };
		const saved = { id: snippet, title: "Hi", date_created: expect.any(Number) };
		const message = { scheduled_message_id: scheduledId, type: "stream", to: channel, topic: "later", scheduled_delivery_timestamp: at, failed: false };
		expect(await read(alice)).toEqual([
			{ type: "drafts", op: "add", drafts: [{ ...view, content: "first" }] },
			{ type: "drafts", op: "update", draft: { ...view, content: "second" } },
			{ type: "drafts", op: "remove", draft_id: draftId },
			{ type: "saved_snippets", op: "add", saved_snippet: { ...saved, content: "Hello" } },
			{ type: "saved_snippets", op: "update", saved_snippet: { ...saved, content: "Hello!" } },
			{ type: "saved_snippets", op: "remove", saved_snippet_id: snippet },
			{ type: "scheduled_messages", op: "add", scheduled_messages: [{ ...message, content: "soon", rendered_content: "<p>soon</p>" }] },
			{ type: "scheduled_messages", op: "update", scheduled_message: { ...message, content: "sooner", rendered_content: "<p>sooner</p>" } },
			{ type: "scheduled_messages", op: "remove", scheduled_message_id: scheduledId },
			{ type: "navigation_view", op: "add", navigation_view: { fragment: "inbox", is_pinned: true, name: null } },
			{ type: "navigation_view", op: "remove", fragment: "inbox" },
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
			await expect(app.node.broker.call("events.get", { queue_id: id, last_event_id: -1, dont_block: true }, { meta: { user: { user_id: victim.user_id, role: 400 } } })).rejects.toMatchObject({ type: "BAD_EVENT_QUEUE_ID" });
		}
		// Another user's queue lives on.
		expect(await read(alice)).toEqual([]);
	});

	test("DELETE /users/me: the same announcements as an administrator's deactivation, and the user's queues go", async () => {
		const leaver = await app.createUser({ full_name: "Leaving Myself" });
		clients.set(leaver.user_id, client(app.baseUrl, leaver));
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "self-leave" }]), principals: JSON.stringify([leaver.user_id, alice.user_id]) }));
		const channel = (await as(admin).get("/get_stream_id", { stream: "self-leave" })).body.stream_id as number;
		const read = await queues([leaver, alice]);
		const second = await queues([leaver]);
		expectSuccess(await as(leaver).delete("/users/me"));
		const toAlice = await read(alice);
		expect(ofType(toAlice, "realm_user")).toEqual([{ type: "realm_user", op: "update", person: { user_id: leaver.user_id, is_active: false } }]);
		expect(ofType(toAlice, "subscription")).toEqual([{ type: "subscription", op: "peer_remove", stream_ids: [channel], user_ids: [leaver.user_id] }]);
		for (const id of [read.queueOf(leaver), second.queueOf(leaver)]) {
			await expect(app.node.broker.call("events.get", { queue_id: id, last_event_id: -1, dont_block: true }, { meta: { user: { user_id: leaver.user_id, role: 400 } } })).rejects.toMatchObject({ type: "BAD_EVENT_QUEUE_ID" });
		}
		expect(await read(alice)).toEqual([]);
	});
});
