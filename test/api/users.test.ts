// User endpoints: listing and fetching users with the email-visibility rules, creating,
// deactivating and reactivating them, with every permission and bad-input path.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { BAD_FULL_NAMES } from "../support/full-names";
import { diffSnapshots, snapshotter } from "../support/db-snapshot";
import { eventQueues } from "../support/events";

let app: TestApp;
let owner: Client;
let admin: Account;
let moderator: Account;
let member: Account;
let guest: Account;
let hiddenFromMembers: Account; // visibility 3: administrators only

const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	admin = await app.createUser({ role: 200 });
	moderator = await app.createUser({ role: 300 });
	member = await app.createUser({ role: 400 });
	guest = await app.createUser({ role: 600 });
	hiddenFromMembers = await app.createUser({ role: 400, email_address_visibility: 3 });
	for (const a of [app.owner, admin]) await app.grant(a, "can_create_users");
});
afterAll(() => app.stop());

async function memberCount(): Promise<number> {
	return (await owner.get("/users")).body.members.length;
}

describe("GET /users/me", () => {
	test("returns the caller's own user object", async () => {
		const res = await as(member).get("/users/me");
		expectSuccess(res);
		expect(res.body).toMatchObject({
			user_id: member.user_id,
			email: member.email,
			delivery_email: member.email,
			role: 400,
			is_admin: false,
			is_owner: false,
			is_guest: false,
			is_bot: false,
			is_active: true,
			is_billing_admin: false,
			timezone: "",
			avatar_url: expect.stringMatching(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/),
			avatar_version: 1,
			date_joined: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
			profile_data: {},
			max_message_id: expect.any(Number),
		});
		// As Zulip's format_user_row: bot fields only on bots.
		expect(res.body).not.toHaveProperty("bot_type");
		expect(res.body).not.toHaveProperty("bot_owner_id");
	});

	test("a bot's own object carries bot_type and bot_owner_id, and no profile data", async () => {
		const bot = await app.createUser({ is_bot: true, bot_owner_id: member.user_id });
		const res = await as(bot).get("/users/me");
		expectSuccess(res);
		expect(res.body).toMatchObject({ user_id: bot.user_id, is_bot: true, bot_type: 1, bot_owner_id: member.user_id });
		expect(res.body).not.toHaveProperty("profile_data");
	});
});

describe("GET /users", () => {
	test("lists every user, deactivated ones with is_active false", async () => {
		const gone = await app.createUser({});
		expectSuccess(await owner.delete(`/users/${gone.user_id}`));
		const res = await as(member).get("/users");
		expectSuccess(res);
		const ids = res.body.members.map((m: { user_id: number }) => m.user_id);
		expect(ids).toEqual([...ids].sort((a, b) => a - b));
		expect(ids).toEqual(expect.arrayContaining([1, admin.user_id, member.user_id, guest.user_id, gone.user_id]));
		expect(res.body.members.find((m: { user_id: number }) => m.user_id === gone.user_id).is_active).toBe(false);
	});

	test("role flags follow the role", async () => {
		const res = await as(member).get("/users");
		const byId = new Map(res.body.members.map((m: { user_id: number }) => [m.user_id, m]));
		expect(byId.get(1)).toMatchObject({ role: 100, is_owner: true, is_admin: true, is_guest: false });
		expect(byId.get(admin.user_id)).toMatchObject({ role: 200, is_owner: false, is_admin: true });
		expect(byId.get(moderator.user_id)).toMatchObject({ role: 300, is_admin: false });
		expect(byId.get(guest.user_id)).toMatchObject({ role: 600, is_guest: true });
	});

	test("client_gravatar: avatar_url is null only where the caller can see the address", async () => {
		const withGravatar = await as(member).get("/users", { client_gravatar: true });
		const find = (body: any, id: number) => body.members.find((m: { user_id: number }) => m.user_id === id);
		expect(find(withGravatar.body, admin.user_id).avatar_url).toBeNull();
		expect(find(withGravatar.body, hiddenFromMembers.user_id).avatar_url).toMatch(/^https:/);
		const without = await as(member).get("/users", { client_gravatar: false });
		expect(find(without.body, admin.user_id).avatar_url).toMatch(/^https:/);
	});

	test("include_custom_profile_fields adds profile_data", async () => {
		const res = await as(member).get("/users", { include_custom_profile_fields: true });
		expect(res.body.members.find((m: { user_id: number }) => m.user_id === member.user_id).profile_data).toEqual({});
		const plain = await as(member).get("/users");
		expect(plain.body.members[0]).not.toHaveProperty("profile_data");
	});

	test("a hidden address shows as the placeholder email, and delivery_email only to those allowed", async () => {
		const placeholder = `user${hiddenFromMembers.user_id}@chat.test`;
		for (const [viewer, sees] of [
			[member, false],
			[guest, false],
			[moderator, false],
			[admin, true],
			[hiddenFromMembers, true],
		] as const) {
			const res = await as(viewer).get(`/users/${hiddenFromMembers.user_id}`);
			expectSuccess(res);
			expect(res.body.user.email).toBe(placeholder);
			expect(res.body.user.delivery_email).toBe(sees ? hiddenFromMembers.email : null);
		}
	});
});

