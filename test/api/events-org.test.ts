// Organization changes as events (services/events/org-changes.ts): subscription, stream,
// realm_user, realm_bot, user_settings and user_topic events reach exactly the queues whose
// users may see them, in Zulip's form.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { eventQueues, type Ev } from "../support/events";
import { client, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let admin: Account;
let alice: Account;
let bob: Account;
let carol: Account;
let guest: Account;
const clients = new Map<number, Client>();
const as = (u: Account) => clients.get(u.user_id)!;

beforeAll(async () => {
	app = await startTestApp();
	admin = await app.createUser({ role: 200, full_name: "Admin" });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol" });
	guest = await app.createUser({ role: 600, full_name: "Guest" });
	for (const u of [admin, alice, bob, carol, guest]) clients.set(u.user_id, client(app.baseUrl, u));
});
afterAll(() => app.stop());

const sorted = (events: Ev[]) => [...events].sort((a, b) => `${a.type}${a.property ?? ""}`.localeCompare(`${b.type}${b.property ?? ""}`));

/** A queue per user, read incrementally. Message events (Notification Bot's notices of channel changes) are left out: notification-bot.test.ts has them. */
const queues = (users: Account[], register: Record<string, unknown> = {}) => eventQueues(as, users, { register, keep: (e) => e.type !== "heartbeat" && e.type !== "message" });

const channelId = async (name: string) => {
	const r = await as(admin).get("/get_stream_id", { stream: name });
	expectSuccess(r);
	return r.body.stream_id as number;
};

describe("subscription and stream events", () => {
	test("a public channel: created for every member, not a guest; peers told of joins and leaves", async () => {
		const read = await queues([admin, alice, bob, guest]);
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "pub-one", description: "**hi**" }]) }));
		const id = await channelId("pub-one");
		const mine = await read(alice);
		expect(mine.map((e) => `${e.type}/${e.op}`)).toEqual(["stream/create", "subscription/add"]);
		expect(mine[0].streams).toMatchObject([{ stream_id: id, name: "pub-one", invite_only: false, rendered_description: "<p><strong>hi</strong></p>" }]);
		expect(mine[1].subscriptions).toMatchObject([{ stream_id: id, name: "pub-one", subscribers: [alice.user_id], is_muted: false, color: expect.any(String) }]);
		for (const u of [admin, bob]) {
			expect(await read(u)).toEqual([
				{ type: "stream", op: "create", streams: [expect.objectContaining({ stream_id: id })] },
				{ type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [alice.user_id] },
			]);
		}
		expect(await read(guest)).toEqual([]);

		expectSuccess(await as(bob).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "pub-one" }]) }));
		expect(await read(bob)).toMatchObject([{ type: "subscription", op: "add", subscriptions: [{ stream_id: id, subscribers: [alice.user_id, bob.user_id] }] }]);
		for (const u of [admin, alice]) expect(await read(u)).toEqual([{ type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [bob.user_id] }]);
		expect(await read(guest)).toEqual([]);

		expectSuccess(await as(bob).delete("/users/me/subscriptions", { subscriptions: JSON.stringify(["pub-one"]) }));
		expect(await read(bob)).toEqual([{ type: "subscription", op: "remove", subscriptions: [{ stream_id: id, name: "pub-one" }] }]);
		expect(await read(admin)).toEqual([{ type: "subscription", op: "peer_remove", stream_ids: [id], user_ids: [bob.user_id] }]);
		expect(await read(guest)).toEqual([]);
	});

	test("a guest added to a public channel gets the channel first, then the subscription", async () => {
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "pub-guest" }]) }));
		const id = await channelId("pub-guest");
		const read = await queues([guest, carol]);
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "pub-guest" }]), principals: JSON.stringify([guest.user_id]) }));
		expect((await read(guest)).map((e) => `${e.type}/${e.op}`)).toEqual(["stream/create", "subscription/add"]);
		expect(await read(carol)).toEqual([{ type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [guest.user_id] }]);
		// Leaving it, the guest loses sight of it.
		expectSuccess(await as(guest).delete("/users/me/subscriptions", { subscriptions: JSON.stringify(["pub-guest"]) }));
		expect(await read(guest)).toMatchObject([
			{ type: "subscription", op: "remove", subscriptions: [{ stream_id: id, name: "pub-guest" }] },
			{ type: "stream", op: "delete", stream_ids: [id], streams: [{ stream_id: id }] },
		]);
	});

	test("a private channel: its creation, edits and archiving reach subscribers and administrators only", async () => {
		const read = await queues([admin, alice, bob, carol, guest]);
		expectSuccess(
			await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "secret" }]), invite_only: true, principals: JSON.stringify([alice.user_id, bob.user_id]) }),
		);
		const id = await channelId("secret");
		for (const u of [alice, bob]) expect((await read(u)).map((e) => `${e.type}/${e.op}`)).toEqual(["stream/create", "subscription/add"]);
		expect(await read(admin)).toEqual([
			{ type: "stream", op: "create", streams: [expect.objectContaining({ stream_id: id, invite_only: true })] },
			{ type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [alice.user_id, bob.user_id] },
		]);
		expect(await read(carol)).toEqual([]);
		expect(await read(guest)).toEqual([]);

		expectSuccess(await as(alice).patch(`/streams/${id}`, { description: "Quiet _place_" }));
		const update = { type: "stream", op: "update", stream_id: id, name: "secret", property: "description", value: "Quiet _place_", rendered_description: "<p>Quiet <em>place</em></p>" };
		for (const u of [admin, alice, bob]) expect(await read(u)).toEqual([update]);
		expectSuccess(await as(alice).patch(`/streams/${id}`, { new_name: "hush" }));
		for (const u of [admin, alice, bob]) expect(await read(u)).toEqual([{ type: "stream", op: "update", stream_id: id, name: "secret", property: "name", value: "hush" }]);
		expect(await read(carol)).toEqual([]);

		// Carol joins: the channel first, then her subscription; the others hear of her.
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "hush" }]), principals: JSON.stringify([carol.user_id]) }));
		const carols = await read(carol);
		expect(carols.map((e) => `${e.type}/${e.op}`)).toEqual(["stream/create", "subscription/add"]);
		expect(carols[1].subscriptions).toMatchObject([{ stream_id: id, name: "hush", subscribers: [alice.user_id, bob.user_id, carol.user_id] }]);
		for (const u of [admin, alice, bob]) expect(await read(u)).toEqual([{ type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [carol.user_id] }]);

		// Made public: everyone but the guest now sees it, as an update or (newly) as a creation.
		expectSuccess(await as(alice).patch(`/streams/${id}`, { is_private: false }));
		for (const u of [admin, alice, bob, carol]) {
			expect(await read(u)).toEqual([
				{ type: "stream", op: "update", stream_id: id, name: "hush", property: "invite_only", value: false, history_public_to_subscribers: true, is_web_public: false },
				{ type: "stream", op: "update", stream_id: id, name: "hush", property: "history_public_to_subscribers", value: true },
			]);
		}
		expect(await read(guest)).toEqual([]);

		expectSuccess(await as(alice).delete(`/streams/${id}`));
		// As Zulip's do_deactivate_stream: is_archived, then delete for queues without the archived_channels capability.
		for (const u of [admin, alice, bob, carol]) {
			expect(await read(u)).toMatchObject([
				{ type: "stream", op: "update", stream_id: id, name: "hush", property: "is_archived", value: true },
				{ type: "stream", op: "delete", stream_ids: [id], streams: [{ stream_id: id, is_archived: true }] },
			]);
		}
		expect(await read(guest)).toEqual([]);
	});

	test("subscription properties reach their user; is_muted comes with the deprecated in_home_view", async () => {
		expectSuccess(await as(bob).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "props" }]) }));
		const id = await channelId("props");
		const read = await queues([bob, alice]);
		const r = await as(bob).post("/users/me/subscriptions/properties", {
			subscription_data: JSON.stringify([
				{ stream_id: id, property: "is_muted", value: true },
				{ stream_id: id, property: "color", value: "#ABCDEF" },
			]),
		});
		expectSuccess(r);
		expect(await read(bob)).toEqual([
			{ type: "subscription", op: "update", stream_id: id, property: "in_home_view", value: false },
			{ type: "subscription", op: "update", stream_id: id, property: "is_muted", value: true },
			{ type: "subscription", op: "update", stream_id: id, property: "color", value: "#abcdef" },
		]);
		expect(await read(alice)).toEqual([]);
	});

	test("user_topic reaches the user alone", async () => {
		expectSuccess(await as(bob).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "topics" }]) }));
		const id = await channelId("topics");
		const read = await queues([bob, alice]);
		expectSuccess(await as(bob).post("/user_topics", { stream_id: id, topic: "lunch", visibility_policy: 3 }));
		expectSuccess(await as(bob).post("/user_topics", { stream_id: id, topic: "", visibility_policy: 1 }));
		expect(await read(bob)).toEqual([
			{ type: "user_topic", stream_id: id, topic_name: "lunch", last_updated: expect.any(Number), visibility_policy: 3 },
			{ type: "user_topic", stream_id: id, topic_name: "general chat", last_updated: expect.any(Number), visibility_policy: 1 },
		]);
		expect(await read(alice)).toEqual([]);
	});

	test("event_types leaves out what a queue did not ask for", async () => {
		const read = await queues([carol], { event_types: JSON.stringify(["subscription"]) });
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "pub-two" }]) }));
		expect(await read(carol)).toEqual([{ type: "subscription", op: "peer_add", stream_ids: [await channelId("pub-two")], user_ids: [alice.user_id] }]);
	});
});

