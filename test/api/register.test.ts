// POST /register: the always-present keys, each part of the state, and fetch_event_types.
import { startTestApp, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
});
afterAll(() => app.stop());

const ALWAYS = ["queue_id", "last_event_id", "zulip_version", "zulip_feature_level", "zulip_merge_base"];

test("with no filter, every part of the state is present", async () => {
	const res = await owner.post("/register");
	expectSuccess(res);
	expect(res.body).toMatchObject({
		zulip_feature_level: expect.any(Number),
		zulip_version: expect.any(String),
		last_event_id: -1,
		max_message_length: 10000,
		max_topic_length: 60,
		max_stream_name_length: 60,
		max_stream_description_length: 1024,
		realm_empty_topic_display_name: expect.any(String),
		realm_name: expect.any(String),
		realm_uri: "http://chat.test",
		realm_bot_domain: "chat.test",
		user_id: 1,
		is_owner: true,
		is_admin: true,
		realm_users: expect.any(Array),
		realm_non_active_users: [],
		user_settings: expect.objectContaining({ receives_typing_notifications: true, enable_drafts_synchronization: true, web_home_view: expect.any(String) }),
		realm_user_settings_defaults: expect.any(Object),
		custom_profile_fields: [],
		realm_bots: [],
	});
	expect(res.body.zulip_feature_level).toBeGreaterThanOrEqual(370);
	expect(res.body.realm_users.map((u: { user_id: number }) => u.user_id)).toContain(1);
});

test("fetch_event_types limits the state to the parts named", async () => {
	const res = await owner.post("/register", { fetch_event_types: ["realm_user"] });
	expectSuccess(res);
	expect(res.body.realm_users).toEqual(expect.any(Array));
	expect(res.body).not.toHaveProperty("max_message_length");
	expect(res.body).not.toHaveProperty("user_settings");
	for (const k of ALWAYS) expect(res.body).toHaveProperty(k);

	const realmOnly = await owner.post("/register", { fetch_event_types: ["realm"] });
	expect(realmOnly.body.max_message_length).toBe(10000);
	expect(realmOnly.body).not.toHaveProperty("realm_users");

	const none = await owner.post("/register", { fetch_event_types: [] });
	expect(Object.keys(none.body).sort()).toEqual([...ALWAYS, "msg", "result"].sort());
});

test("event_types stands in for fetch_event_types when that is absent", async () => {
	const res = await owner.post("/register", { event_types: ["user_settings"] });
	expect(res.body.user_settings).toEqual(expect.any(Object));
	expect(res.body).not.toHaveProperty("realm_users");
});

test("legacy settings keys appear only for clients without user_settings_object", async () => {
	const legacy = await owner.post("/register", { fetch_event_types: ["update_display_settings"] });
	expect(legacy.body).toHaveProperty("twenty_four_hour_time", false);
	const modern = await owner.post("/register", {
		fetch_event_types: ["update_display_settings", "user_settings"],
		client_capabilities: { user_settings_object: true },
	});
	expect(modern.body).not.toHaveProperty("twenty_four_hour_time");
	expect(modern.body.user_settings.twenty_four_hour_time).toBe(false);
});

test("user_avatar_url_field_optional drops avatar_url from realm_users", async () => {
	const res = await owner.post("/register", {
		fetch_event_types: ["realm_user"],
		client_capabilities: { user_avatar_url_field_optional: true },
		client_gravatar: false,
	});
	expect(res.body.realm_users[0]).not.toHaveProperty("avatar_url");
});

test("realm_bots: administrators see every bot, others their own", async () => {
	const member = await app.createUser({});
	const bot = await app.createUser({ is_bot: true, bot_owner_id: member.user_id, password: undefined });
	const mine = await client(app.baseUrl, member).post("/register", { fetch_event_types: ["realm_bot"] });
	expect(mine.body.realm_bots.map((b: { user_id: number }) => b.user_id)).toEqual([bot.user_id]);
	const other = await app.createUser({});
	const theirs = await client(app.baseUrl, other).post("/register", { fetch_event_types: ["realm_bot"] });
	expect(theirs.body.realm_bots).toEqual([]);
	const adminView = await owner.post("/register", { fetch_event_types: ["realm_bot"] });
	expect(adminView.body.realm_bots.map((b: { user_id: number }) => b.user_id)).toContain(bot.user_id);
});

test("bad parameters are named", async () => {
	expectError(await owner.post("/register", { client_gravatar: "nope" }), 400, "BAD_REQUEST", "client_gravatar is not a boolean");
	expectError(await owner.post("/register", { client_capabilities: "{bad" }), 400, "BAD_REQUEST", 'Argument "client_capabilities" is not valid JSON.');
	expectError(await owner.post("/register", { client_capabilities: [1] }), 400, "BAD_REQUEST");
	expectError(await owner.post("/register", { event_types: "x" }), 400, "BAD_REQUEST");
});

test("requires authentication", async () => {
	expectError(await client(app.baseUrl, null).post("/register"), 401, "UNAUTHORIZED");
});
