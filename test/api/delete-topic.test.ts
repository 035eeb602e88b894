// POST /streams/{stream_id}/delete_topic: a topic's messages deleted newest first, a bounded batch
// per request with Zulip's `complete` flag; administrators only, and only what they may read. Once
// the topic is gone, users' policies for it (muted, followed...) go; the channel's first_message_id
// follows the deletion of its first message, here and through DELETE /messages/{id}.
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

/** The user's policy for a topic (its case aside) as POST /register gives it: 0 without one. */
async function policyFor(a: Account, channel: number, topic: string): Promise<number> {
	const res = await as(a).post("/register", { fetch_event_types: ["user_topic"] });
	expectSuccess(res);
	const rows = (res.body.user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>).filter(
		(t) => t.stream_id === channel && t.topic_name.toLowerCase() === topic.toLowerCase(),
	);
	expect(rows.length).toBeLessThan(2);
	return rows[0]?.visibility_policy ?? 0;
}
const setPolicy = async (a: Account, stream_id: number, topic: string, visibility_policy: number) =>
	expectSuccess(await as(a).post("/user_topics", { stream_id, topic, visibility_policy }));
const firstMessageOf = async (channel: number) => (await owner.get(`/streams/${channel}`)).body.stream.first_message_id as number | null;

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
		await setPolicy(alice, general, "huge", 3);
		const r1 = await deleteTopic(owner, general, "huge");
		expectSuccess(r1);
		expect(r1.body.complete).toBe(false);
		expect(await topicIds(owner, general, "huge")).toEqual(all.slice(0, 1101));
		const r2 = await deleteTopic(owner, general, "huge");
		expect(r2.body.complete).toBe(false);
		expect(await topicIds(owner, general, "huge")).toEqual(all.slice(0, 101));
		// The topic is not gone yet: its policies stay.
		expect(await policyFor(alice, general, "huge")).toBe(3);
		const r3 = await deleteTopic(owner, general, "huge");
		expect(r3.body.complete).toBe(true);
		expect(await topicIds(owner, general, "huge")).toEqual([]);
		expect(await policyFor(alice, general, "huge")).toBe(0);
		expect(await topicIds(owner, general, "small")).toEqual([other]);
	});

	test("a private channel with protected history: only the messages the administrator received; the policies of those who still have some stay", async () => {
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], invite_only: true, history_public_to_subscribers: false }));
		const channel = await idOf("hidden");
		const before = await sendMessage(as(alice), { type: "stream", to: "hidden", topic: "secrets", content: "before the admin came" });
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], principals: [admin.user_id, bob.user_id] }));
		const after = await sendMessage(as(alice), { type: "stream", to: "hidden", topic: "secrets", content: "after the admin came" });
		// Alice keeps a message the administrator never received; Bob, like the administrator, only had the later one.
		for (const who of [alice, bob, admin]) await setPolicy(who, channel, "Secrets", 1);
		const queues = await eventQueues(as, [alice, bob], { register: { event_types: JSON.stringify(["user_topic"]) } });
		expect((await deleteTopic(as(admin), channel, "secrets")).body.complete).toBe(true);
		expect(await topicIds(as(alice), channel, "secrets")).toEqual([before]);
		expect(after).toBeGreaterThan(before);
		expect(await policyFor(alice, channel, "secrets")).toBe(1);
		expect(await policyFor(bob, channel, "secrets")).toBe(0);
		expect(await policyFor(admin, channel, "secrets")).toBe(0);
		expect(await queues(alice)).toEqual([]);
		expect(await queues(bob)).toEqual([{ type: "user_topic", stream_id: channel, topic_name: "secrets", last_updated: expect.any(Number), visibility_policy: 0 }]);
	});

	test("a topic deleted to the end: every user's policy for it goes (user_topic 0, after delete_message); other topics' and channels' stay", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "elsewhere" }], principals: [alice.user_id, bob.user_id] }));
		const elsewhere = await idOf("elsewhere");
		const m = await sendMessage(as(alice), { type: "stream", to: "general", topic: "Retro", content: "what went well" });
		await setPolicy(alice, general, "retro", 1);
		await setPolicy(bob, general, "RETRO", 3);
		await setPolicy(bob, general, "retro later", 1);
		await setPolicy(bob, elsewhere, "retro", 3);
		// Moderator never had a policy: no event for them.
		const register = { event_types: JSON.stringify(["user_topic", "delete_message"]), client_capabilities: JSON.stringify({ bulk_message_deletion: true }) };
		const queues = await eventQueues(as, [alice, bob, moderator], { register });
		const res = await deleteTopic(as(admin), general, "ReTrO");
		expect(res.body).toEqual({ result: "success", msg: "", complete: true });
		const deleted = { type: "delete_message", message_ids: [m], message_type: "stream", stream_id: general, topic: "Retro" };
		// The topic as the administrator named it (Zulip's topic_name), at one time for all.
		const reset = { type: "user_topic", stream_id: general, topic_name: "ReTrO", last_updated: expect.any(Number), visibility_policy: 0 };
		const aliceEvents = await queues(alice);
		expect(aliceEvents).toEqual([deleted, reset]);
		const bobEvents = await queues(bob);
		expect(bobEvents).toEqual([deleted, reset]);
		expect(bobEvents[1].last_updated).toBe(aliceEvents[1].last_updated);
		expect(await queues(moderator)).toEqual([deleted]);
		expect(await policyFor(alice, general, "retro")).toBe(0);
		expect(await policyFor(bob, general, "retro")).toBe(0);
		expect(await policyFor(bob, general, "retro later")).toBe(1);
		expect(await policyFor(bob, elsewhere, "retro")).toBe(3);
	});

	test("a topic with no messages left is complete at once, and its policies still go, as Zulip's delete_in_topic", async () => {
		await setPolicy(alice, general, "never written", 1);
		const queues = await eventQueues(as, [alice], { register: { event_types: JSON.stringify(["user_topic", "delete_message", "stream"]) } });
		expect((await deleteTopic(as(admin), general, "Never Written")).body).toEqual({ result: "success", msg: "", complete: true });
		expect(await queues(alice)).toEqual([{ type: "user_topic", stream_id: general, topic_name: "Never Written", last_updated: expect.any(Number), visibility_policy: 0 }]);
		expect(await policyFor(alice, general, "never written")).toBe(0);
	});

	test("deleting the channel's first message moves first_message_id to the oldest left (null when none), with a stream event before delete_message", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "firsts" }], principals: [app.owner.user_id, alice.user_id] }));
		const channel = await idOf("firsts");
		// Notification Bot's creation notice is the channel's first message.
		const notice = (await firstMessageOf(channel))!;
		expect(notice).toEqual(expect.any(Number));
		const a1 = await sendMessage(as(alice), { type: "stream", to: "firsts", topic: "a", content: "1" });
		const b = await sendMessage(as(alice), { type: "stream", to: "firsts", topic: "b", content: "2" });
		const a2 = await sendMessage(as(alice), { type: "stream", to: "firsts", topic: "a", content: "3" });
		const register = { event_types: JSON.stringify(["stream", "delete_message"]), client_capabilities: JSON.stringify({ bulk_message_deletion: true }) };
		// Bob may see the public channel but had none of its messages: he hears of nothing.
		const queues = await eventQueues(as, [alice, bob], { register });
		const firstMessage = (value: number | null) => ({ type: "stream", op: "update", property: "first_message_id", value, stream_id: channel, name: "firsts" });
		const deletion = (ids: number[], topic: string) => ({ type: "delete_message", message_ids: ids, message_type: "stream", stream_id: channel, topic });

		// Not the first message: first_message_id stays, no stream event.
		expect((await deleteTopic(owner, channel, "a")).body.complete).toBe(true);
		expect(await queues(alice)).toEqual([deletion([a1, a2], "a")]);
		expect(await firstMessageOf(channel)).toBe(notice);

		// The notice's topic: the first message is now the oldest one left.
		expect((await deleteTopic(owner, channel, "channel events")).body.complete).toBe(true);
		expect(await queues(alice)).toEqual([firstMessage(b), deletion([notice], "channel events")]);
		expect(await firstMessageOf(channel)).toBe(b);
		const streams = (await as(alice).post("/register", { fetch_event_types: ["subscription"] })).body.subscriptions as Array<{ stream_id: number; first_message_id: number | null }>;
		expect(streams.find((s) => s.stream_id === channel)?.first_message_id).toBe(b);

		// DELETE /messages/{id} of the last message: null.
		expectSuccess(await owner.delete(`/messages/${b}`));
		expect(await queues(alice)).toEqual([firstMessage(null), deletion([b], "b")]);
		expect(await firstMessageOf(channel)).toBeNull();
		expect(await queues(bob)).toEqual([]);

		// A new message is the channel's first again.
		const again = await sendMessage(as(alice), { type: "stream", to: "firsts", topic: "c", content: "4" });
		for (let i = 0; i < 100 && (await firstMessageOf(channel)) !== again; i++) await new Promise((r) => setTimeout(r, 20));
		expect(await firstMessageOf(channel)).toBe(again);
	});

	test("administrators only, of channels they may read; bad input changes nothing", async () => {
		await sendMessage(as(alice), { type: "stream", to: "general", topic: "keep me", content: "hello" });
		// Refused requests leave the topic's policies too (the snapshots hold them).
		await setPolicy(alice, general, "keep me", 3);
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
