// Message reports (POST /messages/{message_id}/report, the moderation service): Zulip's errors
// for every bad input, each changing nothing; the report posted by Notification Bot into the
// moderation request channel in Zulip's exact format (channel messages, direct messages, one's
// own messages, a group conversation, a message holding a code fence, a channel that allows only
// the general chat); the stored report; the hourly quota per reporter; and reporting turned off
// when the channel is archived; the service on nodes of its own, two replicas sharing the quota.
import mongoose from "mongoose";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, dropNotices, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, diffSnapshots, type Snapshotter } from "../support/db-snapshot";
import { clock } from "../../shared/clock";
import { startNode, type RunningNode } from "../../services";

let app: TestApp;
let snaps: Snapshotter;
let owner: Client;
let alice: Account;
let bob: Account;
let carol: Account;
let general: number;
let secret: number;
let modChannel: number;
const as = (a: Account) => client(app.baseUrl, a);
const BOT_EMAIL = "notification-bot@zulip.com";

const iso = (ts: number) => new Date(ts * 1000).toISOString().replace(/\.000Z$/, "+00:00");

async function channelId(name: string) {
	return (await owner.get("/get_stream_id", { stream: name })).body.stream_id as number;
}

/** The newest messages of the moderation request channel, as Markdown. */
async function notices(n = 1) {
	const res = await owner.get("/messages", { anchor: "newest", num_before: n, num_after: 0, apply_markdown: false, narrow: [{ operator: "channel", operand: modChannel }] });
	expectSuccess(res);
	return res.body.messages as Array<{ id: number; content: string; subject: string; sender_email: string }>;
}

async function timestampOf(id: number, reader: Client = owner) {
	const res = await reader.get(`/messages/${id}`);
	expectSuccess(res);
	return res.body.message.timestamp as number;
}

async function reports() {
	const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
	try {
		return await conn.useDb(`${app.node.config.dbPrefix}_moderation`).collection("reports").find({}).sort({ _id: 1 }).toArray();
	} finally {
		await conn.close();
	}
}

/** Runs a refused request and checks that no database changed. */
const mention = (name: string, id: number) => `@_**${name}|${id}**`;

beforeAll(async () => {
	app = await startTestApp();
	snaps = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice Reporter" });
	bob = await app.createUser({ full_name: "Bob Sender" });
	carol = await app.createUser({ full_name: "Carol Third" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id, carol.user_id, app.owner.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true, principals: [bob.user_id, app.owner.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "moderation" }], invite_only: true, principals: [app.owner.user_id] }));
	general = await channelId("general");
	secret = await channelId("secret");
	modChannel = await channelId("moderation");
});

afterAll(async () => {
	clock.reset();
	await snaps?.close();
	await app?.stop();
});

describe("before a moderation request channel is set", () => {
	test("reporting is refused, and realm_moderation_request_channel_id is -1", async () => {
		const id = await sendMessage(as(bob), { type: "stream", to: general, topic: "t", content: "hello" });
		await snaps.refused(() => as(alice).post(`/messages/${id}/report`, { report_type: "spam" }), 400, "BAD_REQUEST", "Message reporting is not enabled in this organization.");
		const reg = await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
		expect(reg.body.realm_moderation_request_channel_id).toBe(-1);
	});
});

