// Mobile push through Zulip's push notification bouncer protocol, against a recording bouncer on
// localhost (test/support/bouncer.ts; no real bouncer is reachable from the tests): devices
// registered and unregistered with push/register and push/unregister (form bodies, the server's
// credentials as basic auth), off the request path, retried after a bouncer failure, once across
// two replicas; a message the missed-message decision pushes reaching push/notify with Zulip's
// APNs and FCM payloads, and the `remove` payloads once it is read or deleted; an edit newly
// mentioning a user pushes the message to them, one taking the mention away removes it; POST
// /mobile_push/test_notification and its errors; POST /register and GET /server_settings saying
// push is on. A second app without PUSH_NOTIFICATION_BOUNCER_URL shows push off: nothing sent.
import type { Connection } from "mongoose";
import { ServiceBroker } from "moleculer";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess } from "../support/http";
import { startBouncer, type TestBouncer } from "../support/bouncer";
import { eventually } from "../support/eventually";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { connectServiceDb } from "../../shared/db";
import { pushJobModel } from "../../services/notifications/models/push-job";
import { notificationsService } from "../../services/notifications/notifications.service";
import { ZULIP_VERSION } from "../../shared/version";
import { clock } from "../../shared/clock";
import { KEEP_DONE_MS } from "../../services/notifications/push/jobs";

jest.setTimeout(120_000);

const ORG_ID = "6cde5f7a-1f7e-4978-9716-49f69ebfc9fe";
const ORG_KEY = "a".repeat(64);
const MAX_ATTEMPTS = 3;
const APNS = "/users/me/apns_device_token";
const FCM = "/users/me/android_gcm_reg_id";
const APP_ID = "org.zulip.Zulip";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let bouncer: TestBouncer;
let app: TestApp;
let conn: Connection;
let alice: Account;
let bob: Account;
let bot: Account;
let snap: Snapshotter;
const as = (a: Account, on = app) => client(on.baseUrl, a);
const sweep = () => app.node.broker.call<Record<string, string[]>, { replica?: string }>("notifications.pushSweep", {});
const jobs = () => pushJobModel(conn);

beforeAll(async () => {
	bouncer = await startBouncer();
	// No sweep timer: the tests sweep when they mean to; a failed request is due again at once.
	app = await startTestApp({ pushBouncerUrl: bouncer.url, zulipOrgId: ORG_ID, zulipOrgKey: ORG_KEY, pushSweepSeconds: 0, pushRetrySeconds: 0, pushMaxAttempts: MAX_ATTEMPTS });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	bot = await app.createUser({ full_name: "Push Bot", is_bot: true, bot_owner_id: alice.user_id });
	conn = await connectServiceDb(app.node.config.mongoUrl, app.node.config.dbPrefix, "notifications");
	snap = await snapshotter(app);
});

afterAll(async () => {
	await snap?.close();
	await conn?.close();
	await app?.stop();
	await bouncer?.stop();
});

beforeEach(async () => {
	await sweep();
	bouncer.reset();
});

/** Every bouncer request is made with the server's credentials and Zulip's User-Agent. */
function expectFromServer(r: { auth: [string, string] | null; userAgent: string; method: string }) {
	expect(r.method).toBe("POST");
	expect(r.auth).toEqual([ORG_ID, ORG_KEY]);
	expect(r.userAgent).toBe(`ZulipServer/${ZULIP_VERSION}`);
}

test("with a bouncer, POST /register and GET /server_settings say push notifications are on", async () => {
	const res = await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
	expectSuccess(res);
	const state = res.body;
	expect(state.realm_push_notifications_enabled).toBe(true);
	expect(state.realm_push_notifications_enabled_end_timestamp).toBeNull();
	expect((await client(app.baseUrl).get("/server_settings")).body.push_notifications_enabled).toBe(true);
});

