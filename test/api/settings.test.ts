// PATCH /settings (and its older aliases): every personal setting with a good value, a wrong type
// and an out-of-range value; password and email changes; events for other services.
import type { Context } from "moleculer";
import mongoose from "mongoose";
import { sentEmails } from "../support/emails";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { BAD_FULL_NAMES, GOOD_FULL_NAMES } from "../support/full-names";
import { eventQueues } from "../support/events";
import { USER_SETTINGS, type SettingDef } from "../../services/users/settings/user-settings";

let app: TestApp;
let user: Account;
let uc: Client;
const events: Array<{ user_id: number; changes: Record<string, unknown> }> = [];

beforeAll(async () => {
	app = await startTestApp();
	user = await app.createUser({ password: "old-password" });
	uc = client(app.baseUrl, user);
	// Stands in for the services that react to settings (drafts, typing): records what they hear.
	await app.node.broker.createService({
		name: "settings-listener",
		events: {
			"users.settingsChanged"(ctx: Context<{ user_id: number; changes: Record<string, unknown> }>) {
				events.push(ctx.params);
			},
		},
	});
});
afterAll(() => app.stop());

async function settings(c: Client = uc): Promise<Record<string, any>> {
	return (await c.post("/register", { fetch_event_types: ["user_settings"] })).body.user_settings;
}

// The parameters the API description lists for PATCH /settings.
const SPEC_SETTINGS = `twenty_four_hour_time web_mark_read_on_scroll_policy web_channel_default_view starred_message_counts
receives_typing_notifications web_suggest_update_timezone fluid_layout_width high_contrast_mode web_font_size_px
web_line_height_percent color_scheme enable_drafts_synchronization translate_emoticons display_emoji_reaction_users
default_language web_home_view web_escape_navigates_to_home_view left_side_userlist emojiset demote_inactive_streams
user_list_style web_animate_image_previews web_stream_unreads_count_display_policy hide_ai_features
web_left_sidebar_show_channel_folders web_left_sidebar_unreads_count_summary timezone enable_stream_desktop_notifications
enable_stream_email_notifications enable_stream_push_notifications enable_stream_audible_notifications notification_sound
enable_desktop_notifications enable_sounds email_notifications_batching_period_seconds enable_offline_email_notifications
enable_offline_push_notifications enable_online_push_notifications enable_followed_topic_desktop_notifications
enable_followed_topic_email_notifications enable_followed_topic_push_notifications enable_followed_topic_audible_notifications
enable_digest_emails enable_marketing_emails enable_login_emails message_content_in_email_notifications
pm_content_in_desktop_notifications wildcard_mentions_notify enable_followed_topic_wildcard_mentions_notify`.split(/\s+/);

const SPECIAL_GOOD: Record<string, unknown> = { timezone: "Europe/Berlin", default_language: "de" };
const SPECIAL_BAD: Record<string, unknown> = { timezone: "Mars/Olympus_Mons", default_language: "xx" };

function goodValue(name: string, def: SettingDef): unknown {
	if (name in SPECIAL_GOOD) return SPECIAL_GOOD[name];
	if (def.type === "bool") return !def.default;
	if (def.values) return def.values.find((v) => v !== def.default);
	if (def.min !== undefined) return def.min === def.default ? def.max : def.min;
	return def.default;
}

function badValue(name: string, def: SettingDef): unknown {
	if (name in SPECIAL_BAD) return SPECIAL_BAD[name];
	if (def.values) return def.type === "int" ? 99 : "no-such-value";
	if (def.max !== undefined) return def.max + 1;
	return undefined;
}

test("every setting the API describes is accepted", async () => {
	for (const name of SPEC_SETTINGS) expect(Object.keys(USER_SETTINGS)).toContain(name);
});

