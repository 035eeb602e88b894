// Presence, as Zulip's: POST /users/me/presence (a report every minute, answered with everyone's
// presence in the legacy or the modern form, last_update_id, history_limit_days, ping_only),
// GET /users/{user_id_or_email}/presence, GET /realm/presence, POST /register's presences, the
// `presence` event (legacy, or modern for simplified_presence_events queues) only when Zulip sends
// one, invisible mode (presence_enabled), bots and deactivated users. Every refusal changes nothing.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { eventQueues } from "../support/events";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { clock } from "../../shared/clock";

let app: TestApp;
let snaps: Snapshotter;
let owner: Client;
const as = (a: Account) => client(app.baseUrl, a);
const now = () => Math.floor(clock.nowMs() / 1000);
/** A timestamp within a second of `t` (a second may turn between a request and its check). */
const near = (t: number): any => ({ asymmetricMatch: (v: unknown) => typeof v === "number" && Math.abs(v - t) <= 1, toAsymmetricMatcher: () => `near ${t}` });

beforeAll(async () => {
	app = await startTestApp();
	snaps = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
});
afterAll(async () => {
	clock.reset();
	await snaps.close();
	await app.stop();
});

const report = (a: Account, params: Record<string, unknown> = {}) => as(a).post("/users/me/presence", { status: "active", ...params });

async function reportOk(a: Account, params: Record<string, unknown> = {}) {
	const res = await report(a, params);
	expectSuccess(res);
	return res.body;
}

/** An answer with no presence in it, and this stamp. */
function expectNone(body: Record<string, unknown>, stamp: number) {
	expect({ presences: body.presences, presence_last_update_id: body.presence_last_update_id }).toEqual({ presences: {}, presence_last_update_id: stamp });
}

/** A queue per user, read without blocking; only `presence` events. */
const queues = (users: Account[], register: Record<string, unknown> = {}) => eventQueues(as, users, { register: { fetch_event_types: JSON.stringify([]), ...register }, keep: (e) => e.type === "presence" });