describe("GET /users/{user_id}", () => {
	test("returns the user", async () => {
		const res = await as(guest).get(`/users/${member.user_id}`);
		expectSuccess(res);
		expect(res.body.user).toMatchObject({ user_id: member.user_id, email: member.email });
	});

	test("an unknown ID is BAD_REQUEST 'No such user'", async () => {
		expectError(await as(member).get("/users/999999"), 400, "BAD_REQUEST", "No such user");
	});

	test("a wrong-typed query parameter is named", async () => {
		expectError(await as(member).get(`/users/${member.user_id}`, { include_custom_profile_fields: "maybe" }), 400, "BAD_REQUEST", "include_custom_profile_fields is not a boolean");
	});
});

describe("GET /users/{email}", () => {
	test("finds a user by a visible real address, without regard to case", async () => {
		const res = await as(member).get(`/users/${encodeURIComponent(member.email.toUpperCase())}`);
		expectSuccess(res);
		expect(res.body.user.user_id).toBe(member.user_id);
	});

	test("a hidden address is found by its placeholder; the real one only by those who may see it", async () => {
		const placeholder = `user${hiddenFromMembers.user_id}@chat.test`;
		const viaPlaceholder = await as(member).get(`/users/${encodeURIComponent(placeholder)}`);
		expectSuccess(viaPlaceholder);
		expect(viaPlaceholder.body.user.user_id).toBe(hiddenFromMembers.user_id);

		expectError(await as(member).get(`/users/${encodeURIComponent(hiddenFromMembers.email)}`), 400, "BAD_REQUEST", "No such user");
		const byAdmin = await as(admin).get(`/users/${encodeURIComponent(hiddenFromMembers.email)}`);
		expectSuccess(byAdmin);
		expect(byAdmin.body.user.user_id).toBe(hiddenFromMembers.user_id);
	});

	test("the placeholder of a user whose address is public does not match", async () => {
		expectError(await as(member).get(`/users/${encodeURIComponent(`user${admin.user_id}@chat.test`)}`), 400, "BAD_REQUEST", "No such user");
	});

	test("an unknown address is BAD_REQUEST 'No such user'", async () => {
		expectError(await as(member).get("/users/nobody%40chat.test"), 400, "BAD_REQUEST", "No such user");
	});
});

