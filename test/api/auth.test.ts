// Authentication: HTTP basic auth with email and API key, fetch_api_key, unauthenticated
// endpoints, and deactivated accounts.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import mongoose from "mongoose";
import { realmModel } from "../../services/users/models/realm";

let app: TestApp;
let anon: Client;
let member: Account;

beforeAll(async () => {
	app = await startTestApp();
	anon = client(app.baseUrl, null);
	member = await app.createUser({ role: 400, password: "member-pass" });
});
afterAll(() => app.stop());

describe("basic auth", () => {
	test("missing credentials: 401 UNAUTHORIZED with WWW-Authenticate", async () => {
		const res = await anon.get("/users/me");
		expectError(res, 401, "UNAUTHORIZED", "Missing authorization header for basic auth");
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
	});

	test("a scheme other than Basic is a 400", async () => {
		expectError(await anon.get("/users/me", {}, { auth: "Bearer abc" }), 400, "BAD_REQUEST", "This endpoint requires HTTP basic authentication.");
	});

	test("an undecodable basic header is a 401", async () => {
		const res = await anon.get("/users/me", {}, { auth: `Basic ${Buffer.from("no-colon-here").toString("base64")}` });
		expectError(res, 401, "UNAUTHORIZED", "Invalid authorization header for basic auth");
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
	});

	// As Zulip's authenticated_rest_api_view: every refusal of the credentials is 401 UNAUTHORIZED
	// with the reason as the message.
	test("a key of the wrong shape is UNAUTHORIZED: Malformed API key", async () => {
		const res = await anon.get("/users/me", {}, { auth: { email: member.email, api_key: "short" } });
		expectError(res, 401, "UNAUTHORIZED", "Malformed API key");
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
	});

	test("an unknown key is UNAUTHORIZED: Invalid API key", async () => {
		const res = await anon.get("/users/me", {}, { auth: { email: member.email, api_key: "A".repeat(32) } });
		expectError(res, 401, "UNAUTHORIZED", "Invalid API key");
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
	});

	test("a valid key with another user's email is UNAUTHORIZED: Invalid API key", async () => {
		expectError(await anon.get("/users/me", {}, { auth: { email: app.owner.email, api_key: member.api_key } }), 401, "UNAUTHORIZED", "Invalid API key");
	});

	test("a refused request changes nothing", async () => {
		const before = (await client(app.baseUrl, member).get("/users/me")).body.full_name;
		const bad = { email: member.email, api_key: "Z".repeat(32) };
		expectError(await anon.patch("/settings", { full_name: "Not Applied" }, { auth: bad }), 401, "UNAUTHORIZED", "Invalid API key");
		expectError(await anon.patch("/settings", { full_name: "Not Applied" }), 401, "UNAUTHORIZED", "Missing authorization header for basic auth");
		expect((await client(app.baseUrl, member).get("/users/me")).body.full_name).toBe(before);
	});

	test("the email is matched without regard to case", async () => {
		const res = await anon.get("/users/me", {}, { auth: { email: member.email.toUpperCase(), api_key: member.api_key } });
		expectSuccess(res);
		expect(res.body.user_id).toBe(member.user_id);
	});

	test("the placeholder API email of a user with a hidden address authenticates too", async () => {
		const hidden = await app.createUser({ email_address_visibility: 4 });
		const res = await anon.get("/users/me", {}, { auth: { email: `user${hidden.user_id}@chat.test`, api_key: hidden.api_key } });
		expectSuccess(res);
		expect(res.body.email).toBe(`user${hidden.user_id}@chat.test`);
		expect(res.body.delivery_email).toBe(hidden.email);
	});
});

