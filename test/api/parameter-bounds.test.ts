// Parameters Zulip takes without a size bound of its own (identifiers a client makes up, event type
// names, values sent only to be ignored) are bounded here: one character or element over the bound
// is refused with a 400 naming the parameter and changes nothing; a value at the bound is taken.
import { startTestApp, type TestApp } from "../support/app";
import { client, expectSuccess, type Client, type Response } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { EVENT_TYPES_COUNT_MAX, IDENTIFIER_MAX, NAME_MAX, PASSWORD_PARAM_MAX, SERVICE_NAME_MAX, TOPIC_PARAM_MAX, USERNAME_MAX, WIDGET_CONTENT_MAX } from "../../shared/param-bounds";

let app: TestApp;
let snap: Snapshotter;
let owner: Client;
let channelId: number;

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "bounds" }] }));
	channelId = ((await owner.get("/streams")).body.streams as { name: string; stream_id: number }[]).find((s) => s.name === "bounds")!.stream_id;
	snap = await snapshotter(app);
}, 60_000);

afterAll(async () => {
	await snap?.close();
	await app?.stop();
});

/** The body of a successful answer. */
const ok = (res: Response) => {
	expectSuccess(res);
	return res.body;
};
const long = (n: number) => "x".repeat(n);
const tooLong = (name: string, limit: number) => `${name} is too long (limit: ${limit} characters)`;
const refused = (request: () => Promise<any>, msg: string) => snap.refused(request, 400, "BAD_REQUEST", msg);
const send = (extra: Record<string, unknown>) => owner.post("/messages", { type: "channel", to: channelId, topic: "bounds", content: "hello", ...extra });
const topicOf = async (id: number) => (await owner.get(`/messages/${id}`)).body.message.subject as string;

describe("POST /messages", () => {
	test("local_id and queue_id: over the bound refused, at the bound taken", async () => {
		const { queue_id } = ok(await owner.post("/register", { event_types: JSON.stringify(["message"]) }));
		await refused(() => send({ queue_id, local_id: long(IDENTIFIER_MAX + 1) }), tooLong("local_id", IDENTIFIER_MAX));
		await refused(() => send({ queue_id: long(IDENTIFIER_MAX + 1), local_id: "1" }), tooLong("queue_id", IDENTIFIER_MAX));
		expectSuccess(await send({ queue_id, local_id: long(IDENTIFIER_MAX) }));
		expectSuccess(await send({ queue_id: long(IDENTIFIER_MAX), local_id: "2" }));
	});

	test("subject beside topic: over the bound refused; at the bound ignored for the topic", async () => {
		await refused(() => send({ subject: long(TOPIC_PARAM_MAX + 1) }), tooLong("subject", TOPIC_PARAM_MAX));
		const { id } = ok(await send({ subject: long(TOPIC_PARAM_MAX) }));
		expect(await topicOf(id)).toBe("bounds");
	});

	test("subject alone, past Zulip's 60 characters but under the bound, keeps Zulip's words", async () => {
		await refused(() => owner.post("/messages", { type: "channel", to: channelId, subject: long(61), content: "x" }), "Topic too long (limit: 60 characters)");
	});

	test("widget_content: over the bound refused, at the bound taken", async () => {
		const widget = (heading: string) => JSON.stringify({ widget_type: "zform", extra_data: { type: "choices", heading, choices: [] } });
		const atBound = widget(long(WIDGET_CONTENT_MAX - widget("").length));
		expect(atBound.length).toBe(WIDGET_CONTENT_MAX);
		await refused(() => send({ widget_content: atBound + " " }), tooLong("widget_content", WIDGET_CONTENT_MAX));
		expectSuccess(await send({ widget_content: atBound }));
	});
});

describe("PATCH /messages/{id}", () => {
	test("subject beside topic: over the bound refused, at the bound ignored", async () => {
		const { id } = ok(await send({}));
		await refused(() => owner.patch(`/messages/${id}`, { topic: "renamed", subject: long(TOPIC_PARAM_MAX + 1) }), tooLong("subject", TOPIC_PARAM_MAX));
		expect(await topicOf(id)).toBe("bounds");
		expectSuccess(await owner.patch(`/messages/${id}`, { topic: "renamed", subject: long(TOPIC_PARAM_MAX) }));
		expect(await topicOf(id)).toBe("renamed");
	});
});

