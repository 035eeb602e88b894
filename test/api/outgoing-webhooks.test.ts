// Outgoing webhook bots, as Zulip's outgoing_webhooks worker: a bot mentioned in a channel or sent
// a direct message is called at its URL (a recording server on 127.0.0.1, allowed by the app's
// OUTGOING_WEBHOOK_ALLOWED_NETWORKS) with Zulip's payload (generic JSON or Slack form fields), and
// what it answers is posted as its reply in the conversation; failures are Zulip's "Failure!"
// replies and the bot's direct message to its owner; timeouts and connection errors are retried;
// private addresses are refused; two replicas of the integrations service call once.
import http from "node:http";
import type { AddressInfo } from "node:net";
import mongoose from "mongoose";
import { startNode, type RunningNode } from "../../services";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { eventually } from "../support/eventually";
import { clock } from "../../shared/clock";

interface Recorded {
	path: string;
	headers: http.IncomingHttpHeaders;
	body: string;
}

/** What the recording server answers on a path: a status and body, "hang", "reset", or a huge body. */
type Answer = { status?: number; json?: unknown; text?: string } | "hang" | "reset" | "huge" | ((call: number) => Answer);

let app: TestApp;
let owner: Client;
let member: Client;
let memberId: number;
let server: http.Server;
let base: string;
const recorded: Recorded[] = [];
const answers = new Map<string, Answer>();
const hanging: http.ServerResponse[] = [];
let second: RunningNode | undefined;
let jobs: mongoose.mongo.Collection;
let conn: mongoose.Connection;

async function bot(name: string, url: string, interfaceType = 1) {
	const res = await owner.post("/bots", { full_name: name, short_name: name.toLowerCase().replace(/ /g, "-"), bot_type: 3, payload_url: JSON.stringify(url), interface_type: interfaceType });
	expectSuccess(res);
	// The bot's token, as its owner's client reads it (realm_bots' services).
	const reg = await owner.post("/register", { fetch_event_types: JSON.stringify(["realm_bot"]) });
	const b = (reg.body.realm_bots as Array<{ user_id: number; email: string; services: Array<{ token: string }> }>).find((x) => x.user_id === res.body.user_id)!;
	return { user_id: b.user_id, email: b.email, full_name: name, token: b.services[0].token, api_key: res.body.api_key as string };
}

const callsTo = (path: string) => recorded.filter((r) => r.path === path);

/** Messages `sender` sent after message `after`, as the owner sees them (Markdown), oldest first. */
async function sentBy(sender: number, after: number, c: Client = owner) {
	const res = await c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: [{ operator: "sender", operand: sender }], apply_markdown: false });
	expectSuccess(res);
	return (res.body.messages as Array<Record<string, any>>).filter((m) => m.id > after);
}

const mention = (b: { full_name: string }, text: string, topic = "bots") => sendMessage(owner, { type: "stream", to: "dev", topic, content: `@**${b.full_name}** ${text}` });

/** Waits for `count` messages from the bot after `after`. */
const replies = (b: { user_id: number }, after: number, count = 1, c?: Client) => eventually(async () => ((await sentBy(b.user_id, after, c)).length >= count ? sentBy(b.user_id, after, c) : undefined), "the bot's messages");