describe("POST /users", () => {
	const fresh = (n: string) => ({ email: `${n}@chat.test`, password: "password123", full_name: `New ${n}` });

	test("an invalid email (1e308, as a JSON number or a form string) is a 400 that changes no document, system groups included", async () => {
		const snap = await snapshotter(app);
		try {
			const before = await snap.take();
			expectError(await as(admin).post("/users", { email: 1e308, password: "password123", full_name: "Big Number" }, { json: true }), 400, "BAD_REQUEST", "email is not a string");
			expectError(await as(admin).post("/users", { email: "1e308", password: "password123", full_name: "Big Number" }), 400, "BAD_REQUEST", /Invalid email/);
			expectError(await as(admin).post("/users", { email: "ok@chat.test", password: "password123", full_name: null }, { json: true }), 400, "BAD_REQUEST", "full_name is not a string");
			expect(diffSnapshots(before, await snap.take())).toEqual([]);
		} finally {
			await snap.close();
		}
	});

	test("an administrator creates a user who can then fetch an API key", async () => {
		const res = await as(admin).post("/users", fresh("created"));
		expectSuccess(res);
		expect(res.body.user_id).toEqual(expect.any(Number));
		const got = await as(member).get(`/users/${res.body.user_id}`);
		expect(got.body.user).toMatchObject({ email: "created@chat.test", full_name: "New created", role: 400, is_active: true });
		const key = await client(app.baseUrl, null).post("/fetch_api_key", { username: "created@chat.test", password: "password123" });
		expectSuccess(key);
	});

	test("the new user is subscribed to the organization's default channels, as Zulip's do_create_user", async () => {
		for (const name of ["lobby", "announcements-default", "not-default"]) expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]) }));
		const idOf = async (stream: string) => (await owner.get("/get_stream_id", { stream })).body.stream_id as number;
		for (const name of ["lobby", "announcements-default"]) expectSuccess(await owner.post("/default_streams", { stream_id: await idOf(name) }));
		const res = await as(admin).post("/users", fresh("defaults"));
		expectSuccess(res);
		const newcomer = (await owner.get(`/users/${res.body.user_id}/subscriptions/${await idOf("lobby")}`)).body;
		expect(newcomer.is_subscribed).toBe(true);
		expect((await owner.get(`/users/${res.body.user_id}/subscriptions/${await idOf("announcements-default")}`)).body.is_subscribed).toBe(true);
		expect((await owner.get(`/users/${res.body.user_id}/subscriptions/${await idOf("not-default")}`)).body.is_subscribed).toBe(false);
	});

	test("an administrator without the can_create_users permission an operator grants is refused, and nothing is created", async () => {
		const plainAdmin = await app.createUser({ role: 200 });
		const before = await memberCount();
		expectError(await as(plainAdmin).post("/users", fresh("ungranted")), 400, "BAD_REQUEST", "User not authorized to create users");
		expect(await memberCount()).toBe(before);
		// The permission alone is not enough: it is an administrator's.
		await app.grant(member, "can_create_users");
		expectError(await as(member).post("/users", fresh("ungranted")), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		expect(await memberCount()).toBe(before);
	});

	test.each([
		["moderator", () => moderator],
		["member", () => member],
		["guest", () => guest],
	])("a %s may not create users, and nothing is created", async (_role, who) => {
		const before = await memberCount();
		expectError(await as(who()).post("/users", fresh(`denied-${_role}`)), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		expect(await memberCount()).toBe(before);
	});

	test("an address already in use (in any case) is refused", async () => {
		const before = await memberCount();
		const res = await owner.post("/users", { ...fresh("dup"), email: member.email.toUpperCase() });
		expectError(res, 400, "BAD_REQUEST", `Email '${member.email.toUpperCase()}' already in use`);
		expect(await memberCount()).toBe(before);
	});

	test.each([
		["a malformed email", { email: "not-an-email" }, /Invalid email/],
		["an empty name", { full_name: "   " }, "Name too short!"],
		["a one-letter name", { full_name: " X " }, "Name too short!"],
		["a name ending in |digits", { full_name: "Name|42" }, "Invalid format!"],
		["a name too long", { full_name: "n".repeat(101) }, "Name too long!"],
		["a name with forbidden characters", { full_name: "Bad *name*" }, "Invalid characters in name!"],
		["a short password", { password: "abc" }, "The password is too weak."],
	])("%s is refused and nothing is created", async (_what, change, msg) => {
		const before = await memberCount();
		expectError(await owner.post("/users", { ...fresh(`bad${before}`), ...change }), 400, "BAD_REQUEST", msg);
		expect(await memberCount()).toBe(before);
	});

	test.each(BAD_FULL_NAMES)("the name %j is refused as %s (Zulip's check_full_name) and nothing is created", async (full_name, msg) => {
		const before = await memberCount();
		expectError(await owner.post("/users", { ...fresh(`badname${before}`), full_name }), 400, "BAD_REQUEST", msg);
		expect(await memberCount()).toBe(before);
	});

	test("the same rule for bots and accounts made by the management CLI", async () => {
		for (const [full_name, msg] of BAD_FULL_NAMES) {
			await expect(app.createUser({ is_bot: true, bot_owner_id: app.owner.user_id, full_name })).rejects.toMatchObject({ message: msg });
			await expect(app.createUser({ full_name })).rejects.toMatchObject({ message: msg });
		}
		const bot = await app.createUser({ is_bot: true, bot_owner_id: app.owner.user_id, full_name: "  Helper Bot " });
		expect((await owner.get(`/users/${bot.user_id}`)).body.user).toMatchObject({ full_name: "Helper Bot", is_bot: true });
	});

	test("with realm_require_unique_names, a name already in use is refused", async () => {
		await app.node.broker.call("users.setRealmSetting", { name: "realm_require_unique_names", value: true });
		try {
			const before = await memberCount();
			expectError(await owner.post("/users", { ...fresh("twin"), full_name: (await as(member).get("/users/me")).body.full_name.toUpperCase() }), 400, "BAD_REQUEST", "Unique names required in this organization.");
			expect(await memberCount()).toBe(before);
		} finally {
			await app.node.broker.call("users.setRealmSetting", { name: "realm_require_unique_names", value: false });
		}
	});

	test.each(["email", "password", "full_name"])("a missing %s is REQUEST_VARIABLE_MISSING", async (name) => {
		const params: Record<string, unknown> = fresh("missing");
		delete params[name];
		const res = await owner.post("/users", params);
		expectError(res, 400, "REQUEST_VARIABLE_MISSING", `Missing '${name}' argument`);
		expect(res.body.var_name).toBe(name);
	});
});

