// POST /register: the always-present keys, each part of the state, and fetch_event_types.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { copyMessage } from "../support/fixtures";

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
	// Zulip 10.1's level, the highest whose changes are all here; the mobile app warns below 371.
	expect(res.body).toMatchObject({ zulip_feature_level: 372, zulip_version: "10.1", zulip_merge_base: "10.1" });
	expect(res.body.realm_users.map((u: { user_id: number }) => u.user_id)).toContain(1);
	// What Zulip's clients require to start (the mobile app, zulip-terminal), each in Zulip's form.
	expect(res.body).toMatchObject({
		recent_private_conversations: expect.any(Array),
		presences: {},
		presence_last_update_id: -1,
		server_timestamp: expect.any(Number),
		realm_wildcard_mention_policy: expect.any(Number),
		realm_emoji: {},
		realm_filters: [],
		realm_linkifiers: [],
		realm_user_groups: expect.any(Array),
		muted_users: [],
		user_topics: expect.any(Array),
		unread_msgs: expect.objectContaining({ count: 0, pms: [], streams: [], huddles: [], mentions: [], old_unreads_missing: false }),
		starred_messages: [],
		max_message_id: -1,
		subscriptions: expect.any(Array),
		unsubscribed: expect.any(Array),
		never_subscribed: expect.any(Array),
		cross_realm_bots: expect.any(Array),
		user_status: {},
		realm_default_stream_groups: [],
		server_jitsi_server_url: "https://meet.jit.si",
		jitsi_server_url: "https://meet.jit.si",
	});
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

describe("recent_private_conversations", () => {
	let alice: Account;
	let bob: Account;
	let carol: Account;
	const as = (a: Account) => client(app.baseUrl, a);
	const recent = async (c: Client) => {
		const res = await c.post("/register", { fetch_event_types: ["recent_private_conversations"] });
		expectSuccess(res);
		expect(Object.keys(res.body).sort()).toEqual([...ALWAYS, "msg", "recent_private_conversations", "result"].sort());
		return res.body.recent_private_conversations;
	};

	beforeAll(async () => {
		alice = await app.createUser({ full_name: "Alice" });
		bob = await app.createUser({ full_name: "Bob" });
		carol = await app.createUser({ full_name: "Carol" });
	});

	test("one entry per conversation: the other participants sorted, the newest message, newest first", async () => {
		expect(await recent(as(alice))).toEqual([]);
		const first = await sendMessage(as(alice), { type: "direct", to: [bob.user_id], content: "hi Bob" });
		const group = await sendMessage(owner, { type: "direct", to: [bob.user_id, alice.user_id], content: "all of us" });
		const self = await sendMessage(as(alice), { type: "direct", to: [alice.user_id], content: "note to self" });
		const reply = await sendMessage(as(bob), { type: "direct", to: [alice.user_id], content: "hi Alice" });
		// Not Alice's: neither a conversation she is not in, nor channel messages.
		await sendMessage(owner, { type: "direct", to: [carol.user_id], content: "just us" });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "recent-room" }], principals: [alice.user_id] }));
		await sendMessage(owner, { type: "channel", to: "recent-room", topic: "t", content: "in a channel" });
		expect(first).toBeLessThan(reply);

		expect(await recent(as(alice))).toEqual([
			{ user_ids: [bob.user_id], max_message_id: reply },
			{ user_ids: [], max_message_id: self },
			{ user_ids: [1, bob.user_id], max_message_id: group },
		]);
		expect(await recent(as(bob))).toEqual([
			{ user_ids: [alice.user_id], max_message_id: reply },
			{ user_ids: [1, alice.user_id], max_message_id: group },
		]);
		expect(await recent(as(carol))).toEqual([{ user_ids: [1], max_message_id: expect.any(Number) }]);
		// Also in the full state, and nothing else is asked for.
		expect((await as(alice).post("/register")).body.recent_private_conversations).toEqual(await recent(as(alice)));
		expect((await as(alice).post("/register", { fetch_event_types: ["message"] })).body).not.toHaveProperty("recent_private_conversations");
	});

	test("as Zulip, only the conversations of the user's 1,000 newest direct messages", async () => {
		const dave = await app.createUser({ full_name: "Dave" });
		const erin = await app.createUser({ full_name: "Erin" });
		const old = await sendMessage(as(dave), { type: "direct", to: [erin.user_id], content: "long ago" });
		// 1,000 notes to self: one sent, 999 copies of it made in the database.
		const note = await sendMessage(as(dave), { type: "direct", to: [dave.user_id], content: "note" });
		expect(await recent(as(dave))).toEqual([
			{ user_ids: [], max_message_id: note },
			{ user_ids: [erin.user_id], max_message_id: old },
		]);
		const last = (await copyMessage(app, note, 999)).at(-1)!;
		expect(await recent(as(dave))).toEqual([{ user_ids: [], max_message_id: last }]);
		expect(await recent(as(erin))).toEqual([{ user_ids: [dave.user_id], max_message_id: old }]);
		// A reply is newer than every copy, and brings the conversation back.
		const reply = await sendMessage(as(erin), { type: "direct", to: [dave.user_id], content: "still there?" });
		expect(reply).toBeGreaterThan(last);
		expect(await recent(as(dave))).toEqual([
			{ user_ids: [erin.user_id], max_message_id: reply },
			{ user_ids: [], max_message_id: last },
		]);
	});
});

