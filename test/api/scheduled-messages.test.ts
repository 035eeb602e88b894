// Scheduled messages through HTTP: creating, listing, editing and deleting with Zulip's errors
// for every bad input (nothing changes), POST /register, delivery at the scheduled time by the
// sender (the node-cron job ticks every second here), failure when the sender lost access, was
// deactivated or the message is too late, with Notification Bot's notice, and exactly-once
// delivery with two scheduling replicas (a second node running only `scheduling`, joined over
// Moleculer's in-process Fake transporter) racing for the same messages, a claim left by a replica
// that died (taken back, sent once), and messages that fell due while no replica ran.
import mongoose from "mongoose";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { startNode, type RunningNode } from "../../services";
import type { Identity } from "../../shared/actions";
import { clock } from "../../shared/clock";

let app: TestApp;
let replica2: RunningNode;
let replica3: RunningNode | undefined;
let owner: Client;
let alice: Account;
let bob: Account;
let guest: Account;
const as = (a: Account) => client(app.baseUrl, a);
let general: number;
let vault: number;
let strict: number;

const TICK_MS = 1000;
const CLAIM_TIMEOUT_SECONDS = 60;
const later = (seconds = 3600) => Math.floor(Date.now() / 1000) + seconds;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listOf(c: Client) {
	const res = await c.get("/scheduled_messages");
	expectSuccess(res);
	return res.body.scheduled_messages;
}

async function topicMessages(c: Client, channelId: number, topic: string) {
	const res = await c.get("/messages", {
		anchor: "newest",
		num_before: 100,
		num_after: 0,
		narrow: [
			{ operator: "channel", operand: channelId },
			{ operator: "topic", operand: topic },
		],
	});
	expectSuccess(res);
	return res.body.messages;
}

const BOT_EMAIL = "notification-bot@zulip.com";

/** The user's direct messages from Notification Bot, oldest first, as Markdown and as HTML. */
async function botNotices(a: Account) {
	const query = (apply_markdown: boolean) => as(a).get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [{ operator: "is", operand: "dm" }], apply_markdown });
	const [raw, html] = await Promise.all([query(false), query(true)]);
	expectSuccess(raw);
	expectSuccess(html);
	return raw.body.messages
		.filter((m: any) => m.sender_email === BOT_EMAIL)
		.map((m: any) => ({
			content: m.content,
			html: html.body.messages.find((h: any) => h.id === m.id).content,
			// A direct message between the bot and the user alone.
			alone: m.display_recipient.map((r: any) => r.id).sort().join() === [m.sender_id, a.user_id].sort().join(),
		}));
}

/** Zulip's notice for a failed scheduled message, as Markdown and as rendered. */
function expectedNotice(timestamp: number, reason: string) {
	const iso = new Date(timestamp * 1000).toISOString().replace(/\.000Z$/, "");
	return {
		content: `The message you scheduled for <time:${iso}+00:00> was not sent because of the following error:\n\n> ${reason}\n\n[View scheduled messages](#scheduled)`,
		html:
			`<p>The message you scheduled for <time datetime="${iso}Z">${iso}+00:00</time> was not sent because of the following error:</p>\n` +
			`<blockquote>\n<p>${reason}</p>\n</blockquote>\n<p><a href="#scheduled" target="_blank" rel="noopener noreferrer">View scheduled messages</a></p>`,
	};
}

/** The scheduling database, read and written through the driver (a replica's leftovers). */
async function schedulingDb() {
	const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
	return { conn, messages: conn.useDb(`${app.node.config.dbPrefix}_scheduling`).collection("scheduled_messages") };
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
	const until = Date.now() + ms;
	for (;;) {
		const v = await probe();
		if (v !== undefined) return v;
		if (Date.now() > until) throw new Error("timed out");
		await sleep(100);
	}
}

