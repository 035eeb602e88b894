// User status, as Zulip's: POST /users/me/status (text up to 60 characters, the emoji by name or
// by code and type, the deprecated `away` as presence_enabled, each changed only when sent and
// cleared with empty values), GET /users/{user_id}/status, POST /register's user_status and the
// `user_status` event to everyone, with the fields do_update_user_status sends. Every refusal is
// Zulip's error and changes nothing.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { eventQueues } from "../support/events";
import { client, expectError, expectSuccess } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let snaps: Snapshotter;
const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	snaps = await snapshotter(app);
});
afterAll(async () => {
	await snaps.close();
	await app.stop();
});

const setStatus = (a: Account, params: Record<string, unknown>) => as(a).post("/users/me/status", params);
async function setOk(a: Account, params: Record<string, unknown>) {
	expectSuccess(await setStatus(a, params));
}
async function statusOf(viewer: Account, a: Account) {
	const res = await as(viewer).get(`/users/${a.user_id}/status`);
	expectSuccess(res);
	expect(Object.keys(res.body).sort()).toEqual(["msg", "result", "status"]);
	return res.body.status;
}
async function registered(viewer: Account) {
	const res = await as(viewer).post("/register", { fetch_event_types: JSON.stringify(["user_status"]) });
	expectSuccess(res);
	return res.body.user_status as Record<string, unknown>;
}
/** A queue per user, with only these event types. */
const queues = (users: Account[], types = ["user_status"]) => eventQueues(as, users, { register: { fetch_event_types: JSON.stringify([]), event_types: JSON.stringify(types) } });