test("presence before anyone reports: no presences and no stamp, in Zulip's form", async () => {
	const before = Date.now() / 1000;
	const res = await owner.post("/register", { fetch_event_types: ["presence"] });
	expectSuccess(res);
	expect(Object.keys(res.body).sort()).toEqual([...ALWAYS, "msg", "presence_last_update_id", "presences", "result", "server_timestamp"].sort());
	expect(res.body).toMatchObject({ presences: {}, presence_last_update_id: -1 });
	expect(res.body.server_timestamp).toBeGreaterThanOrEqual(before - 1);
	expect(res.body.server_timestamp).toBeLessThanOrEqual(Date.now() / 1000 + 1);
});

test("features still to come are present in their empty form when asked for", async () => {
	const res = await owner.post("/register", { fetch_event_types: ["default_stream_groups", "stop_words", "scheduled_messages", "onboarding_steps"] });
	expectSuccess(res);
	expect(res.body).toMatchObject({ realm_default_stream_groups: [], stop_words: [], scheduled_messages: [], onboarding_steps: [] });
});

test("video calls: Jitsi Meet with Zulip's default server; the organization's own server wins", async () => {
	const realm = async () => (await owner.post("/register", { fetch_event_types: ["realm"] })).body;
	expect(await realm()).toMatchObject({
		realm_video_chat_provider: 1,
		realm_jitsi_server_url: null,
		server_jitsi_server_url: "https://meet.jit.si",
		jitsi_server_url: "https://meet.jit.si",
	});
	await app.node.broker.call("users.setRealmSetting", { name: "realm_jitsi_server_url", value: "https://video.example.org" });
	try {
		expect(await realm()).toMatchObject({
			realm_jitsi_server_url: "https://video.example.org",
			server_jitsi_server_url: "https://meet.jit.si",
			jitsi_server_url: "https://video.example.org",
		});
	} finally {
		await app.node.broker.call("users.setRealmSetting", { name: "realm_jitsi_server_url", value: null });
	}
});

test("server settings come from the configuration (JITSI_SERVER_URL, WEB_PUBLIC_STREAMS_ENABLED)", async () => {
	const other = await startTestApp({ jitsiServerUrl: "https://jitsi.example.com", webPublicStreams: true });
	try {
		const res = await client(other.baseUrl, other.owner).post("/register", { fetch_event_types: ["realm"] });
		expect(res.body).toMatchObject({ server_jitsi_server_url: "https://jitsi.example.com", jitsi_server_url: "https://jitsi.example.com", server_web_public_streams_enabled: true });
	} finally {
		await other.stop();
	}
	expect((await owner.post("/register", { fetch_event_types: ["realm"] })).body.server_web_public_streams_enabled).toBe(false);
});

