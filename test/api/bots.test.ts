// Bots over the API, as Zulip's views: POST /bots (generic, incoming and outgoing webhook bots, who
// may create which by can_create_bots_group and can_create_write_only_bots_group), GET /bots,
// PATCH /bots/{bot_id}, POST /bots/{bot_id}/api_key/regenerate, POST /users/me/api_key/regenerate,
// DELETE /bots/{bot_id}, their realm_bot events and realm_bots in POST /register. Every refusal
// changes nothing.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues, type Ev } from "../support/events";

let app: TestApp;
let snap: Snapshotter;
let owner: Client;
let admin: Account;
let alice: Account;
let bob: Account;
let guest: Account;
let adminsGroup: number;
let membersGroup: number;
let secretId: number;
const as = (a: Account) => client(app.baseUrl, a);

async function createBot(a: Account, params: Record<string, unknown>) {
	const res = await as(a).post("/bots", params);
	expectSuccess(res);
	return res.body as { user_id: number; api_key: string; avatar_url: string; default_sending_stream: string | null };
}
const botAccount = (id: number, short: string, key: string): Account => ({ user_id: id, email: `${short}-bot@chat.test`, api_key: key });
async function realmBots(a: Account) {
	const res = await as(a).post("/register", { fetch_event_types: JSON.stringify(["realm_bot"]) });
	expectSuccess(res);
	return res.body.realm_bots as Array<Record<string, any>>;
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	admin = await app.createUser({ role: 200, full_name: "Admin" });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ role: 600, full_name: "Guest" });
	expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
	secretId = (await owner.get("/get_stream_id", { stream: "secret" })).body.stream_id;
	const groups = (await owner.get("/user_groups")).body.user_groups as Array<{ id: number; name: string }>;
	adminsGroup = groups.find((g) => g.name === "role:administrators")!.id;
	membersGroup = groups.find((g) => g.name === "role:members")!.id;
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap?.close();
	await app.stop();
});