describe("stream and peer events from changes to a user", () => {
	const ofType = (events: Ev[], ...types: string[]) => events.filter((e) => types.includes(e.type));
	let pub: number;
	let priv: number;
	beforeAll(async () => {
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "rc-pub" }]) }));
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "rc-priv" }]), invite_only: true }));
		[pub, priv] = [await channelId("rc-pub"), await channelId("rc-priv")];
	});

	test("a role change: the channels the user now sees (create, then peer_add), or no longer sees (delete), to that user alone", async () => {
		const henry = await app.createUser({ full_name: "Henry" });
		clients.set(henry.user_id, client(app.baseUrl, henry));
		const read = await queues([henry, bob]);
		const role = async (value: number) => expectSuccess(await as(admin).patch(`/users/${henry.user_id}`, { role: value }));
		const idsOf = (e: Ev) => e.streams.map((s: Ev) => s.stream_id);

		await role(600);
		let events = ofType(await read(henry), "stream", "subscription");
		expect(events.map((e) => `${e.type}/${e.op}`)).toEqual(["stream/delete"]);
		expect(idsOf(events[0])).toContain(pub);
		expect(idsOf(events[0])).not.toContain(priv);
		expect(events[0].stream_ids).toEqual(idsOf(events[0]));
		const lost = idsOf(events[0]) as number[];

		await role(400);
		events = ofType(await read(henry), "stream", "subscription");
		// One creation with every channel seen again, then each one's subscribers.
		expect(events[0]).toMatchObject({ type: "stream", op: "create" });
		expect([...idsOf(events[0])].sort()).toEqual([...lost].sort());
		expect(events[0].streams.find((s: Ev) => s.stream_id === pub)).toEqual((await as(henry).get(`/streams/${pub}`)).body.stream);
		expect(events.slice(1)).toEqual(idsOf(events[0]).map((id: number) => ({ type: "subscription", op: "peer_add", stream_ids: [id], user_ids: expect.any(Array) })));
		expect(events.find((e) => e.stream_ids?.[0] === pub && e.op === "peer_add")?.user_ids).toEqual([alice.user_id]);

		// An administrator sees every private channel's metadata.
		await role(200);
		events = ofType(await read(henry), "stream", "subscription");
		expect(events).toEqual([
			{ type: "stream", op: "create", streams: [expect.objectContaining({ stream_id: priv, invite_only: true })] },
			{ type: "subscription", op: "peer_add", stream_ids: [priv], user_ids: [alice.user_id] },
		]);
		await role(400);
		expect(ofType(await read(henry), "stream", "subscription")).toEqual([{ type: "stream", op: "delete", streams: [expect.objectContaining({ stream_id: priv })], stream_ids: [priv] }]);
		// Nobody else hears of it.
		expect(ofType(await read(bob), "stream", "subscription")).toEqual([]);
	});

	test("deactivation and reactivation: peer_remove and peer_add for the user's channels, to those who may see their subscribers", async () => {
		const ivy = await app.createUser({ full_name: "Ivy" });
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "rc-pub" }, { name: "rc-priv" }]), principals: JSON.stringify([ivy.user_id]) }));
		const read = await queues([admin, alice, bob, guest]);
		expectSuccess(await as(admin).delete(`/users/${ivy.user_id}`));
		expectSuccess(await as(admin).post(`/users/${ivy.user_id}/reactivate`));
		const peer = (op: string, id: number) => ({ type: "subscription", op, stream_ids: [id], user_ids: [ivy.user_id] });
		for (const u of [admin, alice]) {
			const events = ofType(await read(u), "subscription");
			expect(events).toHaveLength(4);
			expect(events).toEqual(expect.arrayContaining([peer("peer_remove", pub), peer("peer_remove", priv), peer("peer_add", pub), peer("peer_add", priv)]));
		}
		// Bob sees the public channel's subscribers, not the private one's; the guest neither.
		expect(ofType(await read(bob), "subscription")).toEqual([peer("peer_remove", pub), peer("peer_add", pub)]);
		expect(ofType(await read(guest), "subscription")).toEqual([]);
		expect((await as(bob).get(`/streams/${pub}/members`)).body.subscribers).toContain(ivy.user_id);
	});
});