describe("DELETE /users/{user_id} and POST /users/{user_id}/reactivate", () => {
	test("non-administrators may neither deactivate nor reactivate", async () => {
		const target = await app.createUser({});
		for (const who of [moderator, member, guest]) {
			expectError(await as(who).delete(`/users/${target.user_id}`), 400, "UNAUTHORIZED_PRINCIPAL");
		}
		expect((await owner.get(`/users/${target.user_id}`)).body.user.is_active).toBe(true);
		expectSuccess(await owner.delete(`/users/${target.user_id}`));
		for (const who of [moderator, member, guest]) {
			expectError(await as(who).post(`/users/${target.user_id}/reactivate`), 400, "UNAUTHORIZED_PRINCIPAL");
		}
		expect((await owner.get(`/users/${target.user_id}`)).body.user.is_active).toBe(false);
	});

	test("deactivating twice, or an unknown user, is 'No such user'", async () => {
		const target = await app.createUser({});
		expectSuccess(await as(admin).delete(`/users/${target.user_id}`));
		expectError(await as(admin).delete(`/users/${target.user_id}`), 400, "BAD_REQUEST", "No such user");
		expectError(await as(admin).delete("/users/999999"), 400, "BAD_REQUEST", "No such user");
		expectError(await as(admin).post("/users/999999/reactivate"), 400, "BAD_REQUEST", "No such user");
	});

	test("reactivating an active user is refused", async () => {
		expectError(await as(admin).post(`/users/${member.user_id}/reactivate`), 400, "BAD_REQUEST", "User is already active");
	});

	test("only an owner deactivates an owner, and never the only one", async () => {
		expectError(await as(admin).delete("/users/1"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		expectError(await owner.delete("/users/1"), 400, "BAD_REQUEST", "Cannot deactivate the only organization owner");
		expect((await owner.get("/users/1")).body.user.is_active).toBe(true);

		const second = await app.createUser({ role: 100 });
		expectSuccess(await owner.delete(`/users/${second.user_id}`));
		expect((await owner.get(`/users/${second.user_id}`)).body.user.is_active).toBe(false);
	});

	test("a deactivated user can be reactivated and keeps their data", async () => {
		const target = await app.createUser({ full_name: "Comes Back" });
		expectSuccess(await owner.delete(`/users/${target.user_id}`, { deactivation_notification_comment: "see you" }));
		expectSuccess(await owner.post(`/users/${target.user_id}/reactivate`));
		expect((await owner.get(`/users/${target.user_id}`)).body.user).toMatchObject({ is_active: true, full_name: "Comes Back" });
	});
});

describe("DELETE /users/me", () => {
	test("any user but the only owner deactivates their own account, which then cannot authenticate", async () => {
		for (const role of [200, 300, 400, 600]) {
			const self = await app.createUser({ role });
			const res = await as(self).delete("/users/me");
			expectSuccess(res);
			expect(res.body).toEqual({ result: "success", msg: "" });
			expect((await owner.get(`/users/${self.user_id}`)).body.user.is_active).toBe(false);
			expectError(await as(self).get("/users/me"), 401, "UNAUTHORIZED", "Account is deactivated");
			expectError(await as(self).delete("/users/me"), 401, "UNAUTHORIZED", "Account is deactivated");
			// An administrator brings them back, data kept.
			expectSuccess(await owner.post(`/users/${self.user_id}/reactivate`));
			expect((await as(self).get("/users/me")).body).toMatchObject({ user_id: self.user_id, role, is_active: true });
		}
	});

	test("a bot deactivates itself, as Zulip allows", async () => {
		const bot = await app.createUser({ is_bot: true, bot_owner_id: member.user_id });
		expectSuccess(await as(bot).delete("/users/me"));
		expect((await owner.get(`/users/${bot.user_id}`)).body.user.is_active).toBe(false);
	});

	test("an owner may when another owner remains; parameters are ignored as unknown", async () => {
		const second = await app.createUser({ role: 100 });
		const res = await as(second).delete("/users/me", { user_id: member.user_id });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported).toEqual(["user_id"]);
		expect((await owner.get(`/users/${second.user_id}`)).body.user.is_active).toBe(false);
		expect((await owner.get(`/users/${member.user_id}`)).body.user.is_active).toBe(true);
	});

	test("the only user, and then the only human owner, cannot; the refusal changes nothing", async () => {
		const solo = await startTestApp();
		try {
			const soloOwner = client(solo.baseUrl, solo.owner);
			const snap = await snapshotter(solo);
			try {
				await snap.unchanged(async () => {
					const only = await soloOwner.delete("/users/me");
					expectError(only, 400, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only user.");
					expect(only.body).toEqual({ result: "error", msg: "Cannot deactivate the only user.", code: "CANNOT_DEACTIVATE_LAST_USER", is_last_owner: false, entity: "user" });
				});

				// A bot is an active user too (one with the owner role is no human owner): the owner is now the only owner, not the only user.
				await solo.createUser({ is_bot: true, bot_owner_id: solo.owner.user_id, role: 100 });
				await snap.unchanged(async () => {
					const lastOwner = await soloOwner.delete("/users/me");
					expectError(lastOwner, 400, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only organization owner.");
					expect(lastOwner.body).toEqual({ result: "error", msg: "Cannot deactivate the only organization owner.", code: "CANNOT_DEACTIVATE_LAST_USER", is_last_owner: true, entity: "organization owner" });
				});
				const admin = await solo.createUser({ role: 200 });
				await snap.unchanged(async () => expectError(await soloOwner.delete("/users/me"), 400, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only organization owner."));
				expect((await soloOwner.get("/users/me")).body.is_active).toBe(true);

				// With a second owner, either may go, and the other is then the last.
				const second = await solo.createUser({ role: 100 });
				expectSuccess(await soloOwner.delete("/users/me"));
				expectError(await client(solo.baseUrl, second).delete("/users/me"), 400, "CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only organization owner.");
				expectSuccess(await client(solo.baseUrl, admin).delete("/users/me"));
			} finally {
				await snap.close();
			}
		} finally {
			await solo.stop();
		}
	});
});

describe("a deactivated user's bots", () => {
	const botEvents = { event_types: JSON.stringify(["realm_user", "realm_bot"]) };
	const isActive = async (id: number) => (await owner.get(`/users/${id}`)).body.user.is_active as boolean;

	test("go with them (admin or self), told as Zulip's do_deactivate_user tells it; reactivation leaves them deactivated", async () => {
		const keeper = await app.createUser({ full_name: "Bot Keeper" });
		const [b1, b2, gone] = [await app.createUser({ is_bot: true, bot_owner_id: keeper.user_id }), await app.createUser({ is_bot: true, bot_owner_id: keeper.user_id }), await app.createUser({ is_bot: true, bot_owner_id: keeper.user_id })];
		const others = await app.createUser({ is_bot: true, bot_owner_id: member.user_id });
		expectSuccess(await as(gone).delete("/users/me"));
		const read = await eventQueues(as, [admin, moderator], { register: botEvents });

		expectSuccess(await owner.delete(`/users/${keeper.user_id}`));
		for (const b of [b1, b2]) {
			expect(await isActive(b.user_id)).toBe(false);
			expectError(await as(b).get("/users/me"), 401, "UNAUTHORIZED", "Account is deactivated");
		}
		expect(await isActive(others.user_id)).toBe(true);
		const deactivated = (id: number) => ({ type: "realm_user", op: "update", person: { user_id: id, is_active: false } });
		const botUpdate = (id: number) => ({ type: "realm_bot", op: "update", bot: { user_id: id, is_active: false } });
		// The bots first, then their owner; realm_bot only to administrators (and the owner).
		expect(await read(admin)).toEqual([deactivated(b1.user_id), botUpdate(b1.user_id), deactivated(b2.user_id), botUpdate(b2.user_id), deactivated(keeper.user_id)]);
		expect(await read(moderator)).toEqual([deactivated(b1.user_id), deactivated(b2.user_id), deactivated(keeper.user_id)]);

		// Zulip's do_reactivate_user brings back the user alone.
		expectSuccess(await owner.post(`/users/${keeper.user_id}/reactivate`));
		for (const b of [b1, b2, gone]) expect(await isActive(b.user_id)).toBe(false);

		// Deactivating oneself takes one's bots too.
		const mine = await app.createUser({ is_bot: true, bot_owner_id: keeper.user_id });
		await read(admin);
		expectSuccess(await as(keeper).delete("/users/me"));
		expect(await isActive(mine.user_id)).toBe(false);
		expectError(await as(mine).get("/users/me"), 401, "UNAUTHORIZED", "Account is deactivated");
		expect(await isActive(others.user_id)).toBe(true);
		expect(await read(admin)).toEqual([deactivated(mine.user_id), botUpdate(mine.user_id), deactivated(keeper.user_id)]);
	});

	test("a refused deactivation leaves the bots active", async () => {
		const bot = await app.createUser({ is_bot: true, bot_owner_id: app.owner.user_id });
		expectError(await as(admin).delete(`/users/${app.owner.user_id}`), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		expect(await isActive(bot.user_id)).toBe(true);
	});
});

describe("GET /users/me max_message_id", () => {
	test("is the newest message ID the user has, -1 before any", async () => {
		const fresh = await app.createUser({ role: 400 });
		expect((await as(fresh).get("/users/me")).body.max_message_id).toBe(-1);
		const first = await as(fresh).post("/messages", { type: "direct", to: JSON.stringify([member.user_id]), content: "one" });
		expectSuccess(first);
		expect((await as(fresh).get("/users/me")).body.max_message_id).toBe(first.body.id);
		// A message someone else sends the user counts too, and the cached profile does not hide it.
		const second = await as(member).post("/messages", { type: "direct", to: JSON.stringify([fresh.user_id]), content: "two" });
		expectSuccess(second);
		expect((await as(fresh).get("/users/me")).body.max_message_id).toBe(second.body.id);
	});

	test("goes back when the newest message is deleted, and when a topic moves where the user may not follow", async () => {
		const fresh = await app.createUser({ role: 400 });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "max-id open" }]), principals: JSON.stringify([fresh.user_id]) }));
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "max-id closed" }]), invite_only: "true", history_public_to_subscribers: "false" }));
		const [open, closed] = await Promise.all(["max-id open", "max-id closed"].map(async (stream) => (await owner.get("/get_stream_id", { stream })).body.stream_id as number));
		const send = async (topic: string) => (await owner.post("/messages", { type: "stream", to: String(open), topic, content: "hello" })).body.id as number;
		const first = await send("staying");
		const second = await send("staying");
		expect((await as(fresh).get("/users/me")).body.max_message_id).toBe(second);
		expectSuccess(await owner.delete(`/messages/${second}`));
		expect((await as(fresh).get("/users/me")).body.max_message_id).toBe(first);

		// Into a private channel without shared history, those who cannot read it there lose their copies.
		const moving = await send("moving");
		expect((await as(fresh).get("/users/me")).body.max_message_id).toBe(moving);
		expectSuccess(await owner.patch(`/messages/${moving}`, { stream_id: String(closed), propagate_mode: "change_all" }));
		expect((await as(fresh).get("/users/me")).body.max_message_id).toBe(first);
	});
});

describe("role:fullmembers", () => {
	test("holds a new member at once when there is no waiting period", async () => {
		const fresh = await app.createUser({ role: 400 });
		const groups = (await owner.get("/user_groups")).body.user_groups as Array<{ name: string; members: number[] }>;
		expect(groups.find((g) => g.name === "role:fullmembers")!.members).toContain(fresh.user_id);
	});
});