test("the deprecated policies Zulip still sends, derived from their group settings", async () => {
	const res = await owner.post("/register", { fetch_event_types: ["realm"] });
	// Defaults: members create public and private channels, owners web-public ones, administrators
	// may mention many users.
	expect(res.body).toMatchObject({
		realm_create_public_stream_policy: 1,
		realm_create_private_stream_policy: 1,
		realm_create_web_public_stream_policy: 7,
		realm_wildcard_mention_policy: 5,
	});
});

test("legacy notification settings: exactly Zulip's list, for clients without user_settings_object", async () => {
	const res = await owner.post("/register", { fetch_event_types: ["update_global_notifications"] });
	expect(Object.keys(res.body).filter((k) => ![...ALWAYS, "msg", "result"].includes(k)).sort()).toEqual(
		[
			"available_notification_sounds",
			"desktop_icon_count_display",
			"email_notifications_batching_period_seconds",
			"enable_desktop_notifications",
			"enable_digest_emails",
			"enable_login_emails",
			"enable_marketing_emails",
			"enable_offline_email_notifications",
			"enable_offline_push_notifications",
			"enable_online_push_notifications",
			"enable_sounds",
			"enable_stream_audible_notifications",
			"enable_stream_desktop_notifications",
			"enable_stream_email_notifications",
			"enable_stream_push_notifications",
			"message_content_in_email_notifications",
			"notification_sound",
			"pm_content_in_desktop_notifications",
			"presence_enabled",
			"realm_name_in_email_notifications_policy",
			"wildcard_mentions_notify",
		].sort(),
	);
	expect(res.body).toMatchObject({ presence_enabled: true, email_notifications_batching_period_seconds: 120, pm_content_in_desktop_notifications: true });
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

test("server_emoji_data_url names a cacheable file of every Unicode emoji's code and names, as the mobile app's picker reads it", async () => {
	const res = await owner.post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
	expectSuccess(res);
	const announced = new URL(res.body.server_emoji_data_url);
	expect(announced.origin).toBe("http://chat.test");
	expect(announced.pathname).toMatch(/^\/static\/generated\/emoji\/emoji_api\.[0-9a-f]{12}\.json$/);

	// Served without credentials, at the announced path of this server.
	const url = new URL(announced.pathname, app.baseUrl).toString();
	const file = await fetch(url);
	expect(file.status).toBe(200);
	expect(file.headers.get("content-type")).toBe("application/json");
	expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
	const data = (await file.json()) as { code_to_names: Record<string, string[]> };
	// ServerEmojiData.fromJson: one property, a map of code to a list of names, canonical first.
	expect(Object.keys(data)).toEqual(["code_to_names"]);
	expect(data.code_to_names["1f44d"]).toEqual(["+1", "thumbs_up", "like"]);
	expect(data.code_to_names["2764"][0]).toBe("heart");
	expect(Object.keys(data.code_to_names).length).toBeGreaterThan(1500);
	for (const [code, names] of Object.entries(data.code_to_names)) {
		expect(code).toMatch(/^[0-9a-f]+(-[0-9a-f]+)*$/);
		expect(names.length).toBeGreaterThan(0);
	}
	// Every name in it is accepted as a reaction under its code.
	const id = await sendMessage(owner, { type: "direct", to: JSON.stringify([app.owner.user_id]), content: "react" });
	const [code, names] = Object.entries(data.code_to_names)[100];
	expectSuccess(await owner.post(`/messages/${id}/reactions`, { emoji_name: names.at(-1), emoji_code: code }));

	// A conditional request with the ETag is answered 304; a name that is not the file, 404.
	const again = await fetch(url, { headers: { "If-None-Match": file.headers.get("etag")! } });
	expect(again.status).toBe(304);
	expect((await fetch(new URL("/static/generated/emoji/emoji_api.json", app.baseUrl))).status).toBe(404);
});