beforeAll(async () => {
	server = http.createServer((req, res) => {
		let body = "";
		req.on("data", (c) => (body += c));
		req.on("end", () => {
			const path = req.url ?? "/";
			recorded.push({ path, headers: req.headers, body });
			const given = answers.get(path) ?? { json: { response_not_required: true } };
			const a = typeof given === "function" ? given(callsTo(path).length) : given;
			if (typeof a === "function") throw new Error("an answer is a function of the call once");
			if (a === "hang") return void hanging.push(res);
			if (a === "reset") return void req.socket.destroy();
			if (a === "huge") return void res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ content: "x".repeat(2 * 1024 * 1024) }));
			res.writeHead(a.status ?? 200, { "Content-Type": "application/json" }).end(a.text ?? JSON.stringify(a.json));
		});
	});
	await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	// The Fake transporter joins a second node in this process (the exactly-once test).
	app = await startTestApp({ outgoingWebhookAllowedNetworks: ["127.0.0.0/8"], outgoingWebhookTimeoutSeconds: 1, outgoingWebhookRetryMs: 50, transporter: "Fake" });
	owner = client(app.baseUrl, app.owner);
	const m = await app.createUser({ role: 400 });
	memberId = m.user_id;
	member = client(app.baseUrl, m);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "dev" }], principals: [app.owner.user_id, m.user_id] }));
	conn = await mongoose.createConnection(app.node.config.mongoUrl, { dbName: `${app.node.config.dbPrefix}_integrations` }).asPromise();
	jobs = conn.db!.collection("outgoing_webhook_jobs");
});
afterAll(async () => {
	clock.reset();
	for (const res of hanging) res.destroy();
	await second?.stop();
	await app?.stop();
	await conn?.close();
	await new Promise((r) => server.close(r));
});