beforeAll(async () => {
	app = await startTestApp({ transporter: "Fake", schedulingCron: "* * * * * *", schedulingClaimTimeoutSeconds: CLAIM_TIMEOUT_SECONDS });
	replica2 = await startNode({ ...app.node.config, services: ["scheduling"] }, "replica2");
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ full_name: "Guest", role: 600 });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true, principals: [alice.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "strict" }], topics_policy: "disable_empty_topic", principals: [alice.user_id] }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	vault = (await owner.get("/get_stream_id", { stream: "vault" })).body.stream_id;
	strict = (await owner.get("/get_stream_id", { stream: "strict" })).body.stream_id;
});
afterAll(async () => {
	clock.reset();
	await replica3?.stop();
	await replica2?.stop();
	await app.stop();
});

describe("create, list, edit, delete", () => {
	test("a channel message and a direct message, listed in Zulip's shape, soonest first, per user", async () => {
		const t1 = later(7200);
		const t2 = later(3600);
		const a = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "plans", content: "**Hello**", scheduled_delivery_timestamp: t1 });
		expectSuccess(a);
		const b = await as(alice).post("/scheduled_messages", { type: "direct", to: [bob.user_id], content: "psst", scheduled_delivery_timestamp: t2 });
		expectSuccess(b);
		expect(await listOf(as(alice))).toEqual([
			{ scheduled_message_id: b.body.scheduled_message_id, type: "private", to: [bob.user_id], content: "psst", rendered_content: "<p>psst</p>", scheduled_delivery_timestamp: t2, failed: false },
			{
				scheduled_message_id: a.body.scheduled_message_id,
				type: "stream",
				to: general,
				topic: "plans",
				content: "**Hello**",
				rendered_content: "<p><strong>Hello</strong></p>",
				scheduled_delivery_timestamp: t1,
				failed: false,
			},
		]);
		expect(await listOf(as(bob))).toEqual([]);
		const reg = await as(alice).post("/register", { fetch_event_types: ["scheduled_messages"] });
		expectSuccess(reg);
		expect(reg.body.scheduled_messages).toEqual(await listOf(as(alice)));
		for (const id of [a.body.scheduled_message_id, b.body.scheduled_message_id]) expectSuccess(await as(alice).delete(`/scheduled_messages/${id}`));
		expect(await listOf(as(alice))).toEqual([]);
	});

	test("aliases, JSON bodies, `(no topic)` as the empty topic, and a message to oneself", async () => {
		const res = await as(alice).post("/scheduled_messages", { type: "channel", to: [general], topic: "(no topic)", content: "x", scheduled_delivery_timestamp: later() }, { json: true });
		expectSuccess(res);
		const self = await as(alice).post("/scheduled_messages", { type: "private", to: JSON.stringify([alice.user_id]), content: "note", scheduled_delivery_timestamp: later() });
		expectSuccess(self);
		const listed = await listOf(as(alice));
		expect(listed.find((m: any) => m.scheduled_message_id === res.body.scheduled_message_id)).toMatchObject({ type: "stream", to: general, topic: "" });
		expect(listed.find((m: any) => m.scheduled_message_id === self.body.scheduled_message_id)).toMatchObject({ type: "private", to: [alice.user_id] });
		for (const m of listed) expectSuccess(await as(alice).delete(`/scheduled_messages/${m.scheduled_message_id}`));
	});

	test("every bad creation gets Zulip's error and stores nothing", async () => {
		const good = { type: "stream", to: general, topic: "t", content: "hi", scheduled_delivery_timestamp: later() };
		const cases: Array<[Record<string, unknown>, number, string, string | RegExp | undefined, Account?]> = [
			[{ ...good, type: "carrier-pigeon" }, 400, "BAD_REQUEST", undefined],
			[{ ...good, content: undefined }, 400, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument"],
			[{ ...good, to: undefined }, 400, "REQUEST_VARIABLE_MISSING", "Missing 'to' argument"],
			[{ ...good, scheduled_delivery_timestamp: undefined }, 400, "REQUEST_VARIABLE_MISSING", "Missing 'scheduled_delivery_timestamp' argument"],
			[{ ...good, scheduled_delivery_timestamp: "soon" }, 400, "BAD_REQUEST", "scheduled_delivery_timestamp is not an integer"],
			[{ ...good, scheduled_delivery_timestamp: later(-60) }, 400, "BAD_REQUEST", "Scheduled delivery time must be in the future."],
			[{ ...good, scheduled_delivery_timestamp: 10 ** 15 }, 400, "BAD_REQUEST", undefined],
			[{ ...good, read_by_sender: "maybe" }, 400, "BAD_REQUEST", "read_by_sender is not a boolean"],
			[{ ...good, to: 999_999 }, 400, "STREAM_DOES_NOT_EXIST", "Channel with ID '999999' does not exist"],
			[{ ...good, to: vault }, 400, "STREAM_DOES_NOT_EXIST", undefined, bob],
			[{ ...good, to: general }, 400, "STREAM_DOES_NOT_EXIST", undefined, guest],
			[{ ...good, to: [general, vault] }, 400, "BAD_REQUEST", undefined],
			[{ ...good, to: "general" }, 400, "BAD_REQUEST", "Invalid data type for channel"],
			[{ ...good, type: "direct", to: [999_999] }, 400, "BAD_REQUEST", /Invalid user ID/],
			[{ ...good, type: "direct", to: ["bob@chat.test"] }, 400, "BAD_REQUEST", "Invalid data type for recipients"],
			[{ ...good, topic: "x".repeat(61) }, 400, "BAD_REQUEST", "Topic too long (limit: 60 characters)"],
			[{ ...good, content: "x".repeat(10_001) }, 400, "BAD_REQUEST", "Message too long (limit: 10000 characters)"],
			[{ ...good, content: "   " }, 400, "BAD_REQUEST", "Message must not be empty"],
			[{ ...good, to: strict, topic: "(no topic)" }, 400, "BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel."],
			[{ ...good, to: strict, topic: "" }, 400, "BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel."],
		];
		for (const [body, status, code, msg, who] of cases) {
			const res = await as(who ?? alice).post("/scheduled_messages", body);
			expectError(res, status, code, msg);
			if (code === "STREAM_DOES_NOT_EXIST") expect(typeof res.body.stream_id).toBe("number");
			expect(await listOf(as(who ?? alice))).toEqual([]);
		}
	});

	test("editing: any subset of the fields, Zulip's rules for changing type, every error changing nothing", async () => {
		const t = later();
		const id = (await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "a", content: "one", scheduled_delivery_timestamp: t })).body.scheduled_message_id;
		const before = await listOf(as(alice));
		const errors: Array<[Record<string, unknown>, number, string, string | RegExp | undefined, Account?, number?]> = [
			[{}, 400, "BAD_REQUEST", "Nothing to change"],
			[{ type: "direct" }, 400, "BAD_REQUEST", "Recipient required when updating type of scheduled message."],
			[{ type: "channel", to: vault }, 400, "BAD_REQUEST", "Topic required when updating scheduled message type to stream."],
			[{ scheduled_delivery_timestamp: later(-5) }, 400, "BAD_REQUEST", "Scheduled delivery time must be in the future."],
			[{ content: "" }, 400, "BAD_REQUEST", "Message must not be empty"],
			[{ topic: "y".repeat(61) }, 400, "BAD_REQUEST", "Topic too long (limit: 60 characters)"],
			[{ type: "stream", to: 999_999, topic: "z" }, 400, "STREAM_DOES_NOT_EXIST", undefined],
			[{ type: "direct", to: [999_999] }, 400, "BAD_REQUEST", /Invalid user ID/],
			[{ to: strict, topic: "" }, 400, "BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel."],
			[{ type: "whatever", to: general }, 400, "BAD_REQUEST", undefined],
			[{ content: "mine" }, 404, "BAD_REQUEST", "Scheduled message does not exist", bob],
			[{ content: "gone" }, 404, "BAD_REQUEST", "Scheduled message does not exist", alice, 999_999],
		];
		for (const [body, status, code, msg, who, target] of errors) {
			expectError(await as(who ?? alice).patch(`/scheduled_messages/${target ?? id}`, body), status, code, msg);
			expect(await listOf(as(alice))).toEqual(before);
		}
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { content: "*two*" }));
		expect((await listOf(as(alice)))[0]).toMatchObject({ topic: "a", content: "*two*", rendered_content: "<p><em>two</em></p>", scheduled_delivery_timestamp: t });
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { topic: "b", scheduled_delivery_timestamp: t + 60 }));
		expect((await listOf(as(alice)))[0]).toMatchObject({ topic: "b", content: "*two*", scheduled_delivery_timestamp: t + 60 });
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { type: "direct", to: [bob.user_id] }));
		expect((await listOf(as(alice)))[0]).toEqual({
			scheduled_message_id: id,
			type: "private",
			to: [bob.user_id],
			content: "*two*",
			rendered_content: "<p><em>two</em></p>",
			scheduled_delivery_timestamp: t + 60,
			failed: false,
		});
		// A topic alone is ignored for a direct message, as in Zulip.
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { topic: "ignored" }));
		expect((await listOf(as(alice)))[0]).not.toHaveProperty("topic");
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { type: "stream", to: general, topic: "back" }));
		expect((await listOf(as(alice)))[0]).toMatchObject({ type: "stream", to: general, topic: "back" });

		expectError(await as(bob).delete(`/scheduled_messages/${id}`), 404, "BAD_REQUEST", "Scheduled message does not exist");
		expectError(await as(alice).delete(`/scheduled_messages/999999`), 404, "BAD_REQUEST", "Scheduled message does not exist");
		expect(await listOf(as(alice))).toHaveLength(1);
		expectSuccess(await as(alice).delete(`/scheduled_messages/${id}`));
		expectError(await as(alice).delete(`/scheduled_messages/${id}`), 404, "BAD_REQUEST", "Scheduled message does not exist");
		expect(await listOf(as(alice))).toEqual([]);
	});
});