describe.each(Object.entries(USER_SETTINGS))("%s", (name, def) => {
	test("a good value is stored and shows in POST /register", async () => {
		const value = goodValue(name, def);
		const res = await uc.patch("/settings", { [name]: value });
		expectSuccess(res);
		expect((await settings())[name]).toEqual(value);
	});

	test("a value of the wrong type is refused and nothing changes", async () => {
		const before = (await settings())[name];
		const res = def.type === "string" ? await uc.patch("/settings", { [name]: 12 }, { json: true }) : await uc.patch("/settings", { [name]: "not-a-value" });
		const wording = { bool: "is not a boolean", int: "is not an integer", string: "is not a string" }[def.type];
		expectError(res, 400, "BAD_REQUEST", `${name} ${wording}`);
		expect((await settings())[name]).toEqual(before);
	});

	const bad = badValue(name, def);
	if (bad !== undefined) {
		test("an out-of-range value is refused and nothing changes", async () => {
			const before = (await settings())[name];
			expectError(await uc.patch("/settings", { [name]: bad }), 400, "BAD_REQUEST", def.outOfRange ? def.outOfRange(bad as number) : `Invalid ${name}`);
			expect((await settings())[name]).toEqual(before);
		});
	}
});

describe("reporting and aliases", () => {
	test("an unchanged value and an unknown parameter are listed in ignored_parameters_unsupported", async () => {
		const current = (await settings()).color_scheme;
		const next = current === 2 ? 3 : 2;
		const res = await uc.patch("/settings", { color_scheme: next, high_contrast_mode: (await settings()).high_contrast_mode, bogus: 1 });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported.sort()).toEqual(["bogus", "high_contrast_mode"]);
		expect((await settings()).color_scheme).toBe(next);
	});

	test("PATCH /settings/display and /settings/notifications are aliases", async () => {
		expectSuccess(await uc.patch("/settings/display", { web_font_size_px: 14 }));
		expectSuccess(await uc.patch("/settings/notifications", { enable_sounds: false }));
		const s = await settings();
		expect([s.web_font_size_px, s.enable_sounds]).toEqual([14, false]);
	});

	test("web_channel_default_view 3 (list of topics) is accepted", async () => {
		expectSuccess(await uc.patch("/settings", { web_channel_default_view: 3 }));
		expect((await settings()).web_channel_default_view).toBe(3);
	});

	test("one bad value in a request leaves the good ones unapplied", async () => {
		const before = await settings();
		expectError(await uc.patch("/settings", { enable_sounds: !before.enable_sounds, color_scheme: 42 }), 400, "BAD_REQUEST");
		expect((await settings()).enable_sounds).toBe(before.enable_sounds);
	});

	test("changes are announced on the bus for the services that act on them", async () => {
		await uc.patch("/settings", { enable_drafts_synchronization: true });
		events.length = 0;
		expectSuccess(await uc.patch("/settings", { enable_drafts_synchronization: false }));
		expect(events).toContainEqual({ user_id: user.user_id, changes: { enable_drafts_synchronization: false } });
		expectSuccess(await uc.patch("/settings", { enable_drafts_synchronization: true }));
	});

	test("requires authentication", async () => {
		expectError(await client(app.baseUrl, null).patch("/settings", { enable_sounds: true }), 401, "UNAUTHORIZED");
	});
});

