// Custom profile fields: creating, editing, reordering and deleting them (administrators only),
// every field type with good and bad values, and the values in user objects and POST /register.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let member: Account;
let mc: Client;

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	member = await app.createUser({});
	mc = client(app.baseUrl, member);
});
afterAll(() => app.stop());

async function fields(): Promise<any[]> {
	return (await mc.get("/realm/profile_fields")).body.custom_fields;
}

async function create(params: Record<string, unknown>): Promise<number> {
	const res = await owner.post("/realm/profile_fields", params);
	expectSuccess(res);
	return res.body.id;
}

async function profileOf(userId: number): Promise<Record<string, { value: string; rendered_value?: string }>> {
	return (await mc.get(`/users/${userId}`, { include_custom_profile_fields: true })).body.user.profile_data;
}

const CHOICES = { "0": { text: "Vim", order: "1" }, "1": { text: "Emacs", order: "2" } };

describe("fields", () => {
	test("an administrator creates a field of each type; everyone can list them in order", async () => {
		const ids = [
			await create({ name: "Phone", field_type: 1, hint: "Work phone" }),
			await create({ name: "Biography", field_type: 2 }),
			await create({ name: "Editor", field_type: 3, field_data: CHOICES }),
			await create({ name: "Birthday", field_type: 4 }),
			await create({ name: "Website", field_type: 5, display_in_profile_summary: true }),
			await create({ name: "Mentor", field_type: 6 }),
			await create({ name: "GitHub", field_type: 7, field_data: { subtype: "github" } }),
			await create({ name: "Pronouns", field_type: 8 }),
		];
		const list = await fields();
		expect(list.map((f) => f.id)).toEqual(ids);
		expect(list.map((f) => f.order)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		expect(list[0]).toMatchObject({ name: "Phone", type: 1, hint: "Work phone", field_data: "", display_in_profile_summary: false });
		expect(JSON.parse(list[2].field_data)).toEqual(CHOICES);
		expect(JSON.parse(list[6].field_data)).toEqual({ subtype: "github" });
	});

	test("non-administrators may not create, edit, reorder or delete fields", async () => {
		const before = await fields();
		expectError(await mc.post("/realm/profile_fields", { name: "Mine", field_type: 1 }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectError(await mc.patch(`/realm/profile_fields/${before[0].id}`, { name: "Mine" }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectError(await mc.patch("/realm/profile_fields", { order: before.map((f) => f.id).reverse() }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectError(await mc.delete(`/realm/profile_fields/${before[0].id}`), 400, "UNAUTHORIZED_PRINCIPAL");
		expect(await fields()).toEqual(before);
	});

	test.each([
		[{ name: "", field_type: 1 }, "Label cannot be blank."],
		[{ name: "x".repeat(41), field_type: 1 }, "name is too long (limit: 40 characters)"],
		[{ name: "Phone", field_type: 1 }, "A field with that label already exists."],
		[{ name: "Hinted", field_type: 1, hint: "h".repeat(81) }, "hint is too long (limit: 80 characters)"],
		[{ name: "Typeless", field_type: 99 }, "Invalid field type."],
		[{ name: "No choices", field_type: 3, field_data: {} }, "Field must have at least one choice."],
		[{ name: "Bad choice", field_type: 3, field_data: { a: { text: "" , order: "1" } } }, "Label cannot be blank."],
		[{ name: "Odd site", field_type: 7, field_data: { subtype: "myspace" } }, "Invalid external account type"],
		[{ name: "Custom site", field_type: 7, field_data: { subtype: "custom", url_pattern: "https://x.test/" } }, "Custom external account must define URL pattern"],
		[{ name: "Long summary", field_type: 2, display_in_profile_summary: true }, "Field type not supported for display in profile summary."],
		[{ name: "Data on text", field_type: 1, field_data: { a: 1 } }, "field_data is only for choice and external account fields"],
	])("creating %j is refused: %s", async (params, msg) => {
		const before = await fields();
		expectError(await owner.post("/realm/profile_fields", params), 400, "BAD_REQUEST", msg);
		expect(await fields()).toEqual(before);
	});

	test("missing or wrong-typed parameters are named", async () => {
		expectError(await owner.post("/realm/profile_fields", { name: "X" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'field_type' argument");
		expectError(await owner.post("/realm/profile_fields", { name: "X", field_type: "short" }), 400, "BAD_REQUEST", "field_type is not an integer");
		expectError(await owner.post("/realm/profile_fields", { name: "X", field_type: 3, field_data: "{oops" }), 400, "BAD_REQUEST");
	});

	test("at most two fields show in the profile summary", async () => {
		await create({ name: "Summary one", field_type: 1, display_in_profile_summary: true });
		expectError(await owner.post("/realm/profile_fields", { name: "Summary two", field_type: 1, display_in_profile_summary: true }), 400, "BAD_REQUEST", /Only 2 custom profile fields/);
	});

	test("editing a field changes what was given; a clash or unknown ID is refused", async () => {
		const list = await fields();
		const phone = list.find((f) => f.name === "Phone");
		expectSuccess(await owner.patch(`/realm/profile_fields/${phone.id}`, { name: "Telephone", hint: "Any phone" }));
		expect((await fields()).find((f) => f.id === phone.id)).toMatchObject({ name: "Telephone", hint: "Any phone", type: 1 });
		expectError(await owner.patch(`/realm/profile_fields/${phone.id}`, { name: "Biography" }), 400, "BAD_REQUEST", "A field with that label already exists.");
		expectError(await owner.patch("/realm/profile_fields/99999", { name: "Z" }), 400, "BAD_REQUEST", "Field id 99999 not found.");
		const editor = list.find((f) => f.name === "Editor");
		expectSuccess(await owner.patch(`/realm/profile_fields/${editor.id}`, { field_data: { ...CHOICES, "2": { text: "Nano", order: "3" } } }));
		expect(Object.keys(JSON.parse((await fields()).find((f) => f.id === editor.id).field_data))).toEqual(["0", "1", "2"]);
	});

	test("reordering needs every field exactly once", async () => {
		const ids = (await fields()).map((f) => f.id);
		const reversed = [...ids].reverse();
		expectSuccess(await owner.patch("/realm/profile_fields", { order: reversed }));
		expect((await fields()).map((f) => f.id)).toEqual(reversed);
		expectError(await owner.patch("/realm/profile_fields", { order: reversed.slice(1) }), 400, "BAD_REQUEST", "Invalid order mapping.");
		expectError(await owner.patch("/realm/profile_fields", { order: [...reversed.slice(1), reversed[1]] }), 400, "BAD_REQUEST", "Invalid order mapping.");
		expectError(await owner.patch("/realm/profile_fields", { order: "[1," }), 400, "BAD_REQUEST");
		expect((await fields()).map((f) => f.id)).toEqual(reversed);
		expectSuccess(await owner.patch("/realm/profile_fields", { order: ids }));
	});
});

describe("values", () => {
	const byName = async (name: string) => (await fields()).find((f) => f.name === name);

	test.each([
		["Telephone", "+1 555 0100", "Telephone is too long (limit: 50 characters)", "x".repeat(51)],
		["Biography", "Line one\nLine <two>", "Biography is too long (limit: 500 characters)", "x".repeat(501)],
		["Editor", "1", "'7' is not a valid choice for 'Editor'.", "7"],
		["Birthday", "1990-02-28", "Birthday is not a date", "1990-02-30"],
		["Website", "https://example.com/me", "Website is not a URL", "javascript:alert(1)"],
		["GitHub", "octocat", "GitHub is not a string", 5],
		["Pronouns", "they/them", "Pronouns is too long (limit: 50 characters)", "p".repeat(51)],
	])("%s: a good value is stored, a bad one refused", async (name, good, msg, bad) => {
		const field = await byName(name);
		const target = await app.createUser({});
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: good }] }));
		expect((await profileOf(target.user_id))[field.id].value).toBe(good);
		expectError(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: bad }] }), 400, "BAD_REQUEST", msg);
		expect((await profileOf(target.user_id))[field.id].value).toBe(good);
	});

	test("person picker values are user IDs that exist", async () => {
		const field = await byName("Mentor");
		const target = await app.createUser({});
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: [member.user_id, 1] }] }));
		expect((await profileOf(target.user_id))[field.id].value).toBe(JSON.stringify([member.user_id, 1]));
		expectError(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: [999999] }] }), 400, "BAD_REQUEST", "Invalid user ID");
		expectError(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: "someone" }] }), 400, "BAD_REQUEST", "Mentor is not a list of user IDs");
	});

	test("text values carry escaped rendered HTML", async () => {
		const field = await byName("Biography");
		const target = await app.createUser({});
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: "<script>alert(1)</script>" }] }));
		const v = (await profileOf(target.user_id))[field.id];
		expect(v.rendered_value).not.toContain("<script>");
		expect(v.rendered_value).toContain("&lt;script&gt;");
	});

	test("an empty value clears the field", async () => {
		const field = await byName("Pronouns");
		const target = await app.createUser({});
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: "she/her" }] }));
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: "" }] }));
		expect(await profileOf(target.user_id)).not.toHaveProperty(String(field.id));
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: "they/them" }] }));
		expectSuccess(await owner.patch(`/users/${target.user_id}`, { profile_data: [{ id: field.id, value: null }] }));
		expect(await profileOf(target.user_id)).not.toHaveProperty(String(field.id));
	});

	test("users edit their own values unless the field is not editable by users", async () => {
		const pronouns = await byName("Pronouns");
		expectSuccess(await mc.patch("/users/me/profile_data", { data: [{ id: pronouns.id, value: "he/him" }] }));
		expect((await profileOf(member.user_id))[pronouns.id].value).toBe("he/him");
		expectSuccess(await mc.delete("/users/me/profile_data", { data: [pronouns.id] }));
		expect(await profileOf(member.user_id)).not.toHaveProperty(String(pronouns.id));

		const locked = await create({ name: "Employee ID", field_type: 1, editable_by_user: false });
		expectError(await mc.patch("/users/me/profile_data", { data: [{ id: locked, value: "E-1" }] }), 400, "BAD_REQUEST", /not allowed to change this field/);
		expect(await profileOf(member.user_id)).not.toHaveProperty(String(locked));
		expectError(await mc.patch("/users/me/profile_data", { data: [{ id: 99999, value: "x" }] }), 400, "BAD_REQUEST", "Field id 99999 not found.");
	});

	test("values appear in GET /users, GET /users/me and POST /register", async () => {
		const field = await byName("Telephone");
		expectSuccess(await owner.patch(`/users/${member.user_id}`, { profile_data: [{ id: field.id, value: "+1 555 0199" }] }));
		const list = await mc.get("/users", { include_custom_profile_fields: true });
		expect(list.body.members.find((m: { user_id: number }) => m.user_id === member.user_id).profile_data[field.id].value).toBe("+1 555 0199");
		expect((await mc.get("/users/me")).body.profile_data[field.id].value).toBe("+1 555 0199");
		const reg = await mc.post("/register", { fetch_event_types: ["realm_user", "custom_profile_fields"] });
		expect(reg.body.realm_users.find((u: { user_id: number }) => u.user_id === member.user_id).profile_data[field.id].value).toBe("+1 555 0199");
		expect(reg.body.custom_profile_fields.map((f: { id: number }) => f.id)).toEqual((await fields()).map((f) => f.id));
		expect(reg.body.custom_profile_field_types.SHORT_TEXT).toEqual({ id: 1, name: "Text (short)" });
	});

	test("deleting a field deletes every user's value for it", async () => {
		const field = await byName("Telephone");
		expectSuccess(await owner.delete(`/realm/profile_fields/${field.id}`));
		expect((await fields()).map((f) => f.id)).not.toContain(field.id);
		expect(await profileOf(member.user_id)).not.toHaveProperty(String(field.id));
		expectError(await owner.delete(`/realm/profile_fields/${field.id}`), 400, "BAD_REQUEST", `Field id ${field.id} not found.`);
	});
});