describe("reports", () => {
	beforeAll(async () => {
		expectSuccess(await owner.patch("/realm", { moderation_request_channel_id: modChannel }));
	});

	test("a channel message: Notification Bot posts Zulip's report in the reported user's topic, and the report is stored", async () => {
		const id = await sendMessage(as(bob), { type: "stream", to: general, topic: "lunch", content: "buy **now**" });
		const ts = await timestampOf(id);
		const reg = await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
		expect(reg.body.realm_moderation_request_channel_id).toBe(modChannel);
		expectSuccess(await as(alice).post(`/messages/${id}/report`, { report_type: "spam", description: "Selling things" }));
		const [notice] = await notices();
		expect(notice.sender_email).toBe(BOT_EMAIL);
		expect(notice.subject).toBe("Bob Sender moderation");
		expect(notice.content).toBe(
			`${mention("Alice Reporter", alice.user_id)} reported a message sent by ${mention("Bob Sender", bob.user_id)} at <time:${iso(ts)}>.\n` +
				"```quote\n**Spam**. Selling things\n```\n\n" +
				`\`\`\` spoiler Original message at #**general>lunch@${id}**\nbuy **now**\n\`\`\``,
		);
		const stored = (await reports()).at(-1)!;
		expect(stored).toMatchObject({ reporter_id: alice.user_id, message_id: id, reported_user_id: bob.user_id, report_type: "spam", description: "Selling things", notice_message_id: notice.id, channel_id: modChannel });
	});

	test("each reason's wording; `other` needs a description", async () => {
		const id = await sendMessage(as(bob), { type: "stream", to: general, topic: "lunch", content: "x" });
		const reasons: Record<string, string> = { harassment: "Harassment", inappropriate: "Inappropriate content", norms: "Violates community norms", other: "Other reason" };
		for (const [type, label] of Object.entries(reasons)) {
			expectSuccess(await as(carol).post(`/messages/${id}/report`, { report_type: type, description: "why" }));
			expect((await notices())[0].content).toContain(`\`\`\`quote\n**${label}**. why\n\`\`\``);
		}
		// Without a description the quote holds the reason alone.
		expectSuccess(await as(carol).post(`/messages/${id}/report`, { report_type: "norms" }));
		expect((await notices())[0].content).toContain("```quote\n**Violates community norms**. \n```");
	});

	test("a direct message: the link to it; one's own message names its recipient", async () => {
		const id = await sendMessage(as(bob), { type: "direct", to: [alice.user_id], content: "rude words" });
		const ts = await timestampOf(id, as(alice));
		const pair = [alice.user_id, bob.user_id].sort((a, b) => a - b).join(",");
		expectSuccess(await as(alice).post(`/messages/${id}/report`, { report_type: "harassment", description: "" }));
		expect((await notices())[0].content).toBe(
			`${mention("Alice Reporter", alice.user_id)} reported a message sent by ${mention("Bob Sender", bob.user_id)} at <time:${iso(ts)}>.\n` +
				"```quote\n**Harassment**. \n```\n\n" +
				`\`\`\` spoiler [Original message](http://chat.test/#narrow/dm/${pair}-pm/near/${id})\nrude words\n\`\`\``,
		);
		// Zulip lets a user report their own message; the header then names who it went to.
		expectSuccess(await as(bob).post(`/messages/${id}/report`, { report_type: "other", description: "I regret it" }));
		expect((await notices())[0].content.split("\n")[0]).toBe(
			`${mention("Bob Sender", bob.user_id)} reported a message sent by ${mention("Bob Sender", bob.user_id)} to ${mention("Alice Reporter", alice.user_id)} at <time:${iso(ts)}>.`,
		);
	});

	test("a group conversation lists the other recipients; a code fence in the message gets a longer fence", async () => {
		const content = "look:\n```\ncode\n```";
		const id = await sendMessage(as(bob), { type: "direct", to: [alice.user_id, carol.user_id], content });
		const ts = await timestampOf(id, as(alice));
		const group = [alice.user_id, bob.user_id, carol.user_id].sort((a, b) => a - b).join(",");
		expectSuccess(await as(carol).post(`/messages/${id}/report`, { report_type: "spam" }));
		const others = [alice, carol].sort((a, b) => a.user_id - b.user_id).map((u) => mention(u === alice ? "Alice Reporter" : "Carol Third", u.user_id));
		expect((await notices())[0].content).toBe(
			`${mention("Carol Third", carol.user_id)} reported a message sent by ${mention("Bob Sender", bob.user_id)} to ${others.join(" and ")} at <time:${iso(ts)}>.\n` +
				"```quote\n**Spam**. \n```\n\n" +
				`\`\`\`\` spoiler [Original message](http://chat.test/#narrow/dm/${group}-group/near/${id})\n${content}\n\`\`\`\``,
		);
	});

	test("bad input: Zulip's error, nothing changes", async () => {
		const id = await sendMessage(as(bob), { type: "stream", to: general, topic: "t", content: "y" });
		const hidden = await sendMessage(as(bob), { type: "stream", to: secret, topic: "t", content: "private" });
		const report = (mid: unknown, params: Record<string, unknown>) => () => as(alice).post(`/messages/${mid}/report`, params);
		await snaps.refused(report(id, {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'report_type' argument");
		await snaps.refused(report(id, { report_type: "rude" }), 400, "BAD_REQUEST", "Invalid report_type");
		await snaps.refused(report(id, { report_type: "other" }), 400, "BAD_REQUEST", "An explanation is required.");
		await snaps.refused(report(id, { report_type: "other", description: "" }), 400, "BAD_REQUEST", "An explanation is required.");
		await snaps.refused(report(id, { report_type: "spam", description: "x".repeat(1001) }), 400, "BAD_REQUEST", "description is too long (limit: 1000 characters)");
		await snaps.refused(report(id + 100_000, { report_type: "spam" }), 400, "BAD_REQUEST", "Invalid message(s)");
		await snaps.refused(report(hidden, { report_type: "spam" }), 400, "BAD_REQUEST", "Invalid message(s)");
		// A path that is not a message ID matches no route, as in Zulip.
		await snaps.refused(report("abc", { report_type: "spam" }), 404, "NOT_FOUND", /./);
		await snaps.refused(() => client(app.baseUrl).post(`/messages/${id}/report`, { report_type: "spam" }), 401, "UNAUTHORIZED", /./);
		// 1000 characters is allowed.
		expectSuccess(await as(alice).post(`/messages/${id}/report`, { report_type: "spam", description: "x".repeat(1000) }));
	});

	test("a channel that allows only the general chat gets the report there", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "mods-general" }], invite_only: true, topics_policy: "empty_topic_only" }));
		const generalOnly = await channelId("mods-general");
		expectSuccess(await owner.patch("/realm", { moderation_request_channel_id: generalOnly }));
		const id = await sendMessage(as(bob), { type: "stream", to: general, topic: "t", content: "z" });
		expectSuccess(await as(alice).post(`/messages/${id}/report`, { report_type: "spam" }));
		const res = await owner.get("/messages", { anchor: "newest", num_before: 1, num_after: 0, apply_markdown: false, allow_empty_topic_name: true, narrow: [{ operator: "channel", operand: generalOnly }] });
		expect(res.body.messages.map((m: any) => [m.subject, m.sender_email])).toEqual([["", BOT_EMAIL]]);
		expectSuccess(await owner.patch("/realm", { moderation_request_channel_id: modChannel }));
	});

	test("each reporter may file 10 reports an hour; the eleventh is 429 and changes nothing", async () => {
		// Start at the beginning of an hour, so the ten reports share one.
		const now = clock.now();
		clock.advance(((Math.floor(now / 3600) + 1) * 3600 + 1 - now) * 1000);
		const id = await sendMessage(as(bob), { type: "stream", to: general, topic: "t", content: "spam spam" });
		for (let i = 0; i < 10; i++) expectSuccess(await as(carol).post(`/messages/${id}/report`, { report_type: "spam" }));
		const before = await snaps.take();
		const res = await as(carol).post(`/messages/${id}/report`, { report_type: "spam" });
		expectError(res, 429, "RATE_LIMIT_HIT");
		expect(res.body["retry-after"]).toBeGreaterThan(3000);
		expect(diffSnapshots(before, await snaps.take())).toEqual([]);
		// Another reporter is not affected; the next hour the reporter may report again.
		expectSuccess(await as(alice).post(`/messages/${id}/report`, { report_type: "spam" }));
		clock.advance(3600_000);
		expectSuccess(await as(carol).post(`/messages/${id}/report`, { report_type: "spam" }));
	});

	test("an archived moderation request channel turns reporting off", async () => {
		const id = await sendMessage(as(bob), { type: "stream", to: general, topic: "t", content: "w" });
		expectSuccess(await owner.delete(`/streams/${modChannel}`));
		await snaps.refused(() => as(alice).post(`/messages/${id}/report`, { report_type: "spam" }), 400, "BAD_REQUEST", "Message reporting is not enabled in this organization.");
	});
});

