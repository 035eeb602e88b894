// PATCH /users/{user_id} and PATCH /users/{email}: administrators change users' names, roles,
// emails and profile data; every role transition by every role; nothing changes on an error.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { BAD_FULL_NAMES, GOOD_FULL_NAMES } from "../support/full-names";

let app: TestApp;
let owner: Client;
const actors: Record<number, Account> = {};
const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	actors[100] = { ...app.owner };
	for (const role of [200, 300, 400, 600]) actors[role] = await app.createUser({ role });
});
afterAll(() => app.stop());

async function userOf(id: number) {
	return (await owner.get(`/users/${id}`, { include_custom_profile_fields: true })).body.user;
}

describe("role changes: every transition by every role", () => {
	const ROLES = [100, 200, 300, 400, 600];
	const cases: Array<[number, number, number]> = [];
	for (const actor of ROLES) for (const from of ROLES) for (const to of ROLES) if (from !== to) cases.push([actor, from, to]);

	function expected(actor: number, from: number, to: number): { ok: true } | { ok: false; code: string; msg: string } {
		if (actor > 200) return { ok: false, code: "UNAUTHORIZED_PRINCIPAL", msg: "Must be an organization administrator" };
		if ((from === 100 || to === 100) && actor !== 100) return { ok: false, code: "UNAUTHORIZED_PRINCIPAL", msg: "Must be an organization owner" };
		if (from === 600 && to <= 200) return { ok: false, code: "BAD_REQUEST", msg: "Guests cannot be organization administrators" };
		return { ok: true };
	}

	test.each(cases)("actor %i changes a user from role %i to %i", async (actorRole, from, to) => {
		const target = await app.createUser({ role: from });
		const res = await as(actors[actorRole]).patch(`/users/${target.user_id}`, { role: to });
		const want = expected(actorRole, from, to);
		if (want.ok) expectSuccess(res);
		else expectError(res, 400, want.code, want.msg);
		expect((await userOf(target.user_id)).role).toBe(want.ok ? to : from);
	});

	test("a new role takes effect at once for the user's own requests", async () => {
		const u = await app.createUser({ role: 400 });
		const uc = as(u);
		await app.grant(u, "can_create_users");
		expectError(await uc.post("/users", { email: "x1@chat.test", password: "password1", full_name: "X1" }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectSuccess(await owner.patch(`/users/${u.user_id}`, { role: 200 }));
		expectSuccess(await uc.post("/users", { email: "x1@chat.test", password: "password1", full_name: "X1" }));
		expect((await uc.get("/users/me")).body.role).toBe(200);
	});

	test.each([[0], [500], [700], ["admin"]])("role %p is refused", async (role) => {
		const target = await app.createUser({});
		const res = await owner.patch(`/users/${target.user_id}`, { role });
		expectError(res, 400, "BAD_REQUEST");
		expect((await userOf(target.user_id)).role).toBe(400);
	});
});

describe("the last owner", () => {
	// A fresh organization: the matrix above makes many owners.
	let solo: TestApp;
	beforeAll(async () => {
		solo = await startTestApp();
	});
	afterAll(() => solo.stop());

	test("the only owner cannot lose the owner role; with a second owner it can", async () => {
		const soloOwner = client(solo.baseUrl, solo.owner);
		const roleOf = async (id: number) => (await soloOwner.get(`/users/${id}`)).body.user.role;
		expectError(await soloOwner.patch("/users/1", { role: 200 }), 400, "BAD_REQUEST", "The owner permission cannot be removed from the only organization owner.");
		expect(await roleOf(1)).toBe(100);
		const second = await solo.createUser({ role: 100 });
		expectSuccess(await client(solo.baseUrl, second).patch("/users/1", { role: 200 }));
		expect(await roleOf(1)).toBe(200);
		expectError(await client(solo.baseUrl, second).patch(`/users/${second.user_id}`, { role: 400 }), 400, "BAD_REQUEST", "The owner permission cannot be removed from the only organization owner.");
		expect(await roleOf(second.user_id)).toBe(100);
	});

	test("two owners removing each other and themselves at once leave exactly one owner, every time", async () => {
		type Listed = { user_id: number; delivery_email: string; role: number; is_active: boolean; is_bot: boolean };
		const owners = async (): Promise<Listed[]> => (await client(solo.baseUrl, solo.owner).get("/users")).body.members.filter((u: Listed) => u.role === 100 && u.is_active && !u.is_bot);
		const account = (u: Listed) => solo.node.broker.call<Account, { email: string }>("users.credentials", { email: u.delivery_email });
		let left = await owners();
		expect(left).toHaveLength(1);
		for (let round = 0; round < 6; round++) {
			const survivor = await account(left[0]);
			const n = await solo.createUser({ role: 100 });
			const [s, c] = [client(solo.baseUrl, survivor), client(solo.baseUrl, n)];
			const results = await Promise.all([
				s.delete(`/users/${n.user_id}`),
				c.delete(`/users/${survivor.user_id}`),
				s.delete("/users/me"),
				c.delete("/users/me"),
				s.patch(`/users/${n.user_id}`, { role: 200 }),
				c.patch(`/users/${survivor.user_id}`, { role: 200 }),
				c.delete(`/users/${survivor.user_id}`),
				s.delete(`/users/${n.user_id}`),
			]);
			// Each is answered (a loser may find itself deactivated or demoted), never with a server error.
			for (const r of results) expect([200, 400, 401]).toContain(r.status);
			left = await owners();
			expect(left).toHaveLength(1);
		}
	});
});

describe("full_name", () => {
	test("an administrator renames a user", async () => {
		const target = await app.createUser({});
		expectSuccess(await as(actors[200]).patch(`/users/${target.user_id}`, { full_name: "  Renamed Person " }));
		expect((await userOf(target.user_id)).full_name).toBe("Renamed Person");
	});

	test.each(BAD_FULL_NAMES)("%j is refused by ID and by email (Zulip's check_full_name), and nothing changes", async (name, msg) => {
		const target = await app.createUser({ full_name: "Stays Same" });
		expectError(await owner.patch(`/users/${target.user_id}`, { full_name: name }), 400, "BAD_REQUEST", msg);
		expectError(await owner.patch(`/users/${encodeURIComponent(target.email)}`, { full_name: name }), 400, "BAD_REQUEST", msg);
		expect((await userOf(target.user_id)).full_name).toBe("Stays Same");
	});

	test.each(GOOD_FULL_NAMES)("%j is accepted by ID and by email, stored trimmed", async (name, stored) => {
		const [a, b] = [await app.createUser({}), await app.createUser({})];
		expectSuccess(await owner.patch(`/users/${a.user_id}`, { full_name: name }));
		expectSuccess(await owner.patch(`/users/${encodeURIComponent(b.email)}`, { full_name: name }));
		expect([(await userOf(a.user_id)).full_name, (await userOf(b.user_id)).full_name]).toEqual([stored, stored]);
	});

	test("a full_name that is not a string is refused", async () => {
		const target = await app.createUser({ full_name: "Typed Name" });
		expectError(await owner.patch(`/users/${target.user_id}`, { full_name: 7 }, { json: true }), 400, "BAD_REQUEST", "full_name is not a string");
		expect((await userOf(target.user_id)).full_name).toBe("Typed Name");
	});

	test("with realm_require_unique_names, another user's name is refused; the target's own is not", async () => {
		await app.createUser({ full_name: "Only One" });
		const target = await app.createUser({ full_name: "Second One" });
		await app.node.broker.call("users.setRealmSetting", { name: "realm_require_unique_names", value: true });
		try {
			expectError(await owner.patch(`/users/${target.user_id}`, { full_name: "only one" }), 400, "BAD_REQUEST", "Unique names required in this organization.");
			expectError(await owner.patch(`/users/${encodeURIComponent(target.email)}`, { full_name: "ONLY ONE" }), 400, "BAD_REQUEST", "Unique names required in this organization.");
			expect((await userOf(target.user_id)).full_name).toBe("Second One");
			expectSuccess(await owner.patch(`/users/${target.user_id}`, { full_name: "second one" }));
			expect((await userOf(target.user_id)).full_name).toBe("second one");
		} finally {
			await app.node.broker.call("users.setRealmSetting", { name: "realm_require_unique_names", value: false });
		}
	});

	test("a non-administrator may not rename others", async () => {
		const target = await app.createUser({ full_name: "Not Yours" });
		expectError(await as(actors[400]).patch(`/users/${target.user_id}`, { full_name: "Mine" }), 400, "UNAUTHORIZED_PRINCIPAL");
		expect((await userOf(target.user_id)).full_name).toBe("Not Yours");
	});

	test("one bad change in a request leaves the others unapplied", async () => {
		const target = await app.createUser({ full_name: "Atomic" });
		expectError(await owner.patch(`/users/${target.user_id}`, { full_name: "Changed", role: 9 }), 400, "BAD_REQUEST");
		expectError(await owner.patch(`/users/${target.user_id}`, { full_name: "Changed", profile_data: [{ id: 999, value: "x" }] }), 400, "BAD_REQUEST", "Field id 999 not found.");
		expect((await userOf(target.user_id)).full_name).toBe("Atomic");
	});
});

describe("new_email", () => {
	test("needs an owner with the can_change_user_emails permission", async () => {
		const target = await app.createUser({});
		expectError(await as(actors[200]).patch(`/users/${target.user_id}`, { new_email: "moved@chat.test" }), 400, "BAD_REQUEST", "Insufficient permission");
		expectError(await owner.patch(`/users/${target.user_id}`, { new_email: "moved@chat.test" }), 400, "BAD_REQUEST", "Insufficient permission");
		expect((await userOf(target.user_id)).delivery_email).toBe(target.email);

		await app.node.broker.call("users.setPermission", { email: app.owner.email, permission: "can_change_user_emails", value: true });
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { new_email: "moved@chat.test" }));
		expect((await userOf(target.user_id)).delivery_email).toBe("moved@chat.test");
		// The old credentials' email no longer matches; the new one authenticates.
		expectError(await client(app.baseUrl, target).get("/users/me"), 401, "UNAUTHORIZED", "Invalid API key");
		expectSuccess(await client(app.baseUrl, { email: "moved@chat.test", api_key: target.api_key }).get("/users/me"));
	});

	test("must be a valid address not used by anyone else", async () => {
		await app.node.broker.call("users.setPermission", { email: app.owner.email, permission: "can_change_user_emails", value: true });
		const target = await app.createUser({});
		expectError(await owner.patch(`/users/${target.user_id}`, { new_email: actors[400].email }), 400, "BAD_REQUEST", `Email '${actors[400].email}' already in use`);
		expectError(await owner.patch(`/users/${target.user_id}`, { new_email: "not an email" }), 400, "BAD_REQUEST", /Invalid email/);
		expect((await userOf(target.user_id)).delivery_email).toBe(target.email);
	});
});