test("an APNs device is registered with the bouncer as Zulip's server does, and unregistered on removal", async () => {
	const token = "c0ffee".repeat(10) + "abcd";
	expectSuccess(await as(alice).post(APNS, { token, appid: APP_ID }));
	const [register] = await eventually(async () => bouncer.to("push/register").length === 1 && bouncer.to("push/register"), "push/register");
	expectFromServer(register);
	expect(register.contentType).toMatch(/^application\/x-www-form-urlencoded/);
	expect(register.body).toEqual({
		server_uuid: ORG_ID,
		user_uuid: expect.stringMatching(UUID),
		realm_uuid: expect.stringMatching(UUID),
		user_id: String(alice.user_id),
		token,
		token_kind: "1",
		ios_app_id: APP_ID,
	});
	expect((await sweep()).done).toEqual([]);
	expectSuccess(await as(alice).delete(APNS, { token }));
	const [unregister] = await eventually(async () => bouncer.to("push/unregister").length === 1 && bouncer.to("push/unregister"), "push/unregister");
	expectFromServer(unregister);
	expect(unregister.body).toEqual(Object.fromEntries(Object.entries(register.body).filter(([k]) => k !== "ios_app_id")));
	await sweep();
	expect(bouncer.requests).toHaveLength(2);
	expect(await jobs().countDocuments({ state: { $ne: "done" } })).toBe(0);
});

test("an FCM device is registered without an app ID; each user has their own UUID", async () => {
	expectSuccess(await as(alice).post(FCM, { token: "fcm-alice" }));
	expectSuccess(await as(bob).post(FCM, { token: "fcm-bob" }));
	await sweep();
	const [a, b] = ["fcm-alice", "fcm-bob"].map((t) => bouncer.to("push/register").find((r) => r.body.token === t)!);
	expect(a.body).toEqual({ server_uuid: ORG_ID, user_uuid: expect.stringMatching(UUID), realm_uuid: a.body.realm_uuid, user_id: String(alice.user_id), token: "fcm-alice", token_kind: "2" });
	expect(b.body.realm_uuid).toBe(a.body.realm_uuid);
	expect(b.body.user_uuid).not.toBe(a.body.user_uuid);
	expectSuccess(await as(alice).delete(FCM, { token: "fcm-alice" }));
	expectSuccess(await as(bob).delete(FCM, { token: "fcm-bob" }));
	await sweep();
});

test("a bouncer failure is retried until it answers; a device removed meanwhile ends unregistered", async () => {
	bouncer.fail({ status: 500 }, 2, "push/register");
	expectSuccess(await as(alice).post(FCM, { token: "fcm-retry" }));
	await sweep(); // the first attempt has failed by now; this is the second
	await sweep(); // and the third, which the bouncer answers
	const registers = bouncer.to("push/register");
	expect(registers).toHaveLength(3);
	expect(new Set(registers.map((r) => JSON.stringify(r.body))).size).toBe(1);
	const job = await jobs().findOne({ "form.token": "fcm-retry" }).lean();
	expect(job).toMatchObject({ state: "done", attempts: 3 });

	// Register and unregister in a row, the bouncer failing: it ends with the last change.
	bouncer.reset();
	bouncer.fail({ status: 503 }, 1);
	expectSuccess(await as(alice).post(FCM, { token: "fcm-flip" }));
	expectSuccess(await as(alice).delete(FCM, { token: "fcm-flip" }));
	await sweep();
	await sweep();
	const flips = bouncer.requests.filter((r) => r.body.token === "fcm-flip").map((r) => r.path.split("/").pop());
	expect(flips[flips.length - 1]).toBe("unregister");
	expect(await jobs().countDocuments({ state: { $nin: ["done"] } })).toBe(0);
	expectSuccess(await as(alice).delete(FCM, { token: "fcm-retry" }));
	await sweep();
});