describe("unauthenticated endpoints", () => {
	test("GET /server_settings needs no credentials", async () => {
		const res = await anon.get("/server_settings");
		expectSuccess(res);
		expect(res.body).toMatchObject({
			zulip_feature_level: expect.any(Number),
			zulip_version: expect.any(String),
			zulip_merge_base: expect.any(String),
			push_notifications_enabled: false,
			is_incompatible: false,
			email_auth_enabled: true,
			require_email_format_usernames: true,
			realm_uri: "http://chat.test",
			realm_name: expect.any(String),
			authentication_methods: expect.objectContaining({ password: true, email: true }),
			external_authentication_methods: [],
			max_file_upload_size_mib: 25,
		});
		expect(res.body.zulip_feature_level).toBeGreaterThanOrEqual(370);
	});

	test("POST /fetch_api_key returns the key for the right password", async () => {
		const res = await anon.post("/fetch_api_key", { username: member.email, password: "member-pass" });
		expectSuccess(res);
		expect(res.body).toMatchObject({ api_key: member.api_key, email: member.email, user_id: member.user_id });
	});

	test("POST /fetch_api_key: wrong password, unknown user and missing fields", async () => {
		expectError(await anon.post("/fetch_api_key", { username: member.email, password: "nope-nope" }), 401, "AUTHENTICATION_FAILED");
		expectError(await anon.post("/fetch_api_key", { username: "ghost@chat.test", password: "member-pass" }), 401, "AUTHENTICATION_FAILED");
		const missing = await anon.post("/fetch_api_key", { username: member.email });
		expectError(missing, 400, "REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
		expect(missing.body.var_name).toBe("password");
		expectError(await anon.post("/fetch_api_key", { password: "x" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'username' argument");
	});
});

describe("deactivated accounts", () => {
	test("a deactivated user's key stops working at once, and works again after reactivation", async () => {
		const u = await app.createUser({ password: "bye-bye-pw" });
		const uc = client(app.baseUrl, u);
		expectSuccess(await uc.get("/users/me")); // now cached by the gateway
		const owner = client(app.baseUrl, app.owner);
		expectSuccess(await owner.delete(`/users/${u.user_id}`));

		const res = await uc.get("/users/me");
		expectError(res, 401, "UNAUTHORIZED", "Account is deactivated");
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
		// fetch_api_key is not basic auth: Zulip names the reason in the code there.
		expectError(await anon.post("/fetch_api_key", { username: u.email, password: "bye-bye-pw" }), 401, "USER_DEACTIVATED", "Account is deactivated");
		expectError(await anon.post("/fetch_api_key", { username: u.email, password: "wrong-pw-1" }), 401, "AUTHENTICATION_FAILED", "Your username or password is incorrect");

		expectSuccess(await owner.post(`/users/${u.user_id}/reactivate`));
		expectSuccess(await uc.get("/users/me"));
	});

	test("in a deactivated organization, keys are UNAUTHORIZED: This organization has been deactivated", async () => {
		const u = await app.createUser({ password: "realm-gone-pw" });
		// No endpoint deactivates an organization: set the flag in the store (on a connection of the
		// test's own, outside the query log) and have the users service reload its organization
		// (any setting change does).
		const conn = await mongoose.createConnection(app.node.config.mongoUrl, { dbName: `${app.node.config.dbPrefix}_users` }).asPromise();
		const Realm = realmModel(conn);
		const reload = () => app.node.broker.call("users.setRealmSetting", { name: "realm_require_unique_names", value: false });
		try {
			await Realm.updateMany({}, { $set: { deactivated: true } });
			await reload();
			expectError(await client(app.baseUrl, u).get("/users/me"), 401, "UNAUTHORIZED", "This organization has been deactivated");
			expectError(await anon.post("/fetch_api_key", { username: u.email, password: "realm-gone-pw" }), 401, "REALM_DEACTIVATED", "This organization has been deactivated");
		} finally {
			await Realm.updateMany({}, { $set: { deactivated: false } });
			await reload();
			await conn.close();
		}
		expectSuccess(await client(app.baseUrl, u).get("/users/me"));
	});
});
