// Topics followed or unmuted automatically by the users' settings: starting a topic, sending to
// it, reacting in it, being mentioned in it; and `automatic_new_visibility_policy` in the answer.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let carol: Account;
let general: number;
const as = (a: Account) => client(app.baseUrl, a);
const FOLLOWED = 3;
const UNMUTED = 2;

async function post(c: Client, topic: string, content = "hello", to: unknown = "general") {
	const res = await c.post("/messages", { type: "channel", to, topic, content });
	expectSuccess(res);
	return res.body as { id: number; automatic_new_visibility_policy?: number };
}
/** The user's policy for a topic of #general (0: none). */
async function policy(a: Account, topic: string): Promise<number> {
	const topics = (await as(a).post("/register", { fetch_event_types: ["user_topic"] })).body.user_topics;
	return topics.find((t: { stream_id: number; topic_name: string }) => t.stream_id === general && t.topic_name === topic)?.visibility_policy ?? 0;
}
const settings = async (a: Account, values: Record<string, unknown>) => expectSuccess(await as(a).patch("/settings", values));

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [1, alice.user_id, bob.user_id, carol.user_id] }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
});
afterAll(() => app.stop());

describe("by default", () => {
	test("starting a topic follows it, and the answer says so once", async () => {
		const first = await post(as(alice), "started");
		expect(first.automatic_new_visibility_policy).toBe(FOLLOWED);
		expect(await policy(alice, "started")).toBe(FOLLOWED);
		expect(await post(as(alice), "started")).not.toHaveProperty("automatic_new_visibility_policy");
		// Sending to someone else's topic does not follow it.
		expect(await post(as(bob), "started")).not.toHaveProperty("automatic_new_visibility_policy");
		expect(await policy(bob, "started")).toBe(0);
	});

	test("sending in a muted channel unmutes the topic; a followed topic stays followed", async () => {
		await post(as(alice), "in muted");
		expectSuccess(await as(bob).post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: general, property: "is_muted", value: true }] }));
		expect((await post(as(bob), "in muted")).automatic_new_visibility_policy).toBe(UNMUTED);
		expect(await policy(bob, "in muted")).toBe(UNMUTED);
		expect((await post(as(bob), "bob's own")).automatic_new_visibility_policy).toBe(FOLLOWED);
		expect(await post(as(bob), "bob's own")).not.toHaveProperty("automatic_new_visibility_policy");
		expect(await policy(bob, "bob's own")).toBe(FOLLOWED);
		expectSuccess(await as(bob).post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: general, property: "is_muted", value: false }] }));
	});

	test("being mentioned follows the topic; a silent mention does not", async () => {
		await post(as(alice), "mentions", `hey @**Carol|${carol.user_id}**`);
		expect(await policy(carol, "mentions")).toBe(FOLLOWED);
		await post(as(alice), "silent", `hey @_**Carol|${carol.user_id}**`);
		expect(await policy(carol, "silent")).toBe(0);
	});

	test("several first messages at once: all are sent, the topic is followed once", async () => {
		const sent = await Promise.all(Array.from({ length: 10 }, (_, i) => post(as(alice), "rush", `m${i}`)));
		expect(new Set(sent.map((s) => s.id)).size).toBe(10);
		expect(sent.some((s) => s.automatic_new_visibility_policy === FOLLOWED)).toBe(true);
		expect(await policy(alice, "rush")).toBe(FOLLOWED);
	});

	test("direct messages have no topic to follow", async () => {
		const res = await as(alice).post("/messages", { type: "direct", to: [bob.user_id], content: "psst" });
		expectSuccess(res);
		expect(res.body).not.toHaveProperty("automatic_new_visibility_policy");
	});
});

describe("by the user's settings", () => {
	test("never: starting a topic changes nothing", async () => {
		await settings(alice, { automatically_follow_topics_policy: 4 });
		expect(await post(as(alice), "never")).not.toHaveProperty("automatic_new_visibility_policy");
		expect(await policy(alice, "never")).toBe(0);
		await settings(alice, { automatically_follow_topics_policy: 3 });
	});

	test("on send: any topic sent to is followed, a muted one too", async () => {
		await post(as(alice), "muted by bob");
		expectSuccess(await as(bob).post("/user_topics", { stream_id: general, topic: "muted by bob", visibility_policy: 1 }));
		await settings(bob, { automatically_follow_topics_policy: 2 });
		expect((await post(as(bob), "muted by bob")).automatic_new_visibility_policy).toBe(FOLLOWED);
		expect(await policy(bob, "muted by bob")).toBe(FOLLOWED);
		await settings(bob, { automatically_follow_topics_policy: 3 });
	});

	test("reacting follows only when participating is the policy", async () => {
		const { id } = await post(as(alice), "reactions");
		expectSuccess(await as(carol).post(`/messages/${id}/reactions`, { emoji_name: "smile" }));
		expect(await policy(carol, "reactions")).toBe(0);
		await settings(carol, { automatically_follow_topics_policy: 1 });
		expectSuccess(await as(carol).post(`/messages/${id}/reactions`, { emoji_name: "tada" }));
		expect(await policy(carol, "reactions")).toBe(FOLLOWED);
	});

	test("mentions follow nothing when turned off", async () => {
		await settings(carol, { automatically_follow_topics_where_mentioned: false });
		await post(as(alice), "mentions off", `hey @**Carol|${carol.user_id}**`);
		expect(await policy(carol, "mentions off")).toBe(0);
	});
});