test("a bouncer down for good: the request fails after its attempts, kept with the reason; a refusal fails at once", async () => {
	bouncer.fail({ status: 502 }, MAX_ATTEMPTS, "push/register");
	expectSuccess(await as(bob).post(FCM, { token: "fcm-down" }));
	for (let i = 0; i < MAX_ATTEMPTS; i++) await sweep();
	expect(bouncer.to("push/register")).toHaveLength(MAX_ATTEMPTS);
	const down = await jobs().findOne({ "form.token": "fcm-down" }).lean();
	expect(down).toMatchObject({ state: "failed", attempts: MAX_ATTEMPTS, last_error: "Received 500 from push notification bouncer" });
	await sweep();
	expect(bouncer.to("push/register")).toHaveLength(MAX_ATTEMPTS);

	bouncer.fail({ status: 400, body: { result: "error", msg: "Invalid token type", code: "BAD_REQUEST" } }, 1, "push/unregister");
	expectSuccess(await as(bob).delete(FCM, { token: "fcm-down" }));
	await sweep();
	expect(bouncer.to("push/unregister")).toHaveLength(1);
	// The device's one job, flipped to unregister.
	const refused = await jobs().findOne({ "form.token": "fcm-down" }).lean();
	expect(refused).toMatchObject({ kind: "unregister", state: "failed", attempts: 1, last_error: "Invalid token type" });
	// "Token does not exist" from the bouncer: the device is unregistered, as asked.
	bouncer.fail({ status: 400, body: { result: "error", msg: "Token does not exist", code: "BAD_REQUEST" } }, 1, "push/unregister");
	expectSuccess(await as(bob).post(FCM, { token: "fcm-gone" }));
	expectSuccess(await as(bob).delete(FCM, { token: "fcm-gone" }));
	await sweep();
	expect(await jobs().findOne({ "form.token": "fcm-gone" }).lean()).toMatchObject({ kind: "unregister", state: "done", last_error: "Token does not exist" });
});

test("two notifications replicas on one set of jobs make each bouncer request once", async () => {
	// A second replica: its own broker and service instance, on the same database.
	const second = new ServiceBroker({ nodeID: "second-notifications", logger: false, transporter: undefined });
	second.createService(notificationsService(app.node.config));
	await second.start();
	const sweepOn = (broker: ServiceBroker, replica: string) => broker.call<Record<string, string[]>, { replica?: string }>("notifications.pushSweep", { replica });
	try {
		const tokens = Array.from({ length: 12 }, (_, i) => `fcm-replica-${i}`);
		// Stored while the bouncer fails, then all due again when both replicas sweep at once.
		bouncer.fail({ status: 500 }, tokens.length, "push/register");
		for (const token of tokens) expectSuccess(await as(bob).post(FCM, { token }));
		await eventually(async () => bouncer.to("push/register").length === tokens.length, "the first attempts");
		await sweepOn(app.node.broker, "first");
		await jobs().updateMany({ "form.token": { $in: tokens } }, { $set: { state: "queued", attempts: 1, next_attempt_at: 0, claimed_by: null, claimed_at: null } });
		bouncer.reset();
		const results = await Promise.all([sweepOn(app.node.broker, "a"), sweepOn(second, "b"), sweepOn(app.node.broker, "c"), sweepOn(second, "d")]);
		expect(results.flatMap((r) => r.done)).toHaveLength(tokens.length);
		expect(bouncer.to("push/register").map((r) => r.body.token).sort()).toEqual([...tokens].sort());
		for (const token of tokens) expectSuccess(await as(bob).delete(FCM, { token }));
		await sweep();
	} finally {
		await second.stop();
	}
});