describe("POST /register and /events", () => {
	const names = (n: number) => Array.from({ length: n }, (_, i) => `type${i}`);

	for (const name of ["event_types", "fetch_event_types"]) {
		test(`${name}: an entry or a list over its bound refused, at the bound taken`, async () => {
			await refused(() => owner.post("/register", { [name]: JSON.stringify(["message", long(NAME_MAX + 1)]) }), tooLong(`${name}[1]`, NAME_MAX));
			await refused(() => owner.post("/register", { [name]: JSON.stringify(names(EVENT_TYPES_COUNT_MAX + 1)) }), `${name} has too many elements (limit: ${EVENT_TYPES_COUNT_MAX})`);
			expectSuccess(await owner.post("/register", { [name]: JSON.stringify(["message", long(NAME_MAX)]) }));
			expectSuccess(await owner.post("/register", { [name]: JSON.stringify(names(EVENT_TYPES_COUNT_MAX)) }));
		});
	}

	test("GET /events: queue_id and user_client over the bound refused, at the bound read as Zulip reads them", async () => {
		const { queue_id } = ok(await owner.post("/register", { event_types: JSON.stringify(["message"]) }));
		await refused(() => owner.get("/events", { queue_id: long(IDENTIFIER_MAX + 1), last_event_id: -1, dont_block: true }), tooLong("queue_id", IDENTIFIER_MAX));
		await refused(() => owner.get("/events", { queue_id, last_event_id: -1, dont_block: true, user_client: long(IDENTIFIER_MAX + 1) }), tooLong("user_client", IDENTIFIER_MAX));
		// At the bound: an unknown queue is Zulip's BAD_EVENT_QUEUE_ID, not a length error.
		const unknown = await owner.get("/events", { queue_id: long(IDENTIFIER_MAX), last_event_id: -1, dont_block: true });
		expect(unknown.status).toBe(400);
		expect(unknown.body.code).toBe("BAD_EVENT_QUEUE_ID");
		expectSuccess(await owner.get("/events", { queue_id, last_event_id: -1, dont_block: true, user_client: long(IDENTIFIER_MAX) }));
	});

	test("DELETE /events: queue_id over the bound refused, at the bound read as Zulip reads it", async () => {
		await refused(() => owner.delete("/events", { queue_id: long(IDENTIFIER_MAX + 1) }), tooLong("queue_id", IDENTIFIER_MAX));
		const unknown = await owner.delete("/events", { queue_id: long(IDENTIFIER_MAX) });
		expect(unknown.body.code).toBe("BAD_EVENT_QUEUE_ID");
	});
});

/**
 * Names from a fixed vocabulary and topics named to look them up: over the bound the validator's
 * refusal; at the bound the value reaches the handler, which answers as Zulip does (for a name no
 * vocabulary holds, Zulip's own error).
 */
