// POST /streams/{stream_id}/delete_topic: a topic's messages deleted newest first, a bounded batch
// per request with Zulip's `complete` flag; administrators only, and only what they may read.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues, type QueueReader } from "../support/events";
import { copyMessage } from "../support/fixtures";

let app: TestApp;
let snap: Snapshotter;
let owner: Client;
let admin: Account;
let moderator: Account;
let alice: Account;
let bob: Account;
let general: number;
const as = (a: Account) => client(app.baseUrl, a);
const idOf = async (name: string) => (await owner.get("/get_stream_id", { stream: name })).body.stream_id as number;
const deleteTopic = (c: Client, channel: number | string, topic?: string) => c.post(`/streams/${channel}/delete_topic`, topic === undefined ? {} : { topic_name: topic });

/** The IDs of a topic's messages the user sees (up to 5,000), oldest first. */
async function topicIds(c: Client, channel: number, topic: string): Promise<number[]> {
	const res = await c.get("/messages", { anchor: "newest", num_before: 5000, num_after: 0, narrow: [{ operator: "channel", operand: channel }, ["topic", topic]] });
	expectSuccess(res);
	return res.body.messages.map((m: { id: number }) => m.id);
}

beforeAll(async () => {
	app = await startTestApp();
	snap = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	admin = await app.createUser({ full_name: "Admin", role: 200 });
	moderator = await app.createUser({ full_name: "Moderator", role: 300 });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [app.owner.user_id, admin.user_id, moderator.user_id, alice.user_id, bob.user_id] }));
	general = await idOf("general");
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

describe("POST /streams/{stream_id}/delete_topic", () => {
	test("deletes the topic's messages (its name's case aside) and tells their holders in one delete_message event", async () => {
		const kept = await sendMessage(as(alice), { type: "stream", to: "general", topic: "lunch", content: "soup?" });
		const a = await sendMessage(as(alice), { type: "stream", to: "general", topic: "Old plans", content: "first" });
		const b = await sendMessage(as(bob), { type: "stream", to: "general", topic: "old plans", content: "second" });
		const queues: QueueReader = await eventQueues(as, [alice], { register: { event_types: JSON.stringify(["delete_message"]), client_capabilities: JSON.stringify({ bulk_message_deletion: true }) } });
		const older: QueueReader = await eventQueues(as, [bob], { register: { event_types: JSON.stringify(["delete_message"]) } });
		const res = await deleteTopic(as(admin), general, "OLD PLANS");
		expectSuccess(res);
		expect(res.body).toEqual({ result: "success", msg: "", complete: true });
		expect(await topicIds(as(alice), general, "old plans")).toEqual([]);
		expect(await topicIds(as(alice), general, "lunch")).toEqual([kept]);
		// The topic as the newest message spells it (Zulip's sample message of the batch).
		expect(await queues(alice)).toEqual([{ type: "delete_message", message_ids: [a, b], message_type: "stream", stream_id: general, topic: "old plans" }]);
		// A client without bulk_message_deletion gets one event per message.
		expect(await older(bob)).toEqual([
			{ type: "delete_message", message_id: a, message_type: "stream", stream_id: general, topic: "old plans" },
			{ type: "delete_message", message_id: b, message_type: "stream", stream_id: general, topic: "old plans" },
		]);
		expect((await as(alice).get(`/messages/${a}`)).body.code).toBe("BAD_REQUEST");
		// Nothing left (or a topic that never existed): complete at once, nothing changed.
		await snap.unchanged(async () => {
			expect((await deleteTopic(as(admin), general, "old plans")).body).toEqual({ result: "success", msg: "", complete: true });
			expect((await deleteTopic(as(admin), general, "never said")).body.complete).toBe(true);
		});
	});

	test("a topic larger than a batch: 1,000 messages per request, newest first, until complete", async () => {
		const first = await sendMessage(as(alice), { type: "stream", to: "general", topic: "huge", content: "again and again" });
		const copies = await copyMessage(app, first, 2100);
		const other = await sendMessage(as(alice), { type: "stream", to: "general", topic: "small", content: "still here" });
		const all = [first, ...copies];
		const r1 = await deleteTopic(owner, general, "huge");
		expectSuccess(r1);
		expect(r1.body.complete).toBe(false);
		expect(await topicIds(owner, general, "huge")).toEqual(all.slice(0, 1101));
		const r2 = await deleteTopic(owner, general, "huge");
		expect(r2.body.complete).toBe(false);
		expect(await topicIds(owner, general, "huge")).toEqual(all.slice(0, 101));
		const r3 = await deleteTopic(owner, general, "huge");
		expect(r3.body.complete).toBe(true);
		expect(await topicIds(owner, general, "huge")).toEqual([]);
		expect(await topicIds(owner, general, "small")).toEqual([other]);
	});

	test("a private channel with protected history: only the messages the administrator received", async () => {
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], invite_only: true, history_public_to_subscribers: false }));
		const channel = await idOf("hidden");
		const before = await sendMessage(as(alice), { type: "stream", to: "hidden", topic: "secrets", content: "before the admin came" });
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], principals: [admin.user_id] }));
		const after = await sendMessage(as(alice), { type: "stream", to: "hidden", topic: "secrets", content: "after the admin came" });
		expect((await deleteTopic(as(admin), channel, "secrets")).body.complete).toBe(true);
		expect(await topicIds(as(alice), channel, "secrets")).toEqual([before]);
		expect(after).toBeGreaterThan(before);
	});

	test("administrators only, of channels they may read; bad input changes nothing", async () => {
		await sendMessage(as(alice), { type: "stream", to: "general", topic: "keep me", content: "hello" });
		for (const who of [moderator, alice]) {
			await snap.refused(() => deleteTopic(as(who), general, "keep me"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		}
		await snap.refused(() => deleteTopic(as(admin), 999_999, "keep me"), 400, "BAD_REQUEST", "Invalid channel ID");
		// A private channel the administrator is not in.
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "alice only" }], invite_only: true }));
		const mine = (await as(alice).get("/get_stream_id", { stream: "alice only" })).body.stream_id;
		await sendMessage(as(alice), { type: "stream", to: "alice only", topic: "keep me", content: "mine" });
		await snap.refused(() => deleteTopic(as(admin), mine, "keep me"), 400, "BAD_REQUEST", "Invalid channel ID");
		// An archived channel.
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "attic" }] }));
		const attic = await idOf("attic");
		await sendMessage(owner, { type: "stream", to: "attic", topic: "keep me", content: "dusty" });
		expectSuccess(await owner.delete(`/streams/${attic}`));
		await snap.refused(() => deleteTopic(owner, attic, "keep me"), 400, "BAD_REQUEST", "Invalid channel ID");
		await snap.refused(() => deleteTopic(as(admin), general), 400, "REQUEST_VARIABLE_MISSING", "Missing 'topic_name' argument");
		await snap.unchanged(async () => expect((await deleteTopic(as(admin), "general", "keep me")).status).toBe(404));
	});
});
