// Authentication: HTTP basic auth with email and API key, fetch_api_key, unauthenticated
// endpoints, and deactivated accounts.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

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

	test("a key of the wrong shape is INVALID_API_KEY (malformed)", async () => {
		expectError(await anon.get("/users/me", {}, { auth: { email: member.email, api_key: "short" } }), 401, "INVALID_API_KEY", "Malformed API key");
	});

	test("an unknown key is INVALID_API_KEY", async () => {
		const res = await anon.get("/users/me", {}, { auth: { email: member.email, api_key: "A".repeat(32) } });
		expectError(res, 401, "INVALID_API_KEY", "Invalid API key");
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
	});

	test("a valid key with another user's email is INVALID_API_KEY", async () => {
		expectError(await anon.get("/users/me", {}, { auth: { email: app.owner.email, api_key: member.api_key } }), 401, "INVALID_API_KEY");
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

		expectError(await uc.get("/users/me"), 401, "USER_DEACTIVATED", "Account is deactivated");
		expectError(await anon.post("/fetch_api_key", { username: u.email, password: "bye-bye-pw" }), 401, "USER_DEACTIVATED");

		expectSuccess(await owner.post(`/users/${u.user_id}/reactivate`));
		expectSuccess(await uc.get("/users/me"));
	});
});