describe("names and topic lookups", () => {
	let messageId: number;
	let pollId: number;
	beforeAll(async () => {
		messageId = ok(await send({ topic: "lookups" })).id;
		pollId = ok(await send({ topic: "lookups", content: "/poll Lunch?\nPizza" })).id;
	});

	type Case = { name: string; limit: number; request: (value: string) => Promise<any>; atBound: string | null };
	const cases = (): Case[] => [
		{ name: "emoji_name", limit: NAME_MAX, request: (v) => owner.post(`/messages/${messageId}/reactions`, { emoji_name: v }), atBound: `Emoji '${long(NAME_MAX)}' does not exist` },
		{ name: "emoji_code", limit: NAME_MAX, request: (v) => owner.post(`/messages/${messageId}/reactions`, { emoji_name: "smile", emoji_code: v }), atBound: "Invalid emoji code" },
		{ name: "emoji_name", limit: NAME_MAX, request: (v) => owner.delete(`/messages/${messageId}/reactions`, { emoji_name: v }), atBound: `Emoji '${long(NAME_MAX)}' does not exist` },
		{ name: "emoji_name", limit: NAME_MAX, request: (v) => owner.post("/users/me/status", { emoji_name: v }), atBound: `Emoji '${long(NAME_MAX)}' does not exist` },
		{ name: "emoji_code", limit: NAME_MAX, request: (v) => owner.post("/users/me/status", { emoji_name: "smile", emoji_code: v }), atBound: "Invalid emoji code." },
		{ name: "reaction_type", limit: NAME_MAX, request: (v) => owner.post("/users/me/status", { emoji_name: "smile", reaction_type: v }), atBound: "Invalid emoji type." },
		{ name: "flag", limit: NAME_MAX, request: (v) => owner.post("/messages/flags", { messages: JSON.stringify([messageId]), op: "add", flag: v }), atBound: `Invalid flag: '${long(NAME_MAX)}'` },
		{ name: "status", limit: NAME_MAX, request: (v) => owner.post("/users/me/presence", { status: v }), atBound: `Invalid status: ${long(NAME_MAX)}` },
		{ name: "topic_name", limit: TOPIC_PARAM_MAX, request: (v) => owner.post("/mark_topic_as_read", { stream_id: channelId, topic_name: v }), atBound: `No such topic '${long(TOPIC_PARAM_MAX)}'` },
		{ name: "topic_name", limit: TOPIC_PARAM_MAX, request: (v) => owner.post(`/streams/${channelId}/delete_topic`, { topic_name: v }), atBound: null },
		{ name: "topic", limit: TOPIC_PARAM_MAX, request: (v) => owner.post("/user_topics", { stream_id: channelId, topic: v, visibility_policy: 1 }), atBound: "Topic too long (limit: 60 characters)" },
		{ name: "topic", limit: TOPIC_PARAM_MAX, request: (v) => owner.patch("/users/me/subscriptions/muted_topics", { stream_id: channelId, topic: v, op: "add" }), atBound: "Topic too long (limit: 60 characters)" },
		{ name: "stream", limit: TOPIC_PARAM_MAX, request: (v) => owner.get("/get_stream_id", { stream: v }), atBound: `Invalid channel name '${long(TOPIC_PARAM_MAX)}'` },
		{ name: "stream", limit: TOPIC_PARAM_MAX, request: (v) => owner.patch("/users/me/subscriptions/muted_topics", { stream: v, topic: "t", op: "add" }), atBound: `Channel '${long(TOPIC_PARAM_MAX)}' does not exist` },
		{ name: "topic", limit: TOPIC_PARAM_MAX, request: (v) => owner.post("/typing", { type: "channel", op: "start", stream_id: channelId, topic: v }), atBound: null },
	];

	test("over the bound: refused naming the parameter, nothing changed; at the bound: the handler's answer", async () => {
		for (const c of cases()) {
			await refused(() => c.request(long(c.limit + 1)), tooLong(c.name, c.limit));
			const res = await c.request(long(c.limit));
			if (c.atBound === null) expectSuccess(res);
			else expect({ status: res.status, msg: res.body.msg }).toEqual({ status: 400, msg: c.atBound });
		}
	});

	test("POST /submessage: msg_type and content over the bound refused, at the bound taken", async () => {
		const vote = JSON.stringify({ type: "vote", key: "canned,0", vote: 1 });
		const content = vote + " ".repeat(WIDGET_CONTENT_MAX - vote.length);
		await refused(() => owner.post("/submessage", { message_id: pollId, msg_type: long(NAME_MAX + 1), content: vote }), tooLong("msg_type", NAME_MAX));
		await refused(() => owner.post("/submessage", { message_id: pollId, msg_type: "widget", content: content + " " }), tooLong("content", WIDGET_CONTENT_MAX));
		expectSuccess(await owner.post("/submessage", { message_id: pollId, msg_type: long(NAME_MAX), content }));
	});

	test("POST /users/me/apns_device_token: appid over the bound refused, at the bound taken", async () => {
		const token = "c0ffee".repeat(10) + "abcd";
		await refused(() => owner.post("/users/me/apns_device_token", { token, appid: long(IDENTIFIER_MAX + 1) }), tooLong("appid", IDENTIFIER_MAX));
		expectSuccess(await owner.post("/users/me/apns_device_token", { token, appid: long(IDENTIFIER_MAX) }));
	});
});

describe("POST /fetch_api_key", () => {
	test("username and password over their bounds refused; at the bounds, Zulip's wrong-credentials answer", async () => {
		const anon = client(app.baseUrl);
		const email = (n: number) => long(n - "@example.com".length) + "@example.com";
		await refused(() => anon.post("/fetch_api_key", { username: email(USERNAME_MAX + 1), password: "whatever" }), tooLong("username", USERNAME_MAX));
		await refused(() => anon.post("/fetch_api_key", { username: app.owner.email, password: long(PASSWORD_PARAM_MAX + 1) }), tooLong("password", PASSWORD_PARAM_MAX));
		for (const [username, password] of [
			[email(USERNAME_MAX), "whatever"],
			[app.owner.email, long(PASSWORD_PARAM_MAX)],
		]) {
			const res = await anon.post("/fetch_api_key", { username, password });
			expect({ status: res.status, code: res.body.code, msg: res.body.msg }).toEqual({ status: 401, code: "AUTHENTICATION_FAILED", msg: "Your username or password is incorrect" });
		}
	});
});

describe("POST /bots", () => {
	test("service_name over Zulip's column refused, at it taken", async () => {
		const bot = (short_name: string, service_name: string) => owner.post("/bots", { full_name: `Bot ${short_name}`, short_name, bot_type: 2, service_name });
		await refused(() => bot("bounded", long(SERVICE_NAME_MAX + 1)), tooLong("service_name", SERVICE_NAME_MAX));
		expectSuccess(await bot("bounded", long(SERVICE_NAME_MAX)));
	});
});