describe("POST /bots", () => {
	test("a member creates a generic bot: the answer, the account, its events, realm_bots and GET /bots", async () => {
		const keep = (e: Ev) => e.type === "realm_bot" || (e.type === "realm_user" && e.op === "add");
		const queues = await eventQueues(as, [alice, admin, bob], { register: { fetch_event_types: JSON.stringify(["realm_user", "realm_bot"]) }, keep });
		const res = await as(alice).post("/bots", { full_name: "Alice's helper", short_name: " helper ", default_sending_stream: "general" });
		expectSuccess(res);
		const { user_id, api_key } = res.body;
		expect(res.body).toEqual({
			result: "success",
			msg: "",
			user_id: expect.any(Number),
			api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
			avatar_url: expect.stringContaining("gravatar"),
			default_sending_stream: "general",
			default_events_register_stream: null,
			default_all_public_streams: false,
		});
		const user = (await owner.get(`/users/${user_id}`)).body.user;
		expect(user).toMatchObject({ email: "helper-bot@chat.test", full_name: "Alice's helper", is_bot: true, bot_type: 1, bot_owner_id: alice.user_id, role: 400 });
		// The bot works with its key at once.
		const me = await as(botAccount(user_id, "helper", api_key)).get("/users/me");
		expect(me.body).toMatchObject({ user_id, is_bot: true });

		const bot = {
			email: "helper-bot@chat.test",
			user_id,
			full_name: "Alice's helper",
			bot_type: 1,
			is_active: true,
			api_key,
			default_sending_stream: "general",
			default_events_register_stream: null,
			default_all_public_streams: false,
			avatar_url: res.body.avatar_url,
			owner_id: alice.user_id,
			services: [],
		};
		for (const a of [alice, admin]) {
			const events = await queues(a);
			expect(events.map((e) => `${e.type}/${e.op}`)).toEqual(["realm_user/add", "realm_bot/add"]);
			expect(events[1].bot).toEqual(bot);
		}
		expect((await queues(bob)).map((e) => `${e.type}/${e.op}`)).toEqual(["realm_user/add"]);
		expect(await realmBots(alice)).toEqual([bot]);
		expect((await realmBots(admin)).map((b) => b.user_id)).toContain(user_id);
		expect(await realmBots(bob)).toEqual([]);

		const list = await as(alice).get("/bots");
		expectSuccess(list);
		expect(list.body.bots).toEqual([
			{ username: "helper-bot@chat.test", full_name: "Alice's helper", api_key, avatar_url: res.body.avatar_url, default_sending_stream: "general", default_events_register_stream: null, default_all_public_streams: false },
		]);
		expect((await as(bob).get("/bots")).body.bots).toEqual([]);
		// Administrators list only their own bots, as Zulip's get_bots_backend.
		expect((await as(admin).get("/bots")).body.bots).toEqual([]);
	});

	test("an outgoing webhook bot keeps its service; an incoming webhook bot has none", async () => {
		const out = await createBot(alice, { full_name: "Hook out", short_name: "hookout", bot_type: 3, payload_url: JSON.stringify("https://example.com/hook"), interface_type: 2 });
		const inc = await createBot(alice, { full_name: "Hook in", short_name: "hookin", bot_type: 2 });
		const bots = await realmBots(alice);
		expect(bots.find((b) => b.user_id === out.user_id)).toMatchObject({ bot_type: 3, services: [{ base_url: "https://example.com/hook", interface: 2, token: expect.stringMatching(/^[A-Za-z0-9]{32}$/) }] });
		expect(bots.find((b) => b.user_id === inc.user_id)).toMatchObject({ bot_type: 2, services: [] });
	});

	test("bad input, taken names and missing rights are refused as Zulip refuses them, changing nothing", async () => {
		await createBot(alice, { full_name: "Taken", short_name: "taken" });
		const post = (a: Account, params: Record<string, unknown>) => () => as(a).post("/bots", params);
		const base = { full_name: "Fresh bot", short_name: "fresh" };
		const cases: Array<[Account, Record<string, unknown>, string, string]> = [
			[alice, { short_name: "x" }, "REQUEST_VARIABLE_MISSING", "Missing 'full_name' argument"],
			[alice, { full_name: "X bot" }, "REQUEST_VARIABLE_MISSING", "Missing 'short_name' argument"],
			[alice, { ...base, short_name: "   " }, "BAD_REQUEST", "Bad name or username"],
			[alice, { ...base, short_name: "a b" }, "BAD_REQUEST", "Bad name or username"],
			[alice, { ...base, short_name: "taken" }, "BAD_REQUEST", "Username already in use"],
			[alice, { ...base, short_name: "TAKEN" }, "BAD_REQUEST", "Username already in use"],
			[alice, { ...base, full_name: "Taken" }, "BAD_REQUEST", "Name is already in use."],
			[alice, { ...base, full_name: "Alice" }, "BAD_REQUEST", "Name is already in use."],
			[alice, { ...base, full_name: "" }, "BAD_REQUEST", "Name too short!"],
			[alice, { ...base, full_name: "Bad*name" }, "BAD_REQUEST", "Invalid characters in name!"],
			[alice, { ...base, full_name: "x".repeat(101) }, "BAD_REQUEST", "Name too long!"],
			[alice, { ...base, bot_type: 4 }, "BAD_REQUEST", "Embedded bots are not enabled."],
			[alice, { ...base, bot_type: 5 }, "BAD_REQUEST", "Invalid bot type"],
			[alice, { ...base, bot_type: 0 }, "BAD_REQUEST", "Invalid bot type"],
			[alice, { ...base, bot_type: "generic" }, "BAD_REQUEST", "bot_type is not an integer"],
			[alice, { ...base, bot_type: 3, interface_type: 3 }, "BAD_REQUEST", "Invalid interface type"],
			[alice, { ...base, interface_type: "x" }, "BAD_REQUEST", "interface_type is not an integer"],
			[alice, { ...base, bot_type: 3, payload_url: JSON.stringify("not a url") }, "BAD_REQUEST", "payload_url is not a URL"],
			[alice, { ...base, bot_type: 3, payload_url: "12" }, "BAD_REQUEST", "payload_url is not a string"],
			[alice, { ...base, config_data: JSON.stringify([1]) }, "BAD_REQUEST", "config_data is not a dict"],
			[alice, { ...base, config_data: JSON.stringify({ a: 1 }) }, "BAD_REQUEST", 'config_data["a"] is not a string'],
			[alice, { ...base, default_sending_stream: "nowhere" }, "BAD_REQUEST", "Invalid channel name 'nowhere'"],
			[alice, { ...base, default_events_register_stream: "secret" }, "BAD_REQUEST", "Invalid channel name 'secret'"],
			[alice, { ...base, default_all_public_streams: "maybe" }, "BAD_REQUEST", "default_all_public_streams is not a boolean"],
			[guest, base, "BAD_REQUEST", "Not allowed for guest users"],
		];
		for (const [a, params, code, msg] of cases) await snap.refused(post(a, params), 400, code, msg);
		const bot = await createBot(alice, { full_name: "Refuser", short_name: "refuser" });
		await snap.refused(post(botAccount(bot.user_id, "refuser", bot.api_key), base), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
	});

	test("can_create_bots_group and can_create_write_only_bots_group decide who creates which bot", async () => {
		const state = (await owner.post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body;
		expect(state.realm_can_create_bots_group).toBe(membersGroup);
		expect(state.realm_can_create_write_only_bots_group).toBe(membersGroup);
		expectSuccess(await owner.patch("/realm", { can_create_bots_group: JSON.stringify({ new: adminsGroup }) }));
		try {
			await snap.refused(() => as(bob).post("/bots", { full_name: "Bob generic", short_name: "bobgen" }), 400, "BAD_REQUEST", "Insufficient permission");
			await snap.refused(() => as(bob).post("/bots", { full_name: "Bob out", short_name: "bobout", bot_type: 3 }), 400, "BAD_REQUEST", "Insufficient permission");
			await createBot(bob, { full_name: "Bob incoming", short_name: "bobin", bot_type: 2 });
			await createBot(admin, { full_name: "Admin generic", short_name: "admingen" });
			expectSuccess(await owner.patch("/realm", { can_create_write_only_bots_group: JSON.stringify({ new: adminsGroup }) }));
			await snap.refused(() => as(bob).post("/bots", { full_name: "Bob incoming 2", short_name: "bobin2", bot_type: 2 }), 400, "BAD_REQUEST", "Insufficient permission");
		} finally {
			expectSuccess(await owner.patch("/realm", { can_create_bots_group: JSON.stringify({ new: membersGroup }) }));
			expectSuccess(await owner.patch("/realm", { can_create_write_only_bots_group: JSON.stringify({ new: membersGroup }) }));
		}
	});
});

describe("PATCH /bots/{bot_id}", () => {
	test("the owner renames a bot and sets its default channels: answer, events, register state", async () => {
		const bot = await createBot(alice, { full_name: "Patchy", short_name: "patchy" });
		const queues = await eventQueues(as, [alice, admin, bob], { register: { fetch_event_types: JSON.stringify(["realm_user", "realm_bot"]) }, keep: (e) => e.type === "realm_bot" || e.type === "realm_user" });
		const res = await as(alice).patch(`/bots/${bot.user_id}`, { full_name: "Patchy Two", default_sending_stream: "general", default_events_register_stream: "general", default_all_public_streams: true });
		expectSuccess(res);
		expect(res.body).toEqual({
			result: "success",
			msg: "",
			full_name: "Patchy Two",
			avatar_url: bot.avatar_url,
			service_interface: 1,
			service_payload_url: null,
			config_data: null,
			default_sending_stream: "general",
			default_events_register_stream: "general",
			default_all_public_streams: true,
			bot_owner: alice.email,
		});
		const expected = [
			{ type: "realm_user", op: "update", person: { user_id: bot.user_id, full_name: "Patchy Two" } },
			{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, full_name: "Patchy Two" } },
			{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, default_sending_stream: "general" } },
			{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, default_events_register_stream: "general" } },
			{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, default_all_public_streams: true } },
		];
		expect(await queues(alice)).toEqual(expected);
		expect(await queues(admin)).toEqual(expected);
		expect(await queues(bob)).toEqual([expected[0]]);
		expect((await realmBots(alice)).find((b) => b.user_id === bot.user_id)).toMatchObject({ full_name: "Patchy Two", default_sending_stream: "general", default_all_public_streams: true });

		// "" clears a default channel; the same name again changes nothing.
		const cleared = await as(alice).patch(`/bots/${bot.user_id}`, { full_name: "Patchy Two", default_sending_stream: "" });
		expect(cleared.body.default_sending_stream).toBeNull();
		expect(await queues(bob)).toEqual([]);
	});

	test("a new owner: the old owner loses the bot, the new one gains it, administrators get an update", async () => {
		const bot = await createBot(alice, { full_name: "Handed over", short_name: "handed" });
		const queues = await eventQueues(as, [alice, bob, admin], { register: { fetch_event_types: JSON.stringify(["realm_user", "realm_bot"]) }, keep: (e) => e.type === "realm_bot" || e.type === "realm_user" });
		const res = await as(alice).patch(`/bots/${bot.user_id}`, { bot_owner_id: bob.user_id });
		expectSuccess(res);
		expect(res.body.bot_owner).toBe(bob.email);
		const realmUser = { type: "realm_user", op: "update", person: { user_id: bot.user_id, bot_owner_id: bob.user_id } };
		expect(await queues(alice)).toEqual([{ type: "realm_bot", op: "delete", bot: { user_id: bot.user_id } }, realmUser]);
		const bobs = await queues(bob);
		expect(bobs).toEqual([{ type: "realm_bot", op: "add", bot: expect.objectContaining({ user_id: bot.user_id, owner_id: bob.user_id }) }, realmUser]);
		expect(await queues(admin)).toEqual([{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, owner_id: bob.user_id } }, realmUser]);
		expect((await as(bob).get("/bots")).body.bots.map((b: any) => b.username)).toContain("handed-bot@chat.test");
		expect((await as(alice).get("/bots")).body.bots.map((b: any) => b.username)).not.toContain("handed-bot@chat.test");
		// Alice no longer administers it.
		await snap.refused(() => as(alice).patch(`/bots/${bot.user_id}`, { full_name: "Mine again" }), 400, "BAD_REQUEST", "Insufficient permission");
	});

	test("an outgoing webhook bot's service URL and interface change", async () => {
		const bot = await createBot(alice, { full_name: "Servant", short_name: "servant", bot_type: 3, payload_url: JSON.stringify("https://a.example/x") });
		const res = await as(alice).patch(`/bots/${bot.user_id}`, { service_payload_url: JSON.stringify("https://b.example/y"), service_interface: 2 });
		expectSuccess(res);
		expect(res.body).toMatchObject({ service_payload_url: "https://b.example/y", service_interface: 2 });
		expect((await realmBots(alice)).find((b) => b.user_id === bot.user_id)!.services).toEqual([{ base_url: "https://b.example/y", interface: 2, token: expect.any(String) }]);
	});

	test("administrators change a bot's role; others may not", async () => {
		const bot = await createBot(alice, { full_name: "Role bot", short_name: "rolebot" });
		await snap.refused(() => as(alice).patch(`/bots/${bot.user_id}`, { role: 300 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		await snap.refused(() => as(admin).patch(`/bots/${bot.user_id}`, { role: 100 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		expectSuccess(await as(admin).patch(`/bots/${bot.user_id}`, { role: 300 }));
		expect((await owner.get(`/users/${bot.user_id}`)).body.user.role).toBe(300);
	});

	test("bad input, unknown bots and strangers are refused, changing nothing", async () => {
		const bot = await createBot(alice, { full_name: "Guarded", short_name: "guarded" });
		const other = await createBot(alice, { full_name: "Other one", short_name: "otherone" });
		const patch = (a: Account, id: number | string, params: Record<string, unknown>) => () => as(a).patch(`/bots/${id}`, params);
		const cases: Array<[Account, number | string, Record<string, unknown>, string, string]> = [
			[alice, 999999, { full_name: "X y" }, "BAD_REQUEST", "No such bot"],
			[alice, bob.user_id, { full_name: "X y" }, "BAD_REQUEST", "No such bot"],
			[bob, bot.user_id, { full_name: "X y" }, "BAD_REQUEST", "Insufficient permission"],
			[alice, bot.user_id, { full_name: "Other one" }, "BAD_REQUEST", "Name is already in use."],
			[alice, bot.user_id, { full_name: "a`b" }, "BAD_REQUEST", "Invalid characters in name!"],
			[alice, bot.user_id, { bot_owner_id: 999999 }, "BAD_REQUEST", "Failed to change owner, no such user"],
			[alice, bot.user_id, { bot_owner_id: other.user_id }, "BAD_REQUEST", "Failed to change owner, bots can't own other bots"],
			[alice, bot.user_id, { bot_owner_id: "bob" }, "BAD_REQUEST", "bot_owner_id is not an integer"],
			[alice, bot.user_id, { role: 500 }, "BAD_REQUEST", "Invalid role"],
			[alice, bot.user_id, { default_sending_stream: "nowhere" }, "BAD_REQUEST", "Invalid channel name 'nowhere'"],
			[alice, bot.user_id, { default_events_register_stream: "secret" }, "BAD_REQUEST", "Invalid channel name 'secret'"],
			[alice, bot.user_id, { default_all_public_streams: "x" }, "BAD_REQUEST", "default_all_public_streams is not a boolean"],
			[alice, bot.user_id, { service_payload_url: JSON.stringify("ftp:nope") }, "BAD_REQUEST", "service_payload_url is not a URL"],
			[alice, bot.user_id, { service_payload_url: JSON.stringify("https://x.example"), service_interface: 9 }, "BAD_REQUEST", "Invalid interface type"],
			[alice, bot.user_id, { config_data: "[]" }, "BAD_REQUEST", "config_data is not a dict"],
			[guest, bot.user_id, { full_name: "X y" }, "BAD_REQUEST", "Not allowed for guest users"],
		];
		for (const [a, id, params, code, msg] of cases) await snap.refused(patch(a, id, params), 400, code, msg);
		const deactivated = await app.createUser({ full_name: "Gone" });
		expectSuccess(await owner.delete(`/users/${deactivated.user_id}`));
		await snap.refused(patch(alice, bot.user_id, { bot_owner_id: deactivated.user_id }), 400, "BAD_REQUEST", "Failed to change owner, user is deactivated");
		// The owner of the secret channel may name it; Alice, not subscribed, may not.
		const ownersBot = await createBot(app.owner, { full_name: "Owner's bot", short_name: "ownersbot", default_sending_stream: "secret" });
		expect(ownersBot.default_sending_stream).toBe("secret");
		expect(secretId).toBeGreaterThan(0);
	});
});

describe("API keys", () => {
	test("a bot's new key works at once and the old one stops; its owner and administrators hear of it", async () => {
		const bot = await createBot(alice, { full_name: "Keyed", short_name: "keyed" });
		const oldAccount = botAccount(bot.user_id, "keyed", bot.api_key);
		expectSuccess(await as(oldAccount).get("/users/me"));
		const queues = await eventQueues(as, [alice, admin, bob], { register: { fetch_event_types: JSON.stringify(["realm_bot"]) }, keep: (e) => e.type === "realm_bot" });
		const res = await as(alice).post(`/bots/${bot.user_id}/api_key/regenerate`);
		expectSuccess(res);
		expect(res.body).toEqual({ result: "success", msg: "", api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
		expect(res.body.api_key).not.toBe(bot.api_key);
		expectError(await as(oldAccount).get("/users/me"), 401, "UNAUTHORIZED");
		expectSuccess(await as({ ...oldAccount, api_key: res.body.api_key }).get("/users/me"));
		const update = [{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, api_key: res.body.api_key } }];
		expect(await queues(alice)).toEqual(update);
		expect(await queues(admin)).toEqual(update);
		expect(await queues(bob)).toEqual([]);
		await snap.refused(() => as(bob).post(`/bots/${bot.user_id}/api_key/regenerate`), 400, "BAD_REQUEST", "Insufficient permission");
		await snap.refused(() => as(alice).post("/bots/999999/api_key/regenerate"), 400, "BAD_REQUEST", "No such bot");
		await snap.refused(() => as(alice).post(`/bots/${bob.user_id}/api_key/regenerate`), 400, "BAD_REQUEST", "No such bot");
		// An administrator administers every bot.
		expectSuccess(await as(admin).post(`/bots/${bot.user_id}/api_key/regenerate`));
	});

	test("POST /users/me/api_key/regenerate: a user's (or a bot's own) new key, the old one refused at once", async () => {
		const user = await app.createUser({ full_name: "Rekeyed" });
		expectSuccess(await as(user).get("/users/me"));
		const res = await as(user).post("/users/me/api_key/regenerate");
		expectSuccess(res);
		expect(res.body).toEqual({ result: "success", msg: "", api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
		expectError(await as(user).get("/users/me"), 401, "UNAUTHORIZED");
		expectSuccess(await as({ ...user, api_key: res.body.api_key }).get("/users/me"));

		const bot = await createBot(alice, { full_name: "Self keyed", short_name: "selfkeyed" });
		const own = await as(botAccount(bot.user_id, "selfkeyed", bot.api_key)).post("/users/me/api_key/regenerate");
		expectSuccess(own);
		expect((await realmBots(alice)).find((b) => b.user_id === bot.user_id)!.api_key).toBe(own.body.api_key);
	});
});

describe("deactivating bots", () => {
	test("DELETE /bots/{bot_id} by the owner; DELETE /users/{bot_id} is for humans only", async () => {
		const bot = await createBot(alice, { full_name: "Short lived", short_name: "shortlived" });
		const account = botAccount(bot.user_id, "shortlived", bot.api_key);
		await snap.refused(() => owner.delete(`/users/${bot.user_id}`), 400, "BAD_REQUEST", "No such user");
		await snap.refused(() => as(bob).delete(`/bots/${bot.user_id}`), 400, "BAD_REQUEST", "Insufficient permission");
		await snap.refused(() => as(alice).delete(`/bots/${bob.user_id}`), 400, "BAD_REQUEST", "No such bot");
		await snap.refused(() => as(alice).delete("/bots/999999"), 400, "BAD_REQUEST", "No such bot");
		const queues = await eventQueues(as, [alice, bob], { register: { fetch_event_types: JSON.stringify(["realm_user", "realm_bot"]) }, keep: (e) => e.type === "realm_bot" || e.type === "realm_user" });
		expectSuccess(await as(alice).delete(`/bots/${bot.user_id}`));
		expect(await queues(alice)).toEqual([
			{ type: "realm_user", op: "update", person: { user_id: bot.user_id, is_active: false } },
			{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, is_active: false } },
		]);
		expect(await queues(bob)).toEqual([{ type: "realm_user", op: "update", person: { user_id: bot.user_id, is_active: false } }]);
		expectError(await as(account).get("/users/me"), 401, "UNAUTHORIZED", "Account is deactivated");
		expect((await as(alice).get("/bots")).body.bots.map((b: any) => b.username)).not.toContain("shortlived-bot@chat.test");
		// Again: nothing more to do.
		await snap.unchanged(async () => expectSuccess(await as(alice).delete(`/bots/${bot.user_id}`)));
	});

	test("POST /users/{bot_id}/reactivate: the bot's name must be free, and a deactivated owner hands the bot to the administrator", async () => {
		const carol = await app.createUser({ full_name: "Carol" });
		const bot = await createBot(carol, { full_name: "Revived", short_name: "revived" });
		expectSuccess(await as(carol).delete(`/bots/${bot.user_id}`));
		const namesake = await createBot(alice, { full_name: "Revived", short_name: "namesake" });
		await snap.refused(
			() => as(admin).post(`/users/${bot.user_id}/reactivate`),
			400,
			"BAD_REQUEST",
			'There is already an active bot named "Revived" in this organization. To reactivate this bot, you must rename or deactivate the other one first.',
		);
		expectSuccess(await as(alice).delete(`/bots/${namesake.user_id}`));
		expectSuccess(await owner.delete(`/users/${carol.user_id}`));
		const queues = await eventQueues(as, [admin, alice], { register: { fetch_event_types: JSON.stringify(["realm_user", "realm_bot"]) }, keep: (e) => e.type === "realm_bot" || e.type === "realm_user" });
		expectSuccess(await as(admin).post(`/users/${bot.user_id}/reactivate`));
		const realmUser = { type: "realm_user", op: "update", person: { user_id: bot.user_id, bot_owner_id: admin.user_id } };
		expect(await queues(admin)).toEqual([
			{ type: "realm_user", op: "update", person: { user_id: bot.user_id, is_active: true } },
			{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, is_active: true } },
			{ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, owner_id: admin.user_id } },
			realmUser,
		]);
		expect(await queues(alice)).toEqual([{ type: "realm_user", op: "update", person: { user_id: bot.user_id, is_active: true } }, realmUser]);
		expect((await as(admin).get("/bots")).body.bots.map((b: any) => b.username)).toContain("revived-bot@chat.test");
		expectSuccess(await as(botAccount(bot.user_id, "revived", bot.api_key)).get("/users/me"));
	});
});