describe("emojiset", () => {
	// Zulip's UserBaseSettings.EMOJISET_CHOICES, in its order.
	const ZULIP_CHOICES = [
		{ key: "google", text: "Google" },
		{ key: "twitter", text: "Twitter" },
		{ key: "text", text: "Plain text" },
		{ key: "google-blob", text: "Google blobs" },
	];

	test("defaults to google, and POST /register lists Zulip's four sets wherever it lists them", async () => {
		const fresh = await app.createUser({});
		const res = await client(app.baseUrl, fresh).post("/register", {
			fetch_event_types: ["user_settings", "update_display_settings", "realm_user_settings_defaults"],
		});
		expectSuccess(res);
		expect(res.body.user_settings.emojiset).toBe("google");
		expect(res.body.user_settings.emojiset_choices).toEqual(ZULIP_CHOICES);
		expect(res.body.emojiset).toBe("google");
		expect(res.body.emojiset_choices).toEqual(ZULIP_CHOICES);
		expect(res.body.realm_user_settings_defaults.emojiset).toBe("google");
		expect(res.body.realm_user_settings_defaults.emojiset_choices).toEqual(ZULIP_CHOICES);
	});

	test.each(["google-blob", "twitter", "text", "google"])("%s is stored and answered", async (value) => {
		expectSuccess(await uc.patch("/settings", { emojiset: value }));
		expect((await settings()).emojiset).toBe(value);
	});

	test("the API description's neutral names are accepted as aliases of google and twitter, and announced as Zulip's", async () => {
		const u = await app.createUser({});
		const c = client(app.baseUrl, u);
		const read = await eventQueues(() => c, [u], { register: { event_types: JSON.stringify(["user_settings"]) } });
		expectSuccess(await c.patch("/settings", { emojiset: "emoji_set_b" }));
		expect((await settings(c)).emojiset).toBe("twitter");
		expect(await read(u)).toEqual([{ type: "user_settings", op: "update", property: "emojiset", value: "twitter" }]);
		// Already the set it stands for: unchanged, as Zulip reports an unchanged value.
		const res = await c.patch("/settings", { emojiset: "twitter" });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported).toEqual(["emojiset"]);
		expectSuccess(await c.patch("/settings", { emojiset: "emoji_set_a" }));
		expect((await settings(c)).emojiset).toBe("google");
		expect(await read(u)).toEqual([{ type: "user_settings", op: "update", property: "emojiset", value: "google" }]);
	});

	test("a neutral name stored before reads as Zulip's value", async () => {
		const u = await app.createUser({});
		const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
		try {
			const users = conn.useDb(`${app.node.config.dbPrefix}_users`).collection("users");
			expect((await users.updateOne({ _id: u.user_id as never }, { $set: { "settings.emojiset": "emoji_set_b" } })).modifiedCount).toBe(1);
		} finally {
			await conn.close();
		}
		const res = await client(app.baseUrl, u).post("/register", { fetch_event_types: ["user_settings", "update_display_settings"] });
		expectSuccess(res);
		expect([res.body.user_settings.emojiset, res.body.emojiset]).toEqual(["twitter", "twitter"]);
	});

	test("an unknown set is refused and nothing changes", async () => {
		const before = (await settings()).emojiset;
		expectError(await uc.patch("/settings", { emojiset: "apple" }), 400, "BAD_REQUEST", "Invalid emojiset");
		expect((await settings()).emojiset).toBe(before);
	});
});

describe("full_name", () => {
	test("changes the caller's name; bad names are refused", async () => {
		expectSuccess(await uc.patch("/settings", { full_name: "New Me" }));
		expect((await uc.get("/users/me")).body.full_name).toBe("New Me");
		expectError(await uc.patch("/settings", { full_name: "a*b" }), 400, "BAD_REQUEST", "Invalid characters in name!");
		expect((await uc.get("/users/me")).body.full_name).toBe("New Me");
	});

	test.each(BAD_FULL_NAMES)("%j is refused (Zulip's check_full_name) and the name stays", async (name, msg) => {
		const u = await app.createUser({ full_name: "Kept Name" });
		const c = client(app.baseUrl, u);
		expectError(await c.patch("/settings", { full_name: name }), 400, "BAD_REQUEST", msg);
		expect((await c.get("/users/me")).body.full_name).toBe("Kept Name");
	});

	test.each(GOOD_FULL_NAMES)("%j is accepted and stored trimmed", async (name, stored) => {
		const u = await app.createUser({ full_name: "Old Name" });
		const c = client(app.baseUrl, u);
		expectSuccess(await c.patch("/settings", { full_name: name }));
		expect((await c.get("/users/me")).body.full_name).toBe(stored);
	});

	test("a full_name that is not a string is refused", async () => {
		const u = await app.createUser({ full_name: "Typed Name" });
		const c = client(app.baseUrl, u);
		expectError(await c.patch("/settings", { full_name: 12 }, { json: true }), 400, "BAD_REQUEST", "full_name is not a string");
		expect((await c.get("/users/me")).body.full_name).toBe("Typed Name");
	});

	test("with realm_require_unique_names, another user's name (in any case or width) is refused", async () => {
		const taken = await app.createUser({ full_name: "Unique Person" });
		const u = await app.createUser({ full_name: "Wants Rename" });
		const c = client(app.baseUrl, u);
		await app.node.broker.call("users.setRealmSetting", { name: "realm_require_unique_names", value: true });
		try {
			for (const name of ["Unique Person", "unique PERSON", "Ｕｎｉｑｕｅ Ｐｅｒｓｏｎ"]) {
				expectError(await c.patch("/settings", { full_name: name }), 400, "BAD_REQUEST", "Unique names required in this organization.");
			}
			expect((await c.get("/users/me")).body.full_name).toBe("Wants Rename");
			// One's own name, in another case, is not someone else's.
			expectSuccess(await c.patch("/settings", { full_name: "WANTS RENAME" }));
			expect((await c.get("/users/me")).body.full_name).toBe("WANTS RENAME");
			expect((await client(app.baseUrl, taken).get("/users/me")).body.full_name).toBe("Unique Person");
		} finally {
			await app.node.broker.call("users.setRealmSetting", { name: "realm_require_unique_names", value: false });
		}
		expectSuccess(await c.patch("/settings", { full_name: "Unique Person" }));
	});
});