describe("POST /users/me/presence", () => {
	test("legacy answer: everyone's presence by API email, aggregated and website, with the newest stamp", async () => {
		const alice = await app.createUser({ full_name: "Alice" });
		const hidden = await app.createUser({ full_name: "Hidden Address", email_address_visibility: 4 });
		await reportOk(hidden, { status: "idle" });
		const body = await reportOk(alice);
		expect(Object.keys(body).sort()).toEqual(["msg", "presence_last_update_id", "presences", "result", "server_timestamp"]);
		expect(body.server_timestamp).toBeCloseTo(clock.nowMs() / 1000, -1);
		const t = now();
		expect(body.presences[alice.email]).toEqual({
			aggregated: { client: "website", status: "active", timestamp: expect.any(Number) },
			website: { client: "website", status: "active", timestamp: expect.any(Number), pushable: false },
		});
		expect(Math.abs(body.presences[alice.email].aggregated.timestamp - t)).toBeLessThanOrEqual(2);
		// Keyed by the API email: a hidden address shows as the placeholder.
		expect(body.presences[hidden.email]).toBeUndefined();
		expect(body.presences[`user${hidden.user_id}@chat.test`]).toMatchObject({ aggregated: { client: "website" } });
		expect(body.presence_last_update_id).toBeGreaterThanOrEqual(2);
	});

	test("modern answer with last_update_id: by user ID, only what changed after it, the stamp echoed when nothing did", async () => {
		const bob = await app.createUser({ full_name: "Bob" });
		const carol = await app.createUser({ full_name: "Carol" });
		await reportOk(carol, { status: "idle" });
		const first = await reportOk(bob, { last_update_id: -1 });
		expect(first.presences[String(bob.user_id)]).toEqual({ active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) });
		const carolNow = first.presences[String(carol.user_id)];
		const joined = (await owner.get(`/users/${carol.user_id}`)).body.user.date_joined;
		// Never active: the active timestamp reads as the day the user joined, as Zulip's.
		expect(carolNow.active_timestamp).toBe(Math.floor(Date.parse(joined) / 1000));
		const stamp = first.presence_last_update_id;

		// Nothing new since: nothing sent, the client's stamp back (Bob's own report changed nothing within a minute).
		const again = await reportOk(bob, { last_update_id: stamp });
		expectNone(again, stamp);

		clock.advance(60_000);
		const later = await reportOk(carol, { status: "active", last_update_id: stamp });
		expect(Object.keys(later.presences)).toEqual([String(carol.user_id)]);
		expect(later.presence_last_update_id).toBe(stamp + 1);
		expect(later.presences[String(carol.user_id)].active_timestamp).toEqual(near(now()));
	});

	test("slim_presence alone gives the modern form; ping_only answers nothing but success", async () => {
		const dan = await app.createUser({ full_name: "Dan" });
		const slim = await reportOk(dan, { slim_presence: true });
		expect(slim.presences[String(dan.user_id)]).toEqual({ active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) });
		expect(slim).toHaveProperty("presence_last_update_id");
		const ping = await reportOk(dan, { ping_only: true, new_user_input: true });
		expect(Object.keys(ping).sort()).toEqual(["msg", "result"]);
	});

	test("reports change the stored times at most once in 55 seconds, and idle keeps the last active time", async () => {
		const erin = await app.createUser({ full_name: "Erin" });
		const first = await reportOk(erin, { last_update_id: -1 });
		const stamp = first.presence_last_update_id;
		const at = first.presences[String(erin.user_id)];
		clock.advance(30_000);
		expectNone(await reportOk(erin, { last_update_id: stamp }), stamp);
		clock.advance(70_000);
		const idle = await reportOk(erin, { status: "idle", last_update_id: stamp });
		expect(idle.presences[String(erin.user_id)]).toEqual({ active_timestamp: at.active_timestamp, idle_timestamp: at.idle_timestamp + 100 });
		// 100 s idle after the last active report: the legacy form says idle, as of the last connection.
		const legacy = (await reportOk(erin, { status: "idle" })).presences[erin.email];
		expect(legacy.aggregated).toEqual({ client: "website", status: "idle", timestamp: at.idle_timestamp + 100 });
	});

	test("history_limit_days: 0 gives none; presence older than the limit (two weeks unless said) is left out", async () => {
		const fred = await app.createUser({ full_name: "Fred" });
		const gina = await app.createUser({ full_name: "Gina" });
		await reportOk(fred);
		expectNone(await reportOk(gina, { history_limit_days: 0 }), -1);
		expectNone(await reportOk(gina, { history_limit_days: 0, last_update_id: 7 }), 7);
		clock.advance(3 * 86_400_000);
		expect((await reportOk(gina, { history_limit_days: 2 })).presences[fred.email]).toBeUndefined();
		expect((await reportOk(gina, { history_limit_days: 4 })).presences[fred.email]).toBeDefined();
		expect((await reportOk(gina)).presences[fred.email]).toBeDefined();
		// Beyond any date, either way: no error.
		expect((await reportOk(gina, { history_limit_days: 10 ** 15 })).presences[fred.email]).toBeDefined();
		expect((await reportOk(gina, { history_limit_days: -(10 ** 15) })).presences).toEqual({});
		clock.advance(12 * 86_400_000);
		expect((await reportOk(gina)).presences[fred.email]).toBeUndefined();
		// A client that has a stamp gets every later change, however old the others are.
		expect((await reportOk(gina, { last_update_id: 1 })).presences[String(fred.user_id)]).toBeDefined();
	});

	test("bad values are refused in Zulip's words and change nothing; bots may not report", async () => {
		const hal = await app.createUser({ full_name: "Hal" });
		const bot = await app.createUser({ full_name: "Reporter Bot", is_bot: true, bot_owner_id: hal.user_id });
		await snaps.refused(() => report(hal, { status: "away" }), 400, "BAD_REQUEST", "Invalid status: away");
		await snaps.refused(() => report(hal, { status: "Active" }), 400, "BAD_REQUEST", "Invalid status: Active");
		await snaps.refused(() => report(hal, { status: "" }), 400, "BAD_REQUEST", "Invalid status: ");
		await snaps.refused(() => as(hal).post("/users/me/presence", {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'status' argument");
		await snaps.refused(() => report(hal, { ping_only: "maybe" }), 400, "BAD_REQUEST", "ping_only is not a boolean");
		await snaps.refused(() => report(hal, { new_user_input: "1" }), 400, "BAD_REQUEST", "new_user_input is not a boolean");
		await snaps.refused(() => report(hal, { slim_presence: "yes" }), 400, "BAD_REQUEST", "slim_presence is not a boolean");
		await snaps.refused(() => report(hal, { last_update_id: "latest" }), 400, "BAD_REQUEST", "last_update_id is not an integer");
		await snaps.refused(() => report(hal, { history_limit_days: "1.5" }), 400, "BAD_REQUEST", "history_limit_days is not an integer");
		await snaps.refused(() => report(bot), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
		expectError(await as(hal).get(`/users/${hal.user_id}/presence`), 400, "BAD_REQUEST", `No presence data for ${hal.user_id}`);
	});
});

describe("GET /users/{user_id_or_email}/presence and GET /realm/presence", () => {
	test("one user's presence by ID or email, legacy (offline when stale) or slim", async () => {
		const ivy = await app.createUser({ full_name: "Ivy" });
		const viewer = await app.createUser({ full_name: "Viewer" });
		const t = (await reportOk(ivy)).presences[ivy.email].aggregated.timestamp;
		expect(t).toEqual(near(now()));
		for (const named of [String(ivy.user_id), ivy.email, ivy.email.toUpperCase(), ` +${ivy.user_id}`]) {
			const res = await as(viewer).get(`/users/${encodeURIComponent(named)}/presence`);
			expectSuccess(res);
			expect(Object.keys(res.body).sort()).toEqual(["msg", "presence", "result"]);
			expect(res.body.presence).toEqual({ aggregated: { status: "active", timestamp: t }, website: { status: "active", timestamp: t } });
		}
		const slim = await as(viewer).get(`/users/${ivy.user_id}/presence`, { slim_presence: true });
		expect(slim.body.presence).toEqual({ active_timestamp: t, idle_timestamp: t });
		clock.advance(201_000);
		const stale = await as(viewer).get(`/users/${ivy.user_id}/presence`);
		expect(stale.body.presence).toEqual({ aggregated: { status: "offline", timestamp: t }, website: { status: "active", timestamp: t } });
	});

	test("no such user, bots, deactivated users and users without presence, in Zulip's words", async () => {
		const jay = await app.createUser({ full_name: "Jay" });
		const bot = await app.createUser({ full_name: "Lookup Bot", is_bot: true, bot_owner_id: jay.user_id });
		const gone = await app.createUser({ full_name: "Gone" });
		await reportOk(gone);
		expectSuccess(await owner.delete(`/users/${gone.user_id}`));
		const get = (named: string) => as(jay).get(`/users/${encodeURIComponent(named)}/presence`);
		expectError(await get("999999"), 400, "BAD_REQUEST", "No such user");
		expectError(await get("99999999999999999999999"), 400, "BAD_REQUEST", "No such user");
		expectError(await get("nobody@chat.test"), 400, "BAD_REQUEST", "No such user");
		// users/me/presence (POST only) comes first in Zulip's urls.py: a 405, not a lookup of "me".
		const me = await get("me");
		expectError(me, 405, "METHOD_NOT_ALLOWED", "Method Not Allowed");
		expect(me.headers.get("allow")).toBe("POST");
		expectError(await get(String(gone.user_id)), 400, "BAD_REQUEST", "No such user");
		expectError(await get(gone.email), 400, "BAD_REQUEST", "No such user");
		expectError(await get(String(bot.user_id)), 400, "BAD_REQUEST", "Presence is not supported for bot users.");
		expectError(await get(jay.email), 400, "BAD_REQUEST", `No presence data for ${jay.email}`);
		expectError(await as(jay).get(`/users/${jay.user_id}/presence`, { slim_presence: "no" }), 400, "BAD_REQUEST", "slim_presence is not a boolean");
	});

	test("the organization's presence: legacy, without a stamp, active humans only; bots may read it", async () => {
		const kim = await app.createUser({ full_name: "Kim" });
		const leaving = await app.createUser({ full_name: "Leaving" });
		const bot = await app.createUser({ full_name: "Reader Bot", is_bot: true, bot_owner_id: kim.user_id });
		await reportOk(kim);
		await reportOk(leaving);
		const before = await as(bot).get("/realm/presence");
		expectSuccess(before);
		expect(Object.keys(before.body).sort()).toEqual(["msg", "presences", "result", "server_timestamp"]);
		expect(before.body.presences[kim.email]).toMatchObject({ aggregated: { client: "website", status: "active" }, website: { pushable: false } });
		expect(before.body.presences[leaving.email]).toBeDefined();
		expectSuccess(await owner.delete(`/users/${leaving.user_id}`));
		const after = await as(kim).get("/realm/presence");
		expect(after.body.presences[leaving.email]).toBeUndefined();
		expect(after.body.presences[bot.email]).toBeUndefined();
		// Reactivated, the user's presence is back, as in Zulip.
		expectSuccess(await owner.post(`/users/${leaving.user_id}/reactivate`));
		expect((await as(kim).get("/realm/presence")).body.presences[leaving.email]).toBeDefined();
	});
});

describe("the presence event", () => {
	test("to every active user (bots too) when a user first reports and when back after being away; legacy or modern per queue", async () => {
		const mia = await app.createUser({ full_name: "Mia" });
		const ned = await app.createUser({ full_name: "Ned" });
		const bot = await app.createUser({ full_name: "Listening Bot", is_bot: true, bot_owner_id: ned.user_id });
		const read = await queues([mia, ned, bot]);
		const modern = await queues([ned], { client_capabilities: JSON.stringify({ simplified_presence_events: true }) });
		const messagesOnly = await queues([ned], { event_types: JSON.stringify(["message"]) });

		const t = (await reportOk(mia)).presences[mia.email].aggregated.timestamp;
		const legacy = { type: "presence", user_id: mia.user_id, email: mia.email, server_timestamp: expect.any(Number), presence: { website: { client: "website", status: "active", timestamp: t, pushable: false } } };
		for (const u of [mia, ned, bot]) expect(await read(u)).toEqual([legacy]);
		expect(await modern(ned)).toEqual([{ type: "presence", presences: { [String(mia.user_id)]: { active_timestamp: t, idle_timestamp: t } } }]);
		expect(await messagesOnly(ned)).toEqual([]);

		// Regular reports: no event (clients poll). Idle after a long time: none either.
		clock.advance(60_000);
		await reportOk(mia);
		clock.advance(100_000);
		await reportOk(mia);
		clock.advance(600_000);
		await reportOk(mia, { status: "idle" });
		expect(await read(ned)).toEqual([]);
		// Active after more than 130 s without an active report: back online, announced.
		clock.advance(10_000);
		await reportOk(mia);
		expect(await read(ned)).toEqual([{ ...legacy, presence: { website: { ...legacy.presence.website, timestamp: near(now()) } } }]);
		expect(await modern(ned)).toHaveLength(1);
	});

	test("not announced when the organization has presence disabled, which also hides everyone's", async () => {
		const olga = await app.createUser({ full_name: "Olga" });
		const read = await queues([olga]);
		await app.node.broker.call("users.setRealmSetting", { name: "realm_presence_disabled", value: true });
		try {
			const body = await reportOk(olga, { last_update_id: -1 });
			expectNone(body, -1);
			expect(await read(olga)).toEqual([]);
			expect((await as(olga).get("/realm/presence")).body.presences).toEqual({});
			// One user's presence is still given, as Zulip's endpoint does.
			expectSuccess(await as(olga).get(`/users/${olga.user_id}/presence`));
		} finally {
			await app.node.broker.call("users.setRealmSetting", { name: "realm_presence_disabled", value: false });
		}
	});
});

describe("invisible mode (presence_enabled)", () => {
	test("off: everyone told the user is offline, and the user's reports ignored; on again: online, told at once", async () => {
		const pat = await app.createUser({ full_name: "Pat" });
		const quinn = await app.createUser({ full_name: "Quinn" });
		// Joined a while ago (a missing active time reads as the day the user joined).
		clock.advance(600_000);
		await reportOk(pat);
		await reportOk(quinn);
		const read = await queues([quinn, pat]);
		expectSuccess(await as(pat).patch("/settings", { presence_enabled: false }));
		const [off] = await read(quinn);
		expect(off).toEqual({ type: "presence", user_id: pat.user_id, email: pat.email, server_timestamp: near(now()), presence: { website: { client: "website", status: "idle", timestamp: near(now() - 320), pushable: false } } });
		const hiddenAt = off.presence.website.timestamp;
		expect(await read(pat)).toEqual([off]);

		const seen = await reportOk(quinn, { last_update_id: -1 });
		expect(seen.presences[String(pat.user_id)].idle_timestamp).toBe(hiddenAt);
		const stamp = seen.presence_last_update_id;
		clock.advance(120_000);
		const ignored = await reportOk(pat, { last_update_id: stamp });
		expect(ignored.presences).toEqual({});
		expect(ignored.presence_last_update_id).toBe(stamp);
		expect(await read(quinn)).toEqual([]);
		const single = await as(quinn).get(`/users/${pat.user_id}/presence`);
		expect(single.body.presence.aggregated).toEqual({ status: "offline", timestamp: hiddenAt });

		expectSuccess(await as(pat).patch("/settings", { presence_enabled: true }));
		const [on] = await read(quinn);
		expect(on.presence.website).toEqual({ client: "website", status: "active", timestamp: near(now()), pushable: false });
		expect((await as(quinn).get(`/users/${pat.user_id}/presence`)).body.presence.aggregated.status).toBe("active");
	});
});

describe("POST /register", () => {
	test("presences legacy by default, modern with slim_presence or simplified_presence_events, and the stamp", async () => {
		const rita = await app.createUser({ full_name: "Rita" });
		const stamp = (await reportOk(rita, { last_update_id: -1 })).presence_last_update_id;
		const state = async (params: Record<string, unknown>) => {
			const res = await as(rita).post("/register", { fetch_event_types: JSON.stringify(["presence", "realm"]), ...params });
			expectSuccess(res);
			return res.body;
		};
		const legacy = await state({});
		expect(legacy.presences[rita.email]).toMatchObject({ aggregated: { status: "active" } });
		expect(legacy.presence_last_update_id).toBeGreaterThanOrEqual(stamp);
		expect(typeof legacy.server_timestamp).toBe("number");
		expect(legacy).toMatchObject({ server_presence_ping_interval_seconds: 60, server_presence_offline_threshold_seconds: 200 });
		expect((await state({ slim_presence: true })).presences[String(rita.user_id)]).toEqual({ active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) });
		expect((await state({ client_capabilities: JSON.stringify({ simplified_presence_events: true }) })).presences[String(rita.user_id)]).toBeDefined();
		expectNone(await state({ presence_history_limit_days: 0 }), -1);
		expectError(await as(rita).post("/register", { presence_history_limit_days: "week" }), 400, "BAD_REQUEST", "presence_history_limit_days is not an integer");
	});
});

describe("GET /realm/emoji", () => {
	test("the organization's custom emoji: none, as register's realm_emoji", async () => {
		const res = await owner.get("/realm/emoji");
		expect(res.body).toEqual({ result: "success", msg: "", emoji: {} });
		const reg = await owner.post("/register", { fetch_event_types: JSON.stringify(["realm_emoji"]) });
		expect(reg.body.realm_emoji).toEqual(res.body.emoji);
		expectError(await client(app.baseUrl, null).get("/realm/emoji"), 401, "UNAUTHORIZED");
	});
});

describe("concurrency and large organizations", () => {
	test("reports at once: each change its own stamp; a user's two first reports create one presence, announced once", async () => {
		const users = await Promise.all(Array.from({ length: 8 }, (_, i) => app.createUser({ full_name: `Burst ${i}` })));
		const stamp = (await reportOk(app.owner, { last_update_id: -1 })).presence_last_update_id;
		const read = await queues([app.owner]);
		await Promise.all(users.flatMap((u) => [reportOk(u), reportOk(u)]));
		const after = await reportOk(app.owner, { last_update_id: stamp });
		expect(Object.keys(after.presences).sort()).toEqual(users.map((u) => String(u.user_id)).sort());
		// No two changes share a stamp: stepping through the stamps loses at most one user at a time.
		let before = users.length;
		for (let k = stamp + 1; k <= after.presence_last_update_id; k++) {
			const left = Object.keys((await reportOk(app.owner, { last_update_id: k })).presences).length;
			expect(before - left).toBeLessThanOrEqual(1);
			before = left;
		}
		expect(before).toBe(0);
		const events = await read(app.owner);
		expect(events.map((e) => e.user_id).sort()).toEqual(users.map((u) => u.user_id).sort());
	});

	test("beyond 100 active users, only a presence_enabled switch is announced (Zulip's limit)", async () => {
		for (let i = 0; i < 100; i++) await app.createUser({ full_name: `Crowd ${i}` });
		const sam = await app.createUser({ full_name: "Sam" });
		const read = await queues([app.owner]);
		await reportOk(sam);
		expect(await read(app.owner)).toEqual([]);
		expectSuccess(await as(sam).patch("/settings", { presence_enabled: false }));
		expect((await read(app.owner)).map((e) => e.user_id)).toEqual([sam.user_id]);
	});
});