describe("POST /users/me/status", () => {
	test("text and emoji by name: GET shows them, register lists them by user ID, everyone hears the event", async () => {
		const alice = await app.createUser({ full_name: "Alice" });
		const bob = await app.createUser({ full_name: "Bob" });
		const bot = await app.createUser({ full_name: "Status Bot", is_bot: true, bot_owner_id: bob.user_id });
		const read = await queues([alice, bob, bot]);
		expect(await statusOf(bob, alice)).toEqual({});
		expect(await registered(bob)).not.toHaveProperty(String(alice.user_id));

		await setOk(alice, { status_text: "  out to lunch  ", emoji_name: "car" });
		const status = { status_text: "out to lunch", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" };
		expect(await statusOf(bob, alice)).toEqual(status);
		expect(await statusOf(alice, alice)).toEqual(status);
		expect((await registered(bob))[String(alice.user_id)]).toEqual(status);
		const event = { type: "user_status", user_id: alice.user_id, ...status };
		for (const u of [alice, bob, bot]) expect(await read(u)).toEqual([event]);
		// Bots may read a status.
		expect(await statusOf(bot, alice)).toEqual(status);
	});

	test("only what is sent changes, and the event names only that; empty values clear", async () => {
		const carol = await app.createUser({ full_name: "Carol" });
		const read = await queues([carol]);
		await setOk(carol, { status_text: "on vacation", emoji_name: "thumbs_up" });
		expect(await read(carol)).toEqual([{ type: "user_status", user_id: carol.user_id, status_text: "on vacation", emoji_name: "thumbs_up", emoji_code: "1f44d", reaction_type: "unicode_emoji" }]);

		await setOk(carol, { status_text: "back soon" });
		expect(await read(carol)).toEqual([{ type: "user_status", user_id: carol.user_id, status_text: "back soon" }]);
		expect(await statusOf(carol, carol)).toEqual({ status_text: "back soon", emoji_name: "thumbs_up", emoji_code: "1f44d", reaction_type: "unicode_emoji" });

		// An empty name clears the emoji, whatever code and type come with it.
		await setOk(carol, { emoji_name: "", emoji_code: "1f697", reaction_type: "realm_emoji" });
		expect(await read(carol)).toEqual([{ type: "user_status", user_id: carol.user_id, emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" }]);
		expect(await statusOf(carol, carol)).toEqual({ status_text: "back soon" });

		// An empty (or blank) text clears the text: nothing is left, so register leaves the user out.
		await setOk(carol, { status_text: "   " });
		expect(await read(carol)).toEqual([{ type: "user_status", user_id: carol.user_id, status_text: "" }]);
		expect(await statusOf(carol, carol)).toEqual({});
		expect(await registered(carol)).not.toHaveProperty(String(carol.user_id));

		// An emoji alone is a status too.
		await setOk(carol, { emoji_name: "heart" });
		expect((await registered(carol))[String(carol.user_id)]).toEqual({ emoji_name: "heart", emoji_code: "2764", reaction_type: "unicode_emoji" });
	});

	test("emoji by code and type; the extra emoji `zulip`, with service_extra_emoji taken as its other name", async () => {
		const dan = await app.createUser({ full_name: "Dan" });
		await setOk(dan, { emoji_name: "like", emoji_code: "1f44d", reaction_type: "unicode_emoji" });
		expect(await statusOf(dan, dan)).toEqual({ emoji_name: "like", emoji_code: "1f44d", reaction_type: "unicode_emoji" });
		// A code alone with the name: the type is the name's.
		await setOk(dan, { emoji_name: "+1", emoji_code: "1f44d" });
		expect(await statusOf(dan, dan)).toEqual({ emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" });
		await setOk(dan, { emoji_name: "zulip" });
		expect(await statusOf(dan, dan)).toEqual({ emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" });
		await setOk(dan, { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" });
		expect(await statusOf(dan, dan)).toEqual({ emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" });
	});

	test("status_text: at most 60 characters once trimmed, counted as characters", async () => {
		const erin = await app.createUser({ full_name: "Erin" });
		await setOk(erin, { status_text: "x".repeat(60) });
		await setOk(erin, { status_text: `  ${"é".repeat(59)}😀  ` });
		expect(await statusOf(erin, erin)).toEqual({ status_text: `${"é".repeat(59)}😀` });
		await snaps.refused(() => setStatus(erin, { status_text: "x".repeat(61) }), 400, "BAD_REQUEST", "status_text is too long (limit: 60 characters)");
		await snaps.refused(() => setStatus(erin, { status_text: "😀".repeat(61), emoji_name: "car" }), 400, "BAD_REQUEST", "status_text is too long (limit: 60 characters)");
	});

	test("away sets presence_enabled (away = not presence_enabled), with its user_settings and presence events", async () => {
		const fay = await app.createUser({ full_name: "Fay" });
		const gus = await app.createUser({ full_name: "Gus" });
		const read = await queues([fay, gus], ["user_status", "user_settings", "presence"]);
		await setOk(fay, { away: true });
		const mine = await read(fay);
		expect(mine.filter((e) => e.type === "user_settings")).toEqual([{ type: "user_settings", op: "update", property: "presence_enabled", value: false }]);
		expect(mine.filter((e) => e.type === "user_status")).toEqual([{ type: "user_status", user_id: fay.user_id, away: true }]);
		const theirs = await read(gus);
		expect(theirs.filter((e) => e.type === "user_status")).toEqual([{ type: "user_status", user_id: fay.user_id, away: true }]);
		expect(theirs.some((e) => e.type === "presence")).toBe(true);
		expect(theirs.some((e) => e.type === "user_settings")).toBe(false);

		const settings = await as(fay).post("/register", { fetch_event_types: JSON.stringify(["user_settings"]) });
		expect(settings.body.user_settings.presence_enabled).toBe(false);
		expect(await statusOf(gus, fay)).toEqual({ away: true });
		expect((await registered(gus))[String(fay.user_id)]).toEqual({ away: true });

		await setOk(fay, { away: false, status_text: "here" });
		expect((await read(gus)).filter((e) => e.type === "user_status")).toEqual([{ type: "user_status", user_id: fay.user_id, away: false, status_text: "here" }]);
		expect(await statusOf(gus, fay)).toEqual({ status_text: "here" });

		// Turning presence off in the settings shows as away in a status that exists.
		expectSuccess(await as(fay).patch("/settings", { presence_enabled: false }));
		expect(await statusOf(gus, fay)).toEqual({ away: true, status_text: "here" });
		// Without a status ever set, there is nothing to show, away or not.
		expectSuccess(await as(gus).patch("/settings", { presence_enabled: false }));
		expect(await statusOf(fay, gus)).toEqual({});
		expect(await registered(fay)).not.toHaveProperty(String(gus.user_id));
	});

	test("bad values are refused in Zulip's words and change nothing; bots may not set a status", async () => {
		const hal = await app.createUser({ full_name: "Hal" });
		const bot = await app.createUser({ full_name: "Setter Bot", is_bot: true, bot_owner_id: hal.user_id });
		await setOk(hal, { status_text: "busy", emoji_name: "car" });
		const refused = (params: Record<string, unknown>, msg: string) => snaps.refused(() => setStatus(hal, params), 400, "BAD_REQUEST", msg);
		await refused({}, "Client did not pass any new values.");
		await refused({ emoji_code: "1f697" }, "Client did not pass any new values.");
		await refused({ reaction_type: "unicode_emoji" }, "Client did not pass any new values.");
		await refused({ status_text: "x", emoji_code: "1f697" }, "Client must pass emoji_name if they pass either emoji_code or reaction_type.");
		await refused({ away: false, reaction_type: "unicode_emoji" }, "Client must pass emoji_name if they pass either emoji_code or reaction_type.");
		await refused({ emoji_name: "no_such_emoji" }, "Emoji 'no_such_emoji' does not exist");
		await refused({ emoji_name: "no_such_emoji", emoji_code: "1f697" }, "Emoji 'no_such_emoji' does not exist");
		await refused({ emoji_name: "car", emoji_code: "1f44d", reaction_type: "unicode_emoji" }, "Invalid emoji name.");
		await refused({ emoji_name: "car", emoji_code: "ffffff", reaction_type: "unicode_emoji" }, "Invalid emoji code.");
		await refused({ emoji_name: "car", emoji_code: "1F697", reaction_type: "unicode_emoji" }, "Invalid emoji code.");
		await refused({ emoji_name: "car", reaction_type: "realm_emoji" }, "Invalid custom emoji.");
		await refused({ emoji_name: "car", emoji_code: "1", reaction_type: "realm_emoji" }, "Invalid custom emoji.");
		await refused({ emoji_name: "car", reaction_type: "zulip_extra_emoji" }, "Invalid emoji code.");
		await refused({ emoji_name: "car", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }, "Invalid emoji name.");
		await refused({ emoji_name: "car", reaction_type: "sticker" }, "Invalid emoji type.");
		// A refused emoji refuses the whole request: the text is not changed either.
		await refused({ status_text: "new", emoji_name: "no_such_emoji" }, "Emoji 'no_such_emoji' does not exist");
		await refused({ away: true, emoji_name: "car", emoji_code: "2764" }, "Invalid emoji name.");
		await refused({ away: "maybe" }, "away is not a boolean");
		await refused({ away: "1" }, "away is not a boolean");
		await snaps.refused(() => as(hal).post("/users/me/status", { status_text: 5 }, { json: true }), 400, "BAD_REQUEST", "status_text is not a string");
		await snaps.refused(() => as(hal).post("/users/me/status", { emoji_name: { name: "car" } }, { json: true }), 400, "BAD_REQUEST", "emoji_name is not a string");
		await snaps.refused(() => setStatus(bot, { status_text: "beep" }), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
		// Checked before the parameters are read, as Zulip's human_users_only.
		await snaps.refused(() => setStatus(bot, { away: "maybe", status_text: "x".repeat(61) }), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
		expect(await statusOf(hal, hal)).toEqual({ status_text: "busy", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" });
		// No administrator's route for another user's status at this feature level (Zulip 11.0 added it).
		const other = await as(app.owner).post(`/users/${hal.user_id}/status`, { status_text: "hacked" });
		expectError(other, 405, "METHOD_NOT_ALLOWED", "Method Not Allowed");
		expect(other.headers.get("allow")).toBe("GET");
	});
});

describe("GET /users/{user_id}/status and deactivated users", () => {
	test("unknown users and bots are no such user; deactivated users are refused and left out of register", async () => {
		const ivy = await app.createUser({ full_name: "Ivy" });
		const bot = await app.createUser({ full_name: "Lookup Bot", is_bot: true, bot_owner_id: ivy.user_id });
		const gone = await app.createUser({ full_name: "Gone" });
		await setOk(gone, { status_text: "leaving" });
		expect((await registered(ivy))[String(gone.user_id)]).toEqual({ status_text: "leaving" });
		expectSuccess(await as(app.owner).delete(`/users/${gone.user_id}`));
		const get = (id: string) => as(ivy).get(`/users/${id}/status`);
		expectError(await get("999999"), 400, "BAD_REQUEST", "No such user");
		expectError(await get(String(bot.user_id)), 400, "BAD_REQUEST", "No such user");
		expectError(await get(String(gone.user_id)), 400, "BAD_REQUEST", "User is deactivated");
		expect(await registered(ivy)).not.toHaveProperty(String(gone.user_id));
		// users/me/status takes POST only.
		const me = await get("me");
		expectError(me, 405, "METHOD_NOT_ALLOWED", "Method Not Allowed");
		expect(me.headers.get("allow")).toBe("POST");
	});
});