describe("delivery", () => {
	test("at the scheduled time the sender's message arrives, once, and leaves the list", async () => {
		const res = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "delivery", content: "on time", scheduled_delivery_timestamp: later(2) });
		expectSuccess(res);
		const [message] = await waitFor(async () => {
			const found = await topicMessages(as(bob), general, "delivery");
			return found.length ? found : undefined;
		});
		expect(message).toMatchObject({ sender_id: alice.user_id, content: "<p>on time</p>", subject: "delivery" });
		// Zulip's heuristic: not to oneself alone, so it starts read for the sender.
		const mine = await topicMessages(as(alice), general, "delivery");
		expect(mine[0].flags).toContain("read");
		expect(await listOf(as(alice))).toEqual([]);
		await sleep(TICK_MS * 2);
		expect(await topicMessages(as(bob), general, "delivery")).toHaveLength(1);
	});

	test("two replicas racing over the same due messages deliver each exactly once", async () => {
		const due = later(2);
		const ids: number[] = [];
		for (let i = 0; i < 5; i++) {
			const res = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "race", content: `race ${i}`, scheduled_delivery_timestamp: due });
			expectSuccess(res);
			ids.push(res.body.scheduled_message_id);
		}
		// Both nodes' timers run too; at the due time both replicas are also asked to sweep at once.
		await sleep(Math.max(0, due * 1000 - Date.now()) + 20);
		const sweeps = await Promise.all([
			app.node.broker.call<{ delivered: number[] }, { replica: string }>("scheduling.sweep", { replica: "a" }, { nodeID: app.node.broker.nodeID }),
			replica2.broker.call<{ delivered: number[] }, { replica: string }>("scheduling.sweep", { replica: "b" }, { nodeID: replica2.broker.nodeID }),
			app.node.broker.call<{ delivered: number[] }, { replica: string }>("scheduling.sweep", { replica: "c" }, { nodeID: replica2.broker.nodeID }),
		]);
		const claimedTwice = sweeps.flatMap((s) => s.delivered).filter((id, i, all) => all.indexOf(id) !== i);
		expect(claimedTwice).toEqual([]);
		const messages = await waitFor(async () => {
			const found = await topicMessages(as(bob), general, "race");
			return found.length >= 5 ? found : undefined;
		});
		await sleep(TICK_MS * 2);
		const after = await topicMessages(as(bob), general, "race");
		expect(after.map((m: any) => m.content).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `<p>race ${i}</p>`));
		expect(after).toHaveLength(messages.length);
		expect((await listOf(as(alice))).filter((m: any) => ids.includes(m.scheduled_message_id))).toEqual([]);
	});

	test("the send is idempotent: a repeated delivery answers the first message", async () => {
		const me = await app.node.broker.call<Identity, { email: string; api_key: string }>("users.authenticate", { email: alice.email, api_key: alice.api_key });
		const send = () =>
			app.node.broker.call<{ id: number; repeated: boolean }, Record<string, unknown>>(
				"messages.sendScheduled",
				{ type: "channel", to: general, topic: "idem", content: "only once", read_by_sender: true, idempotency_key: "scheduled:test-1" },
				{ meta: { user: me } },
			);
		const [a, b] = await Promise.all([send(), send()]);
		const c = await send();
		expect(new Set([a.id, b.id, c.id]).size).toBe(1);
		expect(c.repeated).toBe(true);
		expect(await topicMessages(as(bob), general, "idem")).toHaveLength(1);
		// Notification Bot's notices take a key too.
		const notify = () =>
			app.node.broker.call<{ id: number; repeated: boolean }, Record<string, unknown>>(
				"messages.notifyUser",
				{ user_id: bob.user_id, content: "only one notice", idempotency_key: "test-notice-1" },
				{ meta: { user: me } },
			);
		const [n1, n2] = await Promise.all([notify(), notify()]);
		expect(n1.id).toBe(n2.id);
		expect((await notify()).repeated).toBe(true);
		expect((await botNotices(bob)).filter((n: any) => n.content === "only one notice")).toHaveLength(1);
	});

	test("a sender who lost access: failed, still listed; editing needs a new time and schedules it again", async () => {
		const res = await as(alice).post("/scheduled_messages", { type: "stream", to: vault, topic: "secret", content: "for the vault", scheduled_delivery_timestamp: later(2) });
		expectSuccess(res);
		const id = res.body.scheduled_message_id;
		expectSuccess(await owner.delete("/users/me/subscriptions", { subscriptions: ["vault"], principals: [alice.user_id] }));
		const failed = await waitFor(async () => (await listOf(as(alice))).find((m: any) => m.scheduled_message_id === id && m.failed));
		expect(failed).toMatchObject({ type: "stream", to: vault, topic: "secret", failed: true });
		expect(await topicMessages(owner, vault, "secret")).toEqual([]);
		// Notification Bot tells the sender, in Zulip's words, with the reason.
		const notices = await waitFor(async () => {
			const found = await botNotices(alice);
			return found.length ? found : undefined;
		});
		expect(notices).toHaveLength(1);
		expect(notices[0]).toMatchObject({ alone: true, ...expectedNotice(failed.scheduled_delivery_timestamp, `Channel with ID '${vault}' does not exist`) });
		expectError(await as(alice).patch(`/scheduled_messages/${id}`, { content: "again" }), 400, "BAD_REQUEST", "Scheduled delivery time must be in the future.");
		expectSuccess(await as(alice).patch(`/scheduled_messages/${id}`, { type: "stream", to: general, topic: "secret", scheduled_delivery_timestamp: later(3600) }));
		expect((await listOf(as(alice))).find((m: any) => m.scheduled_message_id === id)).toMatchObject({ to: general, failed: false });
		expectSuccess(await as(alice).delete(`/scheduled_messages/${id}`));
	});

	test("more than 10 minutes late (Zulip's cutoff): failed with Zulip's reason, and the notice", async () => {
		const t = later(3600);
		const res = await as(bob).post("/scheduled_messages", { type: "direct", to: [alice.user_id], content: "too late", scheduled_delivery_timestamp: t });
		expectSuccess(res);
		const id = res.body.scheduled_message_id;
		clock.advance((3600 + 11 * 60) * 1000);
		try {
			await waitFor(async () => (await listOf(as(bob))).find((m: any) => m.scheduled_message_id === id && m.failed));
		} finally {
			clock.reset();
		}
		const notices = await waitFor(async () => {
			const found = (await botNotices(bob)).filter((n: any) => n.content.startsWith("The message you scheduled"));
			return found.length ? found : undefined;
		});
		expect(notices).toEqual([{ alone: true, ...expectedNotice(t, "Message could not be sent at the scheduled time.") }]);
		const dms = await as(alice).get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [{ operator: "dm", operand: [bob.user_id] }] });
		expect(dms.body.messages).toEqual([]);
		expectSuccess(await as(bob).delete(`/scheduled_messages/${id}`));
	});

	test("a deactivated sender: failed with Zulip's reason, and no notice (as in Zulip)", async () => {
		const carol = await app.createUser({ full_name: "Carol" });
		const due = later(2);
		const res = await as(carol).post("/scheduled_messages", { type: "direct", to: [bob.user_id], content: "from beyond", scheduled_delivery_timestamp: due });
		expectSuccess(res);
		expectSuccess(await owner.delete(`/users/${carol.user_id}`));
		// Reactivated only once the delivery was tried (however late a busy machine's timer runs).
		const db = await schedulingDb();
		try {
			await waitFor(async () => (await db.messages.findOne({ _id: res.body.scheduled_message_id, state: "failed" })) ?? undefined);
		} finally {
			await db.conn.close();
		}
		expectSuccess(await owner.post(`/users/${carol.user_id}/reactivate`));
		expect(await listOf(as(carol))).toEqual([expect.objectContaining({ scheduled_message_id: res.body.scheduled_message_id, failed: true })]);
		expect(await botNotices(carol)).toEqual([]);
		const dms = await as(bob).get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [{ operator: "dm", operand: [carol.user_id] }] });
		expect(dms.body.messages).toEqual([]);
	});

	test("rules are checked again at delivery: an archived channel, a topic policy changed, a deactivated recipient", async () => {
		const dave = await app.createUser({ full_name: "Dave" });
		for (const name of ["doomed", "policy"]) expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], principals: [alice.user_id] }));
		const doomed = (await owner.get("/get_stream_id", { stream: "doomed" })).body.stream_id;
		const policy = (await owner.get("/get_stream_id", { stream: "policy" })).body.stream_id;
		const due = later(2);
		const ids: number[] = [];
		for (const body of [
			{ type: "stream", to: doomed, topic: "t", content: "to the archive" },
			{ type: "stream", to: policy, topic: "", content: "to the general chat" },
			{ type: "direct", to: [dave.user_id], content: "to Dave" },
		]) {
			const res = await as(alice).post("/scheduled_messages", { ...body, scheduled_delivery_timestamp: due });
			expectSuccess(res);
			ids.push(res.body.scheduled_message_id);
		}
		const before = (await botNotices(alice)).length;
		expectSuccess(await owner.delete(`/streams/${doomed}`));
		expectSuccess(await owner.patch(`/streams/${policy}`, { topics_policy: "disable_empty_topic" }));
		expectSuccess(await owner.delete(`/users/${dave.user_id}`));
		const failed = await waitFor(async () => {
			const mine = (await listOf(as(alice))).filter((m: any) => ids.includes(m.scheduled_message_id));
			return mine.length === 3 && mine.every((m: any) => m.failed) ? mine : undefined;
		});
		expect(failed.map((m: any) => m.scheduled_message_id).sort()).toEqual([...ids].sort());
		const notices = await waitFor(async () => {
			const found = (await botNotices(alice)).slice(before);
			return found.length >= 3 ? found : undefined;
		});
		// Each notice quotes its reason: the messages service's answer to the send, as to POST /messages.
		const reasons = notices.map((n: any) => n.content.split("\n\n")[1]);
		expect(reasons).toHaveLength(3);
		expect(reasons).toContain("> Sending messages to the general chat is not allowed in this channel.");
		// A deactivated recipient: Zulip's words, with the address as the API shows it.
		const daveEmail = (await as(alice).get(`/users/${dave.user_id}`)).body.user.email;
		expect(reasons).toContain(`> '${daveEmail}' is no longer using Zulip.`);
		expect(reasons.every((r: string) => /^> \S/.test(r))).toBe(true);
		expect(await topicMessages(as(alice), policy, "")).toEqual([]);
		for (const id of ids) expectSuccess(await as(alice).delete(`/scheduled_messages/${id}`));
	});

	test("global times in Markdown render as Zulip's <time> elements", async () => {
		const sent = await as(alice).post("/messages", { type: "stream", to: general, topic: "times", content: "<time:2024-08-06T17:00:00+01:00> <time:1732000000> <time:soon>" });
		expectSuccess(sent);
		const [m] = await topicMessages(as(alice), general, "times");
		expect(m.content).toBe(
			'<p><time datetime="2024-08-06T16:00:00Z">2024-08-06T17:00:00+01:00</time> <time datetime="2024-11-19T07:06:40Z">1732000000</time> <span class="timestamp-error">Invalid time format: soon</span></p>',
		);
	});
});