describe("the moderation service on its own nodes", () => {
	let app2: TestApp;
	const replicas: RunningNode[] = [];

	beforeAll(async () => {
		// The main node runs every service but moderation; two nodes run only moderation.
		app2 = await startTestApp({ transporter: "Fake", services: ["api", "users", "channels", "messages", "events"] });
		for (const name of ["mod1", "mod2"]) replicas.push(await startNode({ ...app2.node.config, services: ["moderation"] }, name));
		await app2.node.broker.waitForServices(["moderation"]);
	});
	afterAll(async () => {
		for (const r of replicas) await r.stop();
		await app2?.stop();
	});

	test("reports work across the bus, and 12 concurrent reports over two replicas keep the quota of 10", async () => {
		const boss = client(app2.baseUrl, app2.owner);
		const reporter = await app2.createUser({ full_name: "Quick Reporter" });
		expectSuccess(await boss.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [reporter.user_id, app2.owner.user_id] }));
		expectSuccess(await boss.post("/users/me/subscriptions", { subscriptions: [{ name: "mods" }], invite_only: true }));
		const mods = (await boss.get("/get_stream_id", { stream: "mods" })).body.stream_id;
		await dropNotices(boss, mods);
		const generalId = (await boss.get("/get_stream_id", { stream: "general" })).body.stream_id;
		expectSuccess(await boss.patch("/realm", { moderation_request_channel_id: mods }));
		const id = await sendMessage(boss, { type: "stream", to: generalId, topic: "t", content: "hello" });
		// Start at the beginning of an hour, so every report shares one.
		const now = clock.now();
		clock.advance(((Math.floor(now / 3600) + 1) * 3600 + 1 - now) * 1000);
		const reporterClient = client(app2.baseUrl, reporter);
		const results = await Promise.all(Array.from({ length: 12 }, () => reporterClient.post(`/messages/${id}/report`, { report_type: "spam" })));
		expect(results.map((r) => r.status).sort()).toEqual([...Array(10).fill(200), 429, 429]);
		const posted = await boss.get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [{ operator: "channel", operand: mods }] });
		expect(posted.body.messages.filter((m: any) => m.sender_email === BOT_EMAIL)).toHaveLength(10);
	});
});