describe("the generic interface", () => {
	test("a mention in a channel: Zulip's JSON payload, and the answer's content as the bot's reply in the topic", async () => {
		const b = await bot("Echo", `${base}/echo`);
		answers.set("/echo", { json: { content: "Hello **back**" } });
		const id = await mention(b, "what's up?", "greetings");
		const [reply, ...more] = await replies(b, id);
		expect(more).toEqual([]);
		expect({ type: reply.type, display_recipient: reply.display_recipient, subject: reply.subject, content: reply.content }).toEqual({ type: "stream", display_recipient: "dev", subject: "greetings", content: "Hello **back**" });

		const [call, ...others] = callsTo("/echo");
		expect(others).toEqual([]);
		expect(call.headers["content-type"]).toBe("application/json");
		expect(call.headers["user-agent"]).toMatch(/^ZulipOutgoingWebhook\//);
		const payload = JSON.parse(call.body);
		expect(Object.keys(payload).sort()).toEqual(["bot_email", "bot_full_name", "data", "message", "token", "trigger"]);
		expect(payload).toMatchObject({ bot_email: b.email, bot_full_name: "Echo", data: "@**Echo** what's up?", token: b.token, trigger: "mention" });
		const channelId = (await owner.get("/get_stream_id", { stream: "dev" })).body.stream_id;
		expect(Object.keys(payload.message).sort()).toEqual(
			["avatar_url", "client", "content", "content_type", "display_recipient", "id", "is_me_message", "reactions", "recipient_id", "rendered_content", "sender_email", "sender_full_name", "sender_id", "sender_realm_str", "stream_id", "subject", "submessages", "timestamp", "topic_links", "type"].sort(),
		);
		expect(payload.message).toMatchObject({
			id,
			type: "stream",
			stream_id: channelId,
			display_recipient: "dev",
			subject: "greetings",
			sender_id: app.owner.user_id,
			sender_email: app.owner.email,
			content: "@**Echo** what's up?",
			content_type: "text/x-markdown",
			rendered_content: expect.stringContaining(`<span class="user-mention" data-user-id="${b.user_id}">@Echo</span>`),
			reactions: [],
			submessages: [],
			is_me_message: false,
		});
		expect(payload.message.flags).toBeUndefined();
	});

	test("a direct message: trigger direct_message, the reply in the same conversation; a group direct message likewise", async () => {
		const b = await bot("Dm Echo", `${base}/dm`);
		answers.set("/dm", { json: { content: "got it" } });
		const id = await sendMessage(owner, { type: "direct", to: JSON.stringify([b.user_id]), content: "hi bot" });
		const [reply] = await replies(b, id);
		expect(reply.type).toBe("private");
		expect((reply.display_recipient as Array<{ id: number }>).map((r) => r.id).sort((x, y) => x - y)).toEqual([app.owner.user_id, b.user_id].sort((x, y) => x - y));
		const payload = JSON.parse(callsTo("/dm")[0].body);
		expect(payload).toMatchObject({ trigger: "direct_message", data: "hi bot", message: { type: "private", id } });
		expect(payload.message.stream_id).toBeUndefined();
		// Processed: read for the bot (Zulip's do_flag_service_bots_messages_as_processed).
		const asBot = client(app.baseUrl, { email: b.email, api_key: b.api_key });
		const flags = async () => (await asBot.get("/messages", { anchor: id, num_before: 0, num_after: 0 })).body.messages[0]?.flags as string[];
		await eventually(async () => (await flags()).includes("read") || undefined, "the message read for the bot");

		const group = await sendMessage(member, { type: "direct", to: JSON.stringify([b.user_id, app.owner.user_id]), content: "hi all" });
		const [groupReply] = await replies(b, group, 1, member);
		expect((groupReply.display_recipient as Array<{ id: number }>).map((r) => r.id).sort((x, y) => x - y)).toEqual([app.owner.user_id, memberId, b.user_id].sort((x, y) => x - y));
		expect(groupReply.content).toBe("got it");
	});

	test("a private channel the bot is not subscribed to: the reply is posted all the same (Zulip's skip_stream_access_check)", async () => {
		const b = await bot("Private Echo", `${base}/private`);
		answers.set("/private", { json: { content: "secretly yours" } });
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
		const id = await sendMessage(owner, { type: "stream", to: "secret", topic: "hush", content: "@**Private Echo** psst" });
		const [reply] = await replies(b, id);
		expect({ display_recipient: reply.display_recipient, subject: reply.subject, content: reply.content }).toEqual({ display_recipient: "secret", subject: "hush", content: "secretly yours" });
	});

	test("response_not_required, an empty answer and json \"\" post nothing", async () => {
		const b = await bot("Quiet", `${base}/quiet`);
		for (const [i, a] of [{ json: { response_not_required: true } }, { json: {} }, { json: "" }, { json: { content: "   " } }].entries()) {
			answers.set("/quiet", a);
			await mention(b, `quiet ${i}`);
			await eventually(async () => callsTo("/quiet").length === i + 1, "the call");
			await eventually(async () => (await jobs.countDocuments({ bot_id: b.user_id, state: "done" })) === i + 1, "the job's end");
		}
		expect(await sentBy(b.user_id, 0)).toEqual([]);
	});

	test("no call for a message that does not mention the bot, a silent mention, a wildcard, or a bot's own message", async () => {
		const b = await bot("Shy", `${base}/shy`);
		await sendMessage(owner, { type: "stream", to: "dev", topic: "bots", content: "Shy is not mentioned here" });
		await sendMessage(owner, { type: "stream", to: "dev", topic: "bots", content: "@_**Shy** silently" });
		await sendMessage(owner, { type: "stream", to: "dev", topic: "bots", content: "@**all** everyone" });
		// A message from a bot triggers nothing (Zulip's rule against loops).
		const other = await bot("Loud", `${base}/loud`);
		answers.set("/loud", { json: { content: "@**Shy** hello from a bot" } });
		const id = await mention(other, "wake up");
		await replies(other, id);
		// A mention that does trigger, after all of these, shows they were passed over.
		answers.set("/shy", { json: { response_not_required: true } });
		await mention(b, "now");
		await eventually(async () => callsTo("/shy").length > 0, "the call");
		await eventually(async () => (await jobs.countDocuments({ bot_id: b.user_id })) === 1 || undefined, "one job");
		expect(callsTo("/shy").map((c) => JSON.parse(c.body).data)).toEqual(["@**Shy** now"]);
	});
});

describe("the bot as it is now", () => {
	test("a mention of a user group the bot belongs to calls it", async () => {
		const b = await bot("Grouped", `${base}/grouped`);
		answers.set("/grouped", { json: { content: "present" } });
		expectSuccess(await owner.post("/user_groups/create", { name: "helpers", description: "", members: JSON.stringify([b.user_id]) }));
		const id = await sendMessage(owner, { type: "stream", to: "dev", topic: "bots", content: "@*helpers* anyone?" });
		const [reply] = await replies(b, id);
		expect(reply.content).toBe("present");
		expect(JSON.parse(callsTo("/grouped")[0].body).trigger).toBe("mention");
	});

	test("a changed URL is called from then on; a deactivated bot is not called", async () => {
		const b = await bot("Mover", `${base}/old`);
		answers.set("/new", { json: { content: "moved" } });
		expectSuccess(await owner.patch(`/bots/${b.user_id}`, { service_payload_url: JSON.stringify(`${base}/new`) }));
		const id = await mention(b, "where are you?");
		await replies(b, id);
		expect([callsTo("/old").length, callsTo("/new").length]).toEqual([0, 1]);

		expectSuccess(await owner.delete(`/bots/${b.user_id}`));
		await mention(b, "still there?");
		// A later mention of another bot shows the deactivated one was passed over.
		const other = await bot("Witness", `${base}/witness`);
		await mention(other, "check");
		await eventually(async () => callsTo("/witness").length > 0, "the witness's call");
		expect(callsTo("/new")).toHaveLength(1);
	});
});

describe("the Slack-compatible interface", () => {
	test("Zulip's form fields, and `text` as the reply", async () => {
		const b = await bot("Slacker", `${base}/slack`, 2);
		answers.set("/slack", { json: { text: "slack says hi" } });
		const id = await mention(b, "hello", "slack");
		const [reply] = await replies(b, id);
		expect({ subject: reply.subject, content: reply.content }).toEqual({ subject: "slack", content: "slack says hi" });
		const call = callsTo("/slack")[0];
		expect(call.headers["content-type"]).toBe("application/x-www-form-urlencoded");
		const channelId = (await owner.get("/get_stream_id", { stream: "dev" })).body.stream_id;
		const sent = (await sentBy(app.owner.user_id, id - 1)).find((m) => m.id === id)!;
		const fields = [...new URLSearchParams(call.body)];
		expect(fields).toEqual([
			["token", b.token],
			["team_id", expect.stringMatching(/^T\d+$/)],
			["team_domain", "chat.test"],
			["channel_id", `C${channelId}`],
			["channel_name", "dev"],
			["thread_ts", String(sent.timestamp)],
			["timestamp", String(sent.timestamp)],
			["user_id", `U${app.owner.user_id}`],
			["user_name", sent.sender_full_name],
			["text", "@**Slacker** hello"],
			["trigger_word", "mention"],
			["service_id", String(b.user_id)],
		]);
	});

	test("a direct message is not sent: Zulip's failure reply", async () => {
		const b = await bot("Slack Dm", `${base}/slackdm`, 2);
		const id = await sendMessage(owner, { type: "direct", to: JSON.stringify([b.user_id]), content: "hi" });
		const [reply] = await replies(b, id);
		expect(reply.content).toBe("Failure! Slack outgoing webhooks don't support direct messages.");
		expect(callsTo("/slackdm")).toEqual([]);
	});
});

/** The bot's direct messages to its owner (the owner alone with the bot) after `after`. */
async function ownerNotices(b: { user_id: number }, after: number): Promise<string[]> {
	return (await sentBy(b.user_id, after)).filter((m) => m.type === "private" && (m.display_recipient as unknown[]).length === 2).map((m) => m.content as string);
}

/** The failure reply in the channel and the notice to the owner, once both are there. */
async function failure(b: { user_id: number }, after: number) {
	return eventually(async () => {
		const messages = await sentBy(b.user_id, after);
		const reply = messages.find((m) => m.type === "stream");
		const notices = await ownerNotices(b, after);
		return reply && notices.length ? { reply: reply.content as string, notices } : undefined;
	}, "the failure reply and the owner's notice");
}

const linkOf = (id: number, channelId: number, topic = "bots") => `[A message](http://chat.test/#narrow/channel/${channelId}-dev/topic/${topic}/near/${id})`;

describe("failures", () => {
	let channelId: number;
	beforeAll(async () => {
		channelId = (await owner.get("/get_stream_id", { stream: "dev" })).body.stream_id;
	});

	test("a status other than 2xx: Zulip's failure reply and the owner's notice with the payload, no retry", async () => {
		const b = await bot("Broken", `${base}/broken`);
		answers.set("/broken", { status: 500, text: "it's down\n" });
		const id = await mention(b, "help");
		const { reply, notices } = await failure(b, id);
		expect(reply).toBe("Failure! Third party responded with 500");
		expect(notices).toEqual([`${linkOf(id, channelId)} to your bot @_**Broken** triggered an outgoing webhook.\nThe webhook got a response with status code *500*.\nThe response contains the following payload:\n\`\`\`\nb"it's down\\n"\n\`\`\``]);
		expect(callsTo("/broken")).toHaveLength(1);
	});

	test("an answer that is not JSON: Zulip's failure and notice", async () => {
		const b = await bot("Garbled", `${base}/garbled`);
		answers.set("/garbled", { text: "<html>" });
		const id = await mention(b, "help");
		const { reply, notices } = await failure(b, id);
		expect(reply).toBe("Failure! Invalid JSON in response");
		expect(notices).toEqual([
			`${linkOf(id, channelId)} to your bot @_**Garbled** triggered an outgoing webhook.\nThe outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Invalid JSON in response\nThe response contains the following payload:\n\`\`\`\n'<html>'\n\`\`\``,
		]);
	});

	test.each([
		["connection errors", "Flaky", "reset" as const, "A connection error occurred. Is my bot server down?"],
		["a call that does not answer in time (a timeout)", "Slow", "hang" as const, "Request timed out after 1 seconds."],
	])("%s: retried MAX_REQUEST_RETRIES (3) times, then the failure and the owner's notice", async (_what, name, answer, why) => {
		const b = await bot(name, `${base}/${name}`);
		answers.set(`/${name}`, answer);
		const id = await mention(b, "ping");
		const { reply, notices } = await failure(b, id);
		expect(reply).toBe("Failure! Bot is unavailable");
		expect(notices).toEqual([`${linkOf(id, channelId)} to your bot @_**${name}** triggered an outgoing webhook.\n${why}`]);
		expect(callsTo(`/${name}`)).toHaveLength(4);
		// The notice is posted before the job is recorded done: wait for the record.
		const done = await eventually(async () => (await jobs.findOne({ bot_id: b.user_id, state: "done" })) ?? undefined, "the job's end");
		expect(done).toMatchObject({ state: "done", failed_tries: 3 });
	});

	test("a retry that succeeds posts the reply and nothing else", async () => {
		const b = await bot("Sleepy", `${base}/sleepy`);
		// Two connection errors, then an answer.
		answers.set("/sleepy", (n) => (n <= 2 ? "reset" : { json: { content: "awake now" } }));
		const id = await mention(b, "wake");
		const [reply] = await replies(b, id);
		expect(callsTo("/sleepy")).toHaveLength(3);
		expect(reply.content).toBe("awake now");
		await eventually(async () => (await jobs.findOne({ bot_id: b.user_id, state: "done" })) ?? undefined, "the job's end");
		expect((await sentBy(b.user_id, id)).map((m) => m.content)).toEqual(["awake now"]);
	});

	test("an answer over the size limit is not read: Zulip's exception failure", async () => {
		const b = await bot("Verbose", `${base}/huge`);
		answers.set("/huge", "huge");
		const id = await mention(b, "talk");
		const { reply, notices } = await failure(b, id);
		expect(reply).toBe(`Failure! An exception of type *ResponseTooLarge* occurred for message \`@**Verbose** talk\`! See the Zulip server logs for more information.`);
		expect(notices).toEqual([
			`${linkOf(id, channelId)} to your bot @_**Verbose** triggered an outgoing webhook.\nWhen trying to send a request to the webhook service, an exception of type ResponseTooLarge occurred:\n\`\`\`\nThe response is larger than 1048576 bytes.\n\`\`\``,
		]);
	});

	test.each([
		["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
		["a private network", "http://10.1.2.3:8080/bot"],
		["a unique-local IPv6 address", "http://[fd00::1]/bot"],
		["an IPv4-mapped private address", "http://[::ffff:192.168.0.1]/bot"],
	])("an address in %s is refused without a call: Smokescreen's 407, and the owner's notice", async (_what, url) => {
		const b = await bot(`Nosy ${Math.random().toString(36).slice(2, 7)}`, url);
		const id = await mention(b, "peek");
		const { reply, notices } = await failure(b, id);
		expect(reply).toBe("Failure! Third party responded with 407");
		expect(notices).toEqual([`${linkOf(id, channelId)} to your bot @_**${b.full_name}** triggered an outgoing webhook.\nThe URL configured for the webhook is for a private or disallowed network.`]);
	});
});

describe("replicas", () => {
	test("with two integrations services, a message makes one job and one call", async () => {
		second = await startNode({ ...app.node.config, services: ["integrations"] }, "integrations-2");
		await eventually(async () => app.node.broker.registry.getServiceList({ onlyAvailable: true }).filter((s: { name: string }) => s.name === "integrations").length === 2 || undefined, "the second replica");
		const b = await bot("Twice", `${base}/twice`);
		answers.set("/twice", { json: { content: "once" } });
		for (let i = 0; i < 5; i++) {
			const id = await mention(b, `round ${i}`);
			await replies(b, id);
		}
		await eventually(async () => (await jobs.countDocuments({ bot_id: b.user_id, state: "done" })) === 5 || undefined, "the jobs' end");
		expect(callsTo("/twice")).toHaveLength(5);
		expect((await sentBy(b.user_id, 0)).map((m) => m.content)).toEqual(["once", "once", "once", "once", "once"]);
		expect(await jobs.countDocuments({ bot_id: b.user_id })).toBe(5);
	});

	test("a claim whose replica died is taken back and run", async () => {
		const b = await bot("Orphan", `${base}/orphan`);
		answers.set("/orphan", { json: { content: "recovered" } });
		const id = await sendMessage(owner, { type: "stream", to: "dev", topic: "bots", content: "no mention yet" });
		// A job as a replica left it when it died mid-call, long ago.
		const message = JSON.parse(callsTo("/echo")[0].body).message;
		await jobs.insertOne({ _id: `${id}:${b.user_id}` as any, message_id: id, bot_id: b.user_id, trigger: "mention", message: { ...message, id, content: "@**Orphan** hi" }, state: "sending", failed_tries: 0, next_at: 0, claimed_by: "gone", claimed_at: 1, created_at: 1 });
		const [reply] = await replies(b, id);
		expect(reply.content).toBe("recovered");
		expect(callsTo("/orphan")).toHaveLength(1);
	});

	test("finished jobs are dropped after a week; pending ones stay", async () => {
		const before = await jobs.countDocuments({ state: "done" });
		expect(before).toBeGreaterThan(0);
		await jobs.insertOne({ _id: "0:0" as any, message_id: 0, bot_id: 0, trigger: "mention", message: {}, state: "pending", failed_tries: 0, next_at: Number.MAX_SAFE_INTEGER, claimed_by: null, claimed_at: null, created_at: 1 });
		clock.advance(8 * 24 * 3600 * 1000);
		await eventually(async () => (await jobs.countDocuments({ state: "done" })) === 0 || undefined, "the purge");
		expect(await jobs.countDocuments({ _id: "0:0" as any })).toBe(1);
	});
});