describe("replicas that die", () => {
	test("a claim left by a replica that died is taken back after the claim timeout, and sent once", async () => {
		const ids: number[] = [];
		for (const topic of ["stale a", "stale b"]) {
			const res = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic, content: topic, scheduled_delivery_timestamp: later(3600) });
			expectSuccess(res);
			ids.push(res.body.scheduled_message_id);
		}
		const { conn, messages } = await schedulingDb();
		try {
			// What a replica leaves when it dies mid-send: due messages claimed, one of them already sent.
			const left = { state: "sending", claimed_by: "dead-node/0", claimed_at: clock.nowMs(), scheduled_timestamp: clock.now() - 5 };
			await messages.updateMany({ _id: { $in: ids } } as never, { $set: left });
			const me = await app.node.broker.call<Identity, { email: string; api_key: string }>("users.authenticate", { email: alice.email, api_key: alice.api_key });
			const first = await app.node.broker.call<{ id: number }, Record<string, unknown>>(
				"messages.sendScheduled",
				{ type: "channel", to: general, topic: "stale a", content: "stale a", read_by_sender: true, idempotency_key: `scheduled:${ids[0]}` },
				{ meta: { user: me } },
			);
			// A claim younger than the timeout is left alone (its replica may still be sending).
			await sleep(TICK_MS * 2.5);
			expect((await listOf(as(alice))).map((m: any) => m.scheduled_message_id)).toEqual(expect.arrayContaining(ids));
			expect(await topicMessages(as(bob), general, "stale b")).toEqual([]);
			// Past it, a live replica takes both back: the sent one is answered by its first message.
			clock.advance((CLAIM_TIMEOUT_SECONDS + 1) * 1000);
			try {
				await waitFor(async () => ((await listOf(as(alice))).some((m: any) => ids.includes(m.scheduled_message_id)) ? undefined : true));
			} finally {
				clock.reset();
			}
			const [a] = await topicMessages(as(bob), general, "stale a");
			expect((await topicMessages(as(bob), general, "stale a")).map((m: any) => m.id)).toEqual([first.id]);
			expect(a.content).toBe("<p>stale a</p>");
			expect(await topicMessages(as(bob), general, "stale b")).toEqual([expect.objectContaining({ sender_id: alice.user_id, content: "<p>stale b</p>" })]);
			const docs = await messages.find({ _id: { $in: ids } } as never).sort({ _id: 1 }).toArray();
			expect(docs.map((d) => [d.state, d.claimed_by])).toEqual([
				["delivered", null],
				["delivered", null],
			]);
			expect(docs[0].delivered_message_id).toBe(first.id);
		} finally {
			await conn.close();
		}
	});

	test("a message an attempt sent, taken back too late: recognised as sent (the key before the cutoff), not failed", async () => {
		const res = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "sent late", content: "sent late", scheduled_delivery_timestamp: later(3600) });
		expectSuccess(res);
		const id = res.body.scheduled_message_id;
		const { conn, messages } = await schedulingDb();
		try {
			// A replica sent it, then died before marking it; the claim is taken back after the cutoff.
			await messages.updateOne({ _id: id } as never, { $set: { state: "sending", claimed_by: "dead-node/0", claimed_at: clock.nowMs(), scheduled_timestamp: clock.now() - 5 } });
			const me = await app.node.broker.call<Identity, { email: string; api_key: string }>("users.authenticate", { email: alice.email, api_key: alice.api_key });
			const first = await app.node.broker.call<{ id: number }, Record<string, unknown>>(
				"messages.sendScheduled",
				{ type: "channel", to: general, topic: "sent late", content: "sent late", read_by_sender: true, idempotency_key: `scheduled:${id}` },
				{ meta: { user: me } },
			);
			const before = (await botNotices(alice)).length;
			clock.advance((11 * 60 + CLAIM_TIMEOUT_SECONDS) * 1000);
			try {
				await waitFor(async () => ((await listOf(as(alice))).some((m: any) => m.scheduled_message_id === id) ? undefined : true));
			} finally {
				clock.reset();
			}
			const doc = await messages.findOne({ _id: id } as never);
			expect(doc).toMatchObject({ state: "delivered", delivered_message_id: first.id });
			expect((await topicMessages(as(bob), general, "sent late")).map((m: any) => m.id)).toEqual([first.id]);
			await sleep(TICK_MS);
			expect(await botNotices(alice)).toHaveLength(before);
		} finally {
			await conn.close();
		}
	});

	test("a message due while every scheduling replica was down is delivered when one comes back", async () => {
		const due = later(2);
		const res = await as(alice).post("/scheduled_messages", { type: "stream", to: general, topic: "comeback", content: "back", scheduled_delivery_timestamp: due });
		expectSuccess(res);
		for (const node of [app.node, replica2]) await node.broker.destroyService("scheduling");
		await sleep(due * 1000 - Date.now() + TICK_MS * 2);
		expect(await topicMessages(as(bob), general, "comeback")).toEqual([]);
		replica3 = await startNode({ ...app.node.config, services: ["scheduling"] }, "replica3");
		const [message] = await waitFor(async () => {
			const found = await topicMessages(as(bob), general, "comeback");
			return found.length ? found : undefined;
		});
		expect(message).toMatchObject({ sender_id: alice.user_id, content: "<p>back</p>" });
		await sleep(TICK_MS * 2);
		expect(await topicMessages(as(bob), general, "comeback")).toHaveLength(1);
		expect(await listOf(as(alice))).toEqual([]);
	});
});

describe("configuration", () => {
	test("a SCHEDULING_CRON that is no cron expression stops the service at start", async () => {
		await expect(startNode({ ...app.node.config, services: ["scheduling"], schedulingCron: "every minute" }, "badcron")).rejects.toThrow('SCHEDULING_CRON is not a cron expression: "every minute"');
	});
});