describe("POST /mobile_push/test_notification", () => {
	const TEST = "/mobile_push/test_notification";
	const apnsToken = "YWJjZA==";

	test("no devices: nothing sent, success (as Zulip)", async () => {
		expectSuccess(await as(bob).post(TEST));
		expect(bouncer.requests).toHaveLength(0);
	});

	test("one device by token, or every device; Zulip's body with the base payload", async () => {
		expectSuccess(await as(alice).post(APNS, { token: apnsToken, appid: APP_ID }));
		expectSuccess(await as(alice).post(FCM, { token: "fcm-test" }));
		await sweep();
		bouncer.reset();
		expectSuccess(await as(alice).post(TEST, { token: "fcm-test" }));
		expect(bouncer.requests).toHaveLength(1);
		const [one] = bouncer.to("push/test_notification");
		expectFromServer(one);
		expect(one.contentType).toMatch(/^application\/json/);
		expect(one.body).toEqual({
			realm_uuid: expect.stringMatching(UUID),
			user_uuid: expect.stringMatching(UUID),
			user_id: alice.user_id,
			token: "fcm-test",
			token_kind: 2,
			base_payload: { server: "chat.test", realm_id: expect.any(Number), realm_uri: "http://chat.test", realm_url: "http://chat.test", realm_name: "Team chat", user_id: alice.user_id },
		});
		expectSuccess(await as(alice).post(TEST));
		expect(
			bouncer
				.to("push/test_notification")
				.slice(1)
				.map((r) => [r.body.token, r.body.token_kind]),
		).toEqual([
			[apnsToken, 1],
			["fcm-test", 2],
		]);
	});

	test("errors: an unknown token, a device the bouncer does not know, a bouncer down; bots refused", async () => {
		await snap.refused(() => as(alice).post(TEST, { token: "not-registered" }), 400, "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
		await snap.refused(() => as(alice).post(TEST, { token: "" }), 400, "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
		// Another user's token is not this user's device.
		await snap.refused(() => as(bob).post(TEST, { token: "fcm-test" }), 400, "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
		bouncer.reset();
		bouncer.fail({ status: 400, body: { result: "error", msg: "Device not recognized by the push bouncer", code: "INVALID_REMOTE_PUSH_DEVICE_TOKEN" } });
		expectError(await as(alice).post(TEST, { token: "fcm-test" }), 400, "INVALID_REMOTE_PUSH_DEVICE_TOKEN", "Device not recognized by the push bouncer");
		bouncer.fail({ status: 500 });
		expectError(await as(alice).post(TEST, { token: "fcm-test" }), 502, "BAD_REQUEST", "Received 500 from push notification bouncer");
		bouncer.fail({ status: 401, body: { result: "error", msg: "Zulip server auth failure: key does not match role 6cde5f7a", code: "INVALID_ZULIP_SERVER" } });
		expectError(await as(alice).post(TEST, { token: "fcm-test" }), 502, "BAD_REQUEST", /^Push notifications bouncer error: Zulip server auth failure/);
		expect(bouncer.requests).toHaveLength(3);
		// Not text: a JSON body's number, list or object.
		for (const token of [5, [1], { a: 1 }]) {
			await snap.refused(() => as(alice).post(TEST, { token }, { json: true }), 400, "BAD_REQUEST", /token/);
		}
		await snap.refused(() => as(bot).post(TEST, { token: "fcm-test" }), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
		await snap.refused(() => client(app.baseUrl).post(TEST, { token: "fcm-test" }), 401, "UNAUTHORIZED", /credentials|Missing/i);
		expect(bouncer.requests).toHaveLength(3);
	});
});

describe("a message's notification (the missed-message decision's push half), and its removal once read or deleted", () => {
	const apnsToken = "bWVzc2FnZQ==";
	let dave: Account;
	let base: Record<string, unknown>;
	let notifyBase: Record<string, unknown>;

	/** Sends through HTTP and answers the message as the recipient's GET /messages/{id} shows it. */
	async function sent(from: Account, to: Account, params: Record<string, unknown>): Promise<Record<string, any>> {
		const res = await as(from).post("/messages", params);
		expectSuccess(res);
		const got = await as(to).get(`/messages/${res.body.id}`);
		expectSuccess(got);
		return got.body.message;
	}
	/** The decision for a message and user, once stored (the push half is handed on right after). */
	const decided = (messageId: number, user: Account) =>
		eventually(async () => conn.collection("missed_message_notices").findOne({ _id: `${messageId}:${user.user_id}` as never }), `the decision for message ${messageId}`);
	/** What another caller (a replica, a test) hands over directly: notifications.pushMessage. */
	const push = (user: Account, message: Record<string, unknown>, trigger: string, extra: Record<string, unknown> = {}) =>
		app.node.broker.call<{ queued: boolean }, Record<string, unknown>>("notifications.pushMessage", { user_id: user.user_id, message, trigger, ...extra });
	const notifies = () => bouncer.to("push/notify");
	const notifyFor = (id: number) => notifies().find((r) => r.body.gcm_payload.zulip_message_id === id && r.body.gcm_payload.event === "message")?.body;
	/** Zulip's push/notify body removing one message's notification from Alice's devices. */
	const removalOf = (id: number, androidDevices: string[]) => ({
		...notifyBase,
		gcm_payload: { ...base, event: "remove", zulip_message_ids: String(id), zulip_message_id: id },
		gcm_options: { priority: "normal" },
		apns_payload: { badge: 0, custom: { zulip: { ...base, event: "remove", zulip_message_ids: String(id) } } },
		android_devices: androidDevices,
		apple_devices: [apnsToken],
	});
	const waitNotifies = (n: number) => eventually(async () => notifies().length >= n && notifies(), `${n} notify requests`);

	beforeAll(async () => {
		dave = await app.createUser({ full_name: "Dave" });
		// Alice keeps only the two devices of these tests.
		expectSuccess(await as(alice).delete(FCM, { token: "fcm-test" }));
		expectSuccess(await as(alice).delete(APNS, { token: "YWJjZA==" }));
		await sweep();
		expectSuccess(await as(alice).post(FCM, { token: "fcm-msg" }));
		expectSuccess(await as(alice).post(APNS, { token: apnsToken, appid: APP_ID }));
		await sweep();
		const realm = (await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body;
		base = { server: "chat.test", realm_id: expect.any(Number), realm_uri: "http://chat.test", realm_url: "http://chat.test", realm_name: realm.realm_name, user_id: alice.user_id };
		notifyBase = { user_uuid: expect.stringMatching(UUID), user_id: alice.user_id, realm_uuid: expect.stringMatching(UUID) };
	});
	beforeEach(() => bouncer.reset());

	test("a direct message to an idle user: Zulip's APNs and FCM payloads and the devices, once", async () => {
		const m = await sent(bob, alice, { type: "private", to: JSON.stringify([alice.user_id]), content: "Hello **Alice** :smile:" });
		const [req] = await waitNotifies(1);
		expect((await decided(m.id, alice))?.push).toBe("private_message");
		// Handed over again (another replica, a retried call): nothing more is sent.
		expect(await push(alice, m, "private_message")).toEqual({ queued: false });
		await sweep();
		expect(notifies()).toHaveLength(1);
		expectFromServer(req);
		expect(req.contentType).toMatch(/^application\/json/);
		const common = { ...base, sender_id: bob.user_id, sender_email: m.sender_email, time: m.timestamp, recipient_type: "private" };
		expect(req.body).toEqual({
			...notifyBase,
			apns_payload: {
				alert: { title: "Bob", subtitle: "", body: "Hello Alice 🙂" },
				sound: "default",
				badge: 0,
				custom: { zulip: { ...common, message_ids: [m.id] } },
			},
			gcm_payload: {
				...common,
				event: "message",
				zulip_message_id: m.id,
				content: "Hello Alice 🙂",
				content_truncated: false,
				sender_full_name: "Bob",
				sender_avatar_url: expect.stringMatching(/^https?:\/\//),
			},
			gcm_options: { priority: "high" },
			android_devices: ["fcm-msg"],
			apple_devices: [apnsToken],
		});

		// Read: one `remove` notification, Zulip's payloads; reading again sends nothing.
		bouncer.reset();
		expectSuccess(await as(alice).post("/messages/flags", { messages: JSON.stringify([m.id]), op: "add", flag: "read" }));
		const [remove] = await waitNotifies(1);
		expect(remove.body).toEqual(removalOf(m.id, ["fcm-msg"]));
		expectSuccess(await as(alice).post("/messages/flags", { messages: JSON.stringify([m.id]), op: "remove", flag: "read" }));
		expectSuccess(await as(alice).post("/messages/flags", { messages: JSON.stringify([m.id]), op: "add", flag: "read" }));
		await sweep();
		expect(notifies()).toHaveLength(1);
	});

	test("a mention, a group mention, a wildcard mention, a group direct message, long content; a channel push handed over", async () => {
		expectSuccess(await as(bob).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "push-test" }]), principals: JSON.stringify([alice.user_id, bob.user_id, dave.user_id]) }));
		const mention = await sent(bob, alice, { type: "stream", to: "push-test", topic: "greetings", content: "@**Alice** look > here" });
		const wildcard = await sent(bob, alice, { type: "stream", to: "push-test", topic: "", content: "@**all** hi" });
		const group = await sent(bob, alice, { type: "private", to: JSON.stringify([alice.user_id, dave.user_id]), content: "x".repeat(250) });
		// Alice mentioned through the smaller of two groups she is in.
		const created = await as(bob).post("/user_groups/create", { name: "support", description: "", members: JSON.stringify([alice.user_id, dave.user_id]) });
		expectSuccess(created);
		expectSuccess(await as(bob).post("/user_groups/create", { name: "everyone-here", description: "", members: JSON.stringify([alice.user_id, bob.user_id, dave.user_id]) }));
		const viaGroup = await sent(bob, alice, { type: "stream", to: "push-test", topic: "help", content: "@*support* @*everyone-here* hi" });
		// Not notified by itself (no mention, a topic Alice does not follow, channel push
		// notifications off by default): handed over as a channel push.
		const talk = await sent(bob, alice, { type: "stream", to: "push-test", topic: "other", content: "just talk" });
		await push(alice, talk, "stream_push_notify");
		await waitNotifies(5);
		await sweep();
		expect(notifies()).toHaveLength(5);
		const m1 = notifyFor(mention.id)!;
		expect(m1.apns_payload.alert).toEqual({ title: "#push-test > greetings", subtitle: "Bob mentioned you:", body: "@Alice look > here" });
		expect(m1.gcm_payload).toMatchObject({ recipient_type: "stream", stream: "push-test", stream_id: mention.stream_id, topic: "greetings", content: "@Alice look > here" });
		expect(m1.apns_payload.custom.zulip).toEqual({ ...base, sender_id: bob.user_id, sender_email: mention.sender_email, time: mention.timestamp, recipient_type: "stream", stream: "push-test", stream_id: mention.stream_id, topic: "greetings", message_ids: [mention.id] });
		const m2 = notifyFor(viaGroup.id)!;
		expect(m2.apns_payload.alert.subtitle).toBe("Bob mentioned @support:");
		expect(m2.gcm_payload).toMatchObject({ mentioned_user_group_id: created.body.group_id, mentioned_user_group_name: "support" });
		expect(m2.apns_payload.custom.zulip).toMatchObject({ mentioned_user_group_id: created.body.group_id, mentioned_user_group_name: "support" });
		expect(m1.gcm_payload.mentioned_user_group_id).toBeUndefined();
		const m3 = notifyFor(wildcard.id)!;
		expect(m3.apns_payload.alert).toMatchObject({ title: "#push-test > general chat", subtitle: "Bob mentioned everyone:" });
		expect(m3.gcm_payload.topic).toBe("general chat");
		expect(notifyFor(talk.id)!.apns_payload.alert.subtitle).toBe("Bob:");
		const m5 = notifyFor(group.id)!;
		const ids = [alice.user_id, bob.user_id, dave.user_id].sort((a, b) => a - b).join(",");
		expect(m5.apns_payload.alert).toEqual({ title: "Alice, Bob, Dave", subtitle: "Bob:", body: "x".repeat(200) + "…" });
		expect(m5.gcm_payload).toMatchObject({ recipient_type: "private", pm_users: ids, content: "x".repeat(200) + "…", content_truncated: true });
		expect(m5.apns_payload.custom.zulip.pm_users).toBe(ids);

		// Reading them all: one removal naming each, ascending.
		bouncer.reset();
		expectSuccess(await as(alice).post("/mark_all_as_read"));
		const [remove] = await waitNotifies(1);
		const named = String(remove.body.gcm_payload.zulip_message_ids).split(",").map(Number);
		expect(named).toEqual([mention.id, wildcard.id, group.id, viaGroup.id, talk.id].sort((a, b) => a - b));
		expect(remove.body.gcm_payload.zulip_message_id).toBe(named[0]);
	});

	test("no push when the user turned it off; a notify retried after a bouncer failure; devices the bouncer dropped are forgotten", async () => {
		expectSuccess(await as(alice).patch("/settings", { enable_offline_push_notifications: false }));
		const quiet = await sent(bob, alice, { type: "private", to: JSON.stringify([alice.user_id]), content: "shh" });
		expect((await decided(quiet.id, alice))?.push).toBeNull();
		expectSuccess(await as(alice).patch("/settings", { enable_offline_push_notifications: true }));

		bouncer.fail({ status: 500 }, 1, "push/notify");
		bouncer.deleteOnNextNotify({ android_devices: ["fcm-msg"] });
		const m = await sent(bob, alice, { type: "private", to: JSON.stringify([alice.user_id]), content: "again" });
		await waitNotifies(1);
		await sweep();
		expect(notifies()).toHaveLength(2);
		expect(notifies()[1].body).toEqual(notifies()[0].body);
		expect(notifies()[0].body.gcm_payload.zulip_message_id).toBe(m.id);
		expect(notifyFor(quiet.id)).toBeUndefined();
		// The bouncer no longer had the FCM token: this server forgets it too.
		expectError(await as(alice).post("/mobile_push/test_notification", { token: "fcm-msg" }), 400, "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
	});

	test("a user without devices costs the bouncer nothing", async () => {
		const toDave = await sent(bob, dave, { type: "private", to: JSON.stringify([dave.user_id]), content: "no phone" });
		expect((await decided(toDave.id, dave))?.push).toBe("private_message");
		expect(await push(dave, toDave, "private_message")).toEqual({ queued: false });
		await sweep();
		expect(bouncer.requests).toHaveLength(0);
	});

	/** Waits for the notices being stored after the last request (a missed-message sweep waits for them), then for the bouncer requests. */
	const settled = async () => {
		await app.node.broker.call("notifications.missedSweep", {});
		await sweep();
	};

	test("an edit that newly mentions the user: the notification of the edited message, as for a new one, once; one taking the mention away: its removal", async () => {
		const m = await sent(bob, alice, { type: "stream", to: "push-test", topic: "edits", content: "nobody yet" });
		await settled();
		expect(notifies()).toHaveLength(0);
		expectSuccess(await as(bob).patch(`/messages/${m.id}`, { content: "@**Alice** now you" }));
		const [req] = await waitNotifies(1);
		expect(req.body.apns_payload.alert).toEqual({ title: "#push-test > edits", subtitle: "Bob mentioned you:", body: "@Alice now you" });
		expect(req.body.gcm_payload).toMatchObject({ event: "message", zulip_message_id: m.id, content: "@Alice now you", recipient_type: "stream", topic: "edits" });
		// Edited again, still mentioning her: nothing more.
		expectSuccess(await as(bob).patch(`/messages/${m.id}`, { content: "@**Alice** now you, really" }));
		await settled();
		expect(notifies()).toHaveLength(1);
		// An edit taking her mention away takes the notification off her phone (Zulip's do_update_mobile_push_notification), once.
		expectSuccess(await as(bob).patch(`/messages/${m.id}`, { content: "never mind" }));
		await waitNotifies(2);
		expect(notifies()[1].body).toEqual(removalOf(m.id, []));
		expectSuccess(await as(bob).patch(`/messages/${m.id}`, { content: "never mind, really" }));
		await settled();
		expect(notifies()).toHaveLength(2);
	});

	test("a deleted message's notification is removed, with Zulip's payloads; no removal for those who had none", async () => {
		// Bob has a device too, but sent the message: he had no notification of it.
		expectSuccess(await as(bob).post(FCM, { token: "fcm-bob-sender" }));
		await sweep();
		bouncer.reset();
		const m = await sent(bob, alice, { type: "private", to: JSON.stringify([alice.user_id, dave.user_id]), content: "soon gone" });
		await waitNotifies(1);
		await settled();
		expect(notifies().map((r) => r.body.user_id)).toEqual([alice.user_id]);
		bouncer.reset();
		expectSuccess(await as(bob).delete(`/messages/${m.id}`));
		const [remove] = await waitNotifies(1);
		expect(remove.body).toEqual(removalOf(m.id, []));
		await settled();
		expect(notifies()).toHaveLength(1);
		// A message deleted that notified nobody with a device: no request at all.
		const quiet = await sent(bob, dave, { type: "private", to: JSON.stringify([dave.user_id]), content: "dave has no phone" });
		await settled();
		bouncer.reset();
		expectSuccess(await as(bob).delete(`/messages/${quiet.id}`));
		await settled();
		expect(bouncer.requests).toHaveLength(0);
		expectSuccess(await as(bob).delete(FCM, { token: "fcm-bob-sender" }));
		await sweep();
	});

	test("notifications made are forgotten a day later; device registrations stay", async () => {
		expect(await jobs().countDocuments({ kind: { $in: ["message", "remove"] }, state: "done" })).toBeGreaterThan(0);
		clock.advance(KEEP_DONE_MS + 1000);
		try {
			await sweep();
		} finally {
			clock.reset();
		}
		expect(await jobs().countDocuments({ kind: { $in: ["message", "remove"] }, state: "done" })).toBe(0);
		expect(await jobs().countDocuments({ "form.token": "fcm-msg", kind: "register" })).toBe(1);
	});
});

describe("without PUSH_NOTIFICATION_BOUNCER_URL", () => {
	let off: TestApp;
	let carol: Account;
	beforeAll(async () => {
		off = await startTestApp({ pushBouncerUrl: "", zulipOrgId: "", zulipOrgKey: "" });
		carol = await off.createUser({ full_name: "Carol" });
	});
	afterAll(async () => off?.stop());

	test("push is off: register and server_settings say so; devices are kept and nothing is sent", async () => {
		const res = await as(carol, off).post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
		expectSuccess(res);
		const state = res.body;
		expect(state.realm_push_notifications_enabled).toBe(false);
		expect(state.realm_push_notifications_enabled_end_timestamp).toBeNull();
		expect((await client(off.baseUrl).get("/server_settings")).body.push_notifications_enabled).toBe(false);
		expectSuccess(await as(carol, off).post(FCM, { token: "fcm-off" }));
		expectSuccess(await as(carol, off).post("/mobile_push/test_notification", { token: "fcm-off" }));
		expectSuccess(await as(carol, off).post("/mobile_push/test_notification"));
		expectError(await as(carol, off).post("/mobile_push/test_notification", { token: "nope" }), 400, "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
		// A message for a user with a device: no notification, no record to remove later.
		const dan = await off.createUser({ full_name: "Dan" });
		const dm = await as(dan, off).post("/messages", { type: "private", to: JSON.stringify([carol.user_id]), content: "hi" });
		expectSuccess(dm);
		const message = (await as(carol, off).get(`/messages/${dm.body.id}`)).body.message;
		expect(await off.node.broker.call("notifications.pushMessage", { user_id: carol.user_id, message, trigger: "private_message" })).toEqual({ queued: false });
		expectSuccess(await as(carol, off).post("/messages/flags", { messages: JSON.stringify([dm.body.id]), op: "add", flag: "read" }));
		expectSuccess(await as(carol, off).delete(FCM, { token: "fcm-off" }));
		await off.node.broker.call("notifications.pushSweep", {});
		const offConn = await connectServiceDb(off.node.config.mongoUrl, off.node.config.dbPrefix, "notifications");
		expect(await pushJobModel(offConn).countDocuments({})).toBe(0);
		await offConn.close();
		expect(bouncer.requests).toHaveLength(0);
	});
});