describe("PATCH /users/{email}", () => {
	test("finds the target by visible real address, or by placeholder when hidden", async () => {
		const visible = await app.createUser({});
		expectSuccess(await owner.patch(`/users/${encodeURIComponent(visible.email)}`, { full_name: "By Email" }));
		expect((await userOf(visible.user_id)).full_name).toBe("By Email");

		const hidden = await app.createUser({ email_address_visibility: 4 });
		expectError(await owner.patch(`/users/${encodeURIComponent(hidden.email)}`, { full_name: "Nope" }), 400, "BAD_REQUEST", "No such user");
		expectSuccess(await owner.patch(`/users/${encodeURIComponent(`user${hidden.user_id}@chat.test`)}`, { full_name: "By Placeholder" }));
		expect((await userOf(hidden.user_id)).full_name).toBe("By Placeholder");
	});

	test("administrators only, and unknown addresses are 'No such user'", async () => {
		const t = await app.createUser({ full_name: "Untouched" });
		expectError(await as(actors[300]).patch(`/users/${encodeURIComponent(t.email)}`, { full_name: "X" }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectError(await owner.patch("/users/ghost%40chat.test", { full_name: "X" }), 400, "BAD_REQUEST", "No such user");
		expect((await userOf(t.user_id)).full_name).toBe("Untouched");
	});
});

describe("bad input", () => {
	test("unknown user IDs, wrong types and bad JSON", async () => {
		expectError(await owner.patch("/users/999999", { full_name: "X" }), 400, "BAD_REQUEST", "No such user");
		const t = await app.createUser({});
		expectError(await owner.patch(`/users/${t.user_id}`, { role: "1.5" }), 400, "BAD_REQUEST", "role is not an integer");
		expectError(await owner.patch(`/users/${t.user_id}`, { profile_data: "[{" }), 400, "BAD_REQUEST", 'Argument "profile_data" is not valid JSON.');
		expectError(await owner.patch(`/users/${t.user_id}`, { profile_data: [{ value: "x" }] }), 400, "REQUEST_VARIABLE_MISSING");
		expectError(await owner.patch(`/users/${t.user_id}`, { profile_data: { id: 1 } }), 400, "BAD_REQUEST", "profile_data is not a list");
	});
});