describe("password", () => {
	test("new_password needs the right old_password", async () => {
		const u = await app.createUser({ password: "first-password" });
		const c = client(app.baseUrl, u);
		expectError(await c.patch("/settings", { new_password: "second-password" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'old_password' argument");
		expectError(await c.patch("/settings", { old_password: "first-password" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'new_password' argument");
		expectError(await c.patch("/settings", { old_password: "wrong-password", new_password: "second-password" }), 400, "BAD_REQUEST", "Wrong password!");
		expectError(await c.patch("/settings", { old_password: "first-password", new_password: "x" }), 400, "BAD_REQUEST", "The password is too weak.");
		const anon = client(app.baseUrl, null);
		expectSuccess(await anon.post("/fetch_api_key", { username: u.email, password: "first-password" }));

		expectSuccess(await c.patch("/settings", { old_password: "first-password", new_password: "second-password" }));
		expectError(await anon.post("/fetch_api_key", { username: u.email, password: "first-password" }), 401, "AUTHENTICATION_FAILED");
		expectSuccess(await anon.post("/fetch_api_key", { username: u.email, password: "second-password" }));
	});
});

describe("email", () => {
	function lastEmailTo(to: string): string {
		const mine = sentEmails(app.dataDir, to);
		expect(mine.length).toBeGreaterThan(0);
		return mine[mine.length - 1].body;
	}

	test("sends a confirmation link to the new address; opening it makes the change", async () => {
		const u = await app.createUser({});
		const c = client(app.baseUrl, u);
		expectSuccess(await c.patch("/settings", { email: "confirmed@chat.test" }));
		// Nothing changes until the link is opened.
		expect((await c.get("/users/me")).body.delivery_email).toBe(u.email);

		const mail = lastEmailTo("confirmed@chat.test");
		const link = /http:\/\/chat\.test(\/accounts\/confirm_new_email\/\w+)/.exec(mail)![1];
		const origin = new URL(app.baseUrl).origin;
		const page = await fetch(origin + link);
		expect(page.status).toBe(200);
		expect(page.headers.get("content-type")).toMatch(/text\/html/);
		expect(await page.text()).toContain("confirmed@chat.test");

		const after = client(app.baseUrl, { email: "confirmed@chat.test", api_key: u.api_key });
		expect((await after.get("/users/me")).body.delivery_email).toBe("confirmed@chat.test");

		// The link works once.
		const again = await fetch(origin + link);
		expect(again.status).toBe(404);
	});

	test("an address in use or malformed is refused at once, and no link is sent", async () => {
		const u = await app.createUser({});
		const c = client(app.baseUrl, u);
		expectError(await c.patch("/settings", { email: app.owner.email }), 400, "BAD_REQUEST", `Email '${app.owner.email}' already in use`);
		expectError(await c.patch("/settings", { email: "nope" }), 400, "BAD_REQUEST", /Invalid email/);
	});

	test("a made-up confirmation key changes nothing", async () => {
		const res = await fetch(`${new URL(app.baseUrl).origin}/accounts/confirm_new_email/${"Z".repeat(32)}`);
		expect(res.status).toBe(404);
	});

	test("the current address is reported as unchanged", async () => {
		const res = await uc.patch("/settings", { email: user.email.toUpperCase() });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported).toEqual(["email"]);
	});
});