describe("realm_user, realm_bot and user_settings events", () => {
	// Only realm_user here: the system groups' user_group events are tested in events-more.test.ts.
	const realmUserOnly = { event_types: JSON.stringify(["realm_user"]) };

	test("a new user reaches everyone, with the real address only for those who may see it", async () => {
		const read = await queues([admin, alice, guest], realmUserOnly);
		const dave = await app.createUser({ full_name: "Dave", email_address_visibility: 3 });
		const [toAdmin] = await read(admin);
		expect(toAdmin).toMatchObject({ type: "realm_user", op: "add", person: { user_id: dave.user_id, full_name: "Dave", delivery_email: dave.email, role: 400, is_active: true } });
		expect(toAdmin.person.email).toMatch(new RegExp(`^user${dave.user_id}@`));
		for (const u of [alice, guest]) expect(await read(u)).toMatchObject([{ type: "realm_user", op: "add", person: { user_id: dave.user_id, delivery_email: null } }]);
	});

	test("name, role, deactivation and reactivation reach everyone", async () => {
		const erin = await app.createUser({ full_name: "Erin" });
		const read = await queues([admin, alice, guest], realmUserOnly);
		expectSuccess(await as(admin).patch(`/users/${erin.user_id}`, { full_name: "Erin B", role: 300 }));
		expectSuccess(await as(admin).delete(`/users/${erin.user_id}`));
		expectSuccess(await as(admin).post(`/users/${erin.user_id}/reactivate`));
		for (const u of [admin, alice, guest]) {
			expect(await read(u)).toEqual([
				{ type: "realm_user", op: "update", person: { user_id: erin.user_id, full_name: "Erin B" } },
				{ type: "realm_user", op: "update", person: { user_id: erin.user_id, role: 300 } },
				{ type: "realm_user", op: "update", person: { user_id: erin.user_id, is_active: false } },
				{ type: "realm_user", op: "update", person: { user_id: erin.user_id, is_active: true } },
			]);
		}
	});

	test("a bot's creation is realm_bot for its owner and administrators", async () => {
		const read = await queues([admin, alice, bob], { event_types: JSON.stringify(["realm_bot"]) });
		const bot = await app.createUser({ full_name: "Helper Bot", is_bot: true, bot_owner_id: alice.user_id });
		for (const u of [admin, alice]) {
			expect(await read(u)).toMatchObject([{ type: "realm_bot", op: "add", bot: { user_id: bot.user_id, full_name: "Helper Bot", owner_id: alice.user_id, is_active: true } }]);
		}
		expect(await read(bob)).toEqual([]);
		// A new name: realm_bot update for the same audience.
		expectSuccess(await as(admin).patch(`/users/${bot.user_id}`, { full_name: "Helpful Bot" }));
		for (const u of [admin, alice]) expect(await read(u)).toEqual([{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, full_name: "Helpful Bot" } }]);
		expect(await read(bob)).toEqual([]);
	});

	test("settings reach the user's own queues; a time zone and a name also reach everyone", async () => {
		const read = await queues([bob, carol]);
		const read2 = await queues([bob]);
		expectSuccess(await as(bob).patch("/settings", { enter_sends: true, default_language: "de", timezone: "Europe/Berlin", full_name: "Robert" }));
		const expected = [
			{ type: "user_settings", op: "update", property: "default_language", value: "de", language_name: "Deutsch" },
			{ type: "user_settings", op: "update", property: "timezone", value: "Europe/Berlin" },
			{ type: "user_settings", op: "update", property: "enter_sends", value: true },
		];
		const others = [
			{ type: "realm_user", op: "update", person: { user_id: bob.user_id, full_name: "Robert" } },
			{ type: "realm_user", op: "update", person: { user_id: bob.user_id, email: expect.any(String), timezone: "Europe/Berlin" } },
		];
		for (const r of [read, read2]) expect(sorted(await r(bob))).toEqual(sorted([...expected, ...others]));
		expect(await read(carol)).toEqual(others);
	});
});
