// The incoming webhook framework (POST /api/v1/external/<integration>), as Zulip's webhook_view and
// check_send_webhook_message: who may call, where messages go (a channel by name or ID, the URL's
// topic, the bot's owner without `stream`), the event filters, and every refusal in Zulip's terms
// (unsupported events, missing event headers, malformed or hostile payloads), each of which posts
// nothing. The integrations' own messages are checked by webhooks-replay.test.ts.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, jsonOf, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let origin: string;
let bot: { user_id: number; api_key: string; email: string };
let channelId: number;

const NOTIFICATION_BOT = "notification-bot@zulip.com";

/** A GitHub ping, the smallest payload that posts. */
const ping = (login: unknown = "octocat") => JSON.stringify({ zen: "Keep it simple.", hook_id: 1, sender: { login }, repository: { name: "hello", full_name: "o/hello", html_url: "https://github.com/o/hello", private: false } });

async function hook(path: string, query: Record<string, string>, body: string, headers: Record<string, string> = {}) {
	const qs = new URLSearchParams(query).toString();
	const res = await fetch(`${origin}/api/v1/external/${path}${qs ? `?${qs}` : ""}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });
	const text = await res.text();
	return { status: res.status, body: (jsonOf(text) ?? text) as any, headers: res.headers };
}

const github = (query: Record<string, string>, body = ping(), event: string | null = "ping") => hook("github", { api_key: bot.api_key, ...query }, body, event === null ? {} : { "X-GitHub-Event": event });

/** Messages the bot sent after message `after`, oldest first. */
async function botMessages(after: number) {
	const res = await owner.get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [{ operator: "sender", operand: bot.user_id }], apply_markdown: false });
	return (res.body.messages as Array<Record<string, any>>).filter((m) => m.id > after);
}

/** Notification Bot's direct messages to the owner after message `after`. */
async function ownerNotices(after: number): Promise<string[]> {
	const res = await owner.get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [{ operator: "is", operand: "dm" }], apply_markdown: false });
	return (res.body.messages as Array<Record<string, any>>).filter((m) => m.id > after && m.sender_email === NOTIFICATION_BOT).map((m) => m.content as string);
}

async function newest(): Promise<number> {
	const res = await owner.get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: [] });
	return res.body.messages[0]?.id ?? 0;
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	origin = new URL(app.baseUrl).origin;
	const res = await owner.post("/bots", { full_name: "Hook Bot", short_name: "hook", bot_type: 2 });
	expectSuccess(res);
	bot = { user_id: res.body.user_id, api_key: res.body.api_key, email: "hook-bot@chat.test" };
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "dev" }] }));
	channelId = (await owner.get("/get_stream_id", { stream: "dev" })).body.stream_id;
});
afterAll(async () => {
	await app?.stop();
});

describe("posting", () => {
	test("a channel by name, with the integration's topic and Zulip's client name", async () => {
		const before = await newest();
		expectSuccess(await github({ stream: "dev" }));
		const [m, ...rest] = await botMessages(before);
		expect(rest).toEqual([]);
		expect({ type: m.type, stream_id: m.stream_id, subject: m.subject, content: m.content, client: m.client }).toEqual({
			type: "stream",
			stream_id: channelId,
			subject: "hello",
			content: "GitHub webhook has been successfully configured by octocat.",
			client: "ZulipGitHubWebhook",
		});
	});

	test("a channel by ID, and the URL's topic over the integration's", async () => {
		const before = await newest();
		expectSuccess(await github({ stream: String(channelId), topic: "hooks" }));
		const [m] = await botMessages(before);
		expect({ stream_id: m.stream_id, subject: m.subject }).toEqual({ stream_id: channelId, subject: "hooks" });
	});

	test("without `stream`, a direct message to the bot's owner", async () => {
		const before = await newest();
		expectSuccess(await github({}));
		const [m] = await botMessages(before);
		expect(m.type).toBe("private");
		expect((m.display_recipient as Array<{ id: number }>).map((u) => u.id).sort()).toEqual([app.owner.user_id, bot.user_id].sort((a, b) => a - b));
	});

	test("HTTP basic authentication where no api_key is given", async () => {
		const before = await newest();
		const auth = `Basic ${Buffer.from(`${bot.email}:${bot.api_key}`).toString("base64")}`;
		expectSuccess(await hook("github", { stream: "dev" }, ping(), { "X-GitHub-Event": "ping", Authorization: auth }));
		expect(await botMessages(before)).toHaveLength(1);
	});

	test("a channel that does not exist: success for the tool, nothing posted, one notice to the owner per five minutes", async () => {
		const before = await newest();
		expectSuccess(await github({ stream: "nowhere" }));
		expectSuccess(await github({ stream: "nowhere" }));
		expectSuccess(await github({ stream: "999999" }));
		expect(await botMessages(before)).toEqual([]);
		expect(await ownerNotices(before)).toEqual([
			`Your bot \`${bot.email}\` tried to send a message to channel #**nowhere**, but that channel does not exist. Click [here](#channels/new) to create it.`,
		]);
	});

	test("content over the message limit is cut as Zulip cuts it", async () => {
		const before = await newest();
		const issue = { action: "opened", issue: { number: 1, title: "Big", html_url: "https://github.com/o/hello/issues/1", body: "x".repeat(20_000) }, sender: { login: "octocat" }, repository: { name: "hello", private: false } };
		expectSuccess(await github({ stream: "dev" }, JSON.stringify(issue), "issues"));
		const [m] = await botMessages(before);
		expect(m.content).toHaveLength(10_000);
		expect(m.content.endsWith("\n[message truncated]")).toBe(true);
	});
});

describe("event filters", () => {
	test("only_events and exclude_events match Zulip's event names with shell wildcards", async () => {
		const before = await newest();
		expectSuccess(await github({ stream: "dev", only_events: JSON.stringify(["push*"]) }));
		expectSuccess(await github({ stream: "dev", exclude_events: JSON.stringify(["pi?g"]) }));
		expect(await botMessages(before)).toEqual([]);
		expectSuccess(await github({ stream: "dev", only_events: JSON.stringify(["ping"]), exclude_events: JSON.stringify(["push_commits"]) }));
		expect(await botMessages(before)).toHaveLength(1);
	});

	test.each([
		["only_events", "push", "only_events is not valid JSON"],
		["only_events", '"push"', "only_events is not a list of strings"],
		["exclude_events", "[1]", "exclude_events is not a list of strings"],
	])("%s=%s is refused", async (name, value, msg) => {
		const before = await newest();
		expectError(await github({ stream: "dev", [name]: value }), 400, "BAD_REQUEST", msg);
		expect(await botMessages(before)).toEqual([]);
	});
});

describe("refusals, each posting nothing", () => {
	let before: number;
	beforeEach(async () => {
		before = await newest();
	});
	afterEach(async () => {
		expect(await botMessages(before)).toEqual([]);
	});

	test.each(["no-such-tool", "%E0%A4%A", "github%2F..%2Fgitlab"])("an integration this server does not have: %s", async (name) => {
		expectError(await hook(name, { api_key: bot.api_key, stream: "dev" }, "{}"), 404, "NOT_FOUND");
	});

	test("no API key and no credentials", async () => {
		expectError(await hook("github", { stream: "dev" }, ping(), { "X-GitHub-Event": "ping" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'api_key' argument");
	});

	test.each([
		["a malformed key", "abc", "Malformed API key"],
		["an unknown key", "a".repeat(32), "Invalid API key"],
	])("%s", async (_what, key, msg) => {
		expectError(await hook("github", { api_key: key, stream: "dev" }, ping(), { "X-GitHub-Event": "ping" }), 401, "UNAUTHORIZED", msg);
	});

	test("a person's key (integrations post as bots)", async () => {
		const member: Account = await app.createUser({ full_name: "Member" });
		expectError(await hook("github", { api_key: member.api_key, stream: "dev" }, ping(), { "X-GitHub-Event": "ping" }), 400, "BAD_REQUEST", /incoming webhook bots/);
	});

	test("an unsupported event: Zulip's success naming it", async () => {
		const res = await github({ stream: "dev" }, JSON.stringify({ action: "x" }), "sponsorship_frobbed");
		expect({ status: res.status, body: res.body }).toEqual({
			status: 200,
			body: {
				result: "success",
				msg: "The 'sponsorship_frobbed:x' event isn't currently supported by the GitHub webhook; ignoring",
				code: "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
				event_type: "sponsorship_frobbed:x",
				webhook_name: "GitHub",
			},
		});
	});

	test("a missing event header, and the owner is told", async () => {
		// Another bot: the notices of one bot are at most one per five minutes.
		const other = await owner.post("/bots", { full_name: "Other Hook Bot", short_name: "other-hook", bot_type: 2 });
		expectSuccess(other);
		const res = await hook("github", { api_key: other.body.api_key, stream: "dev" }, ping());
		expectError(res, 400, "MISSING_HTTP_EVENT_HEADER", "Missing the HTTP event header 'X-GitHub-Event'");
		expect(res.body.header).toBe("X-GitHub-Event");
		const [notice] = await ownerNotices(before);
		expect(notice).toContain("Your bot Other Hook Bot just sent an HTTP request to /api/v1/external/github that\nis missing the HTTP X-GitHub-Event header.");
	});

	test("a payload a misconfigured tool sends (Zabbix without its fields): Invalid payload, and the owner is told how to fix it", async () => {
		const other = await owner.post("/bots", { full_name: "Zabbix Bot", short_name: "zabbix", bot_type: 2 });
		expectSuccess(other);
		expectError(await hook("zabbix", { api_key: other.body.api_key, stream: "dev" }, JSON.stringify({ hostname: "h" })), 400, "BAD_REQUEST", "Invalid payload");
		const [notice] = await ownerNotices(before);
		expect(notice).toContain("Your bot Zabbix Bot just received a Zabbix payload that is missing");
	});

	test.each([
		["not JSON", "{nope"],
		["empty", ""],
		["nested too deeply", `${"[".repeat(5000)}${"]".repeat(5000)}`],
	])("a body %s: Malformed JSON", async (_what, body) => {
		expectError(await github({ stream: "dev" }, body), 400, "BAD_REQUEST", "Malformed JSON");
	});

	test.each([
		["a field of the wrong type", ping(42), "payload['sender']['login'] is not a string"],
		["a missing field", JSON.stringify({ zen: "z", repository: { name: "r", private: false } }), "payload['sender'] is missing"],
		["a list where an object belongs", JSON.stringify([1, 2]), /is not a dict/],
	])("%s names the field", async (_what, body, msg) => {
		expectError(await github({ stream: "dev" }, body), 400, "BAD_REQUEST", msg);
	});

	test("a payload an integration cannot read otherwise: Malformed payload", async () => {
		const sponsorship = { action: "pending_cancellation", effective_date: "soon", sender: { login: "o" }, sponsorship: { tier: { name: "Gold" } } };
		expectError(await github({ stream: "dev" }, JSON.stringify(sponsorship), "pending_cancellation"), 400, "BAD_REQUEST", "Malformed payload");
	});

	test("a deactivated bot", async () => {
		const gone = await owner.post("/bots", { full_name: "Gone Bot", short_name: "gone", bot_type: 2 });
		expectSuccess(await owner.delete(`/bots/${gone.body.user_id}`));
		expectError(await hook("github", { api_key: gone.body.api_key, stream: "dev" }, ping(), { "X-GitHub-Event": "ping" }), 401, "UNAUTHORIZED", "Account is deactivated");
	});

	test("a body over the server's limit", async () => {
		const res = await github({ stream: "dev" }, JSON.stringify({ junk: "x".repeat(6 * 1024 * 1024) }));
		expect(res.status).toBe(413);
	});
});

describe("Clubhouse, Taiga and Pivotal: hostile payloads are Zulip's 400 and post nothing", () => {
	const story = { id: 11, entity_type: "story", action: "create", name: "S", story_type: "feature", app_url: "https://app.clubhouse.io/z/story/11" };
	const clubhouse = (payload: unknown) => JSON.stringify(payload);
	const taigaUser = { full_name: "Jan", permalink: "https://tree.taiga.io/profile/jan" };
	const v5 = (over: Record<string, unknown>) => JSON.stringify({ kind: "story_update_activity", project: { name: "P", id: 1 }, primary_resources: [{ name: "S", id: 2, url: "u" }], changes: [], ...over });
	const v3 = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<activity>${inner}</activity>`;
	const deepJson = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;

	test.each<[string, string, string, string | RegExp]>([
		["clubhouse", "a primary ID no action has", clubhouse({ primary_id: 12, actions: [story], references: [] }), "Malformed payload"],
		["clubhouse", "actions that are not a list", clubhouse({ primary_id: 11, actions: { story } }), "payload['actions'] is not a list"],
		["clubhouse", "a story name of the wrong type", clubhouse({ primary_id: 11, actions: [{ ...story, name: 5 }], references: [] }), "payload['actions'][0]['name'] is not a string"],
		["clubhouse", "an epic the references lack", clubhouse({ primary_id: 11, actions: [{ ...story, epic_id: 9 }], references: [] }), "Malformed payload"],
		["clubhouse", "a state change without references", clubhouse({ primary_id: 11, actions: [{ ...story, action: "update", changes: { workflow_state_id: { new: 1, old: 2 } } }] }), "payload['references'] is missing"],
		["clubhouse", "nested too deeply", deepJson, "Malformed JSON"],
		["taiga", "no user", JSON.stringify({ action: "test", type: "test", data: {} }), "payload['by'] is missing"],
		["taiga", "a diff of the wrong type", JSON.stringify({ action: "change", type: "task", by: taigaUser, data: { subject: "T" }, change: { diff: { is_blocked: { to: "yes" } }, comment: "" } }), "payload['change']['diff']['is_blocked']['to'] is not a boolean"],
		["taiga", "a change of a kind without that template", JSON.stringify({ action: "change", type: "task", by: taigaUser, data: { subject: "T" }, change: { diff: { points: {} }, comment: "" } }), "Malformed payload"],
		["taiga", "an action that says nothing", JSON.stringify({ action: "frobnicate", type: "task", by: taigaUser, data: {} }), /empty/],
		["pivotal", "neither XML nor JSON", "<activity><event_type>", "Unable to handle Pivotal payload"],
		["pivotal", "XML declaring entities", `<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "${"x".repeat(100)}"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>${v3("<event_type>story_update</event_type><description>&c;</description><project_id>1</project_id>")}`, "Unable to handle Pivotal payload"],
		["pivotal", "XML nested too deeply", v3(`${"<a>".repeat(20000)}${"</a>".repeat(20000)}`), "Unable to handle Pivotal payload"],
		["pivotal", "a v3 activity without a description", v3("<event_type>story_update</event_type><project_id>1</project_id>"), "Unable to handle Pivotal payload"],
		["pivotal", "a v3 activity of an unknown type", v3('<event_type>story_frob</event_type><description>A "b"</description><project_id>1</project_id>'), "Unable to handle Pivotal payload"],
		["pivotal", "a v5 kind of the wrong type", v5({ kind: 7 }), "payload['kind'] is not a string"],
		["pivotal", "no primary resource", v5({ primary_resources: [] }), "payload['primary_resources'][0] is missing"],
		["pivotal", "changes that are not a list", v5({ changes: { a: 1 } }), "payload['changes'] is not a list"],
		["pivotal", "a change without new values", v5({ changes: [{ kind: "story" }] }), "payload['changes'][0]['new_values'] is missing"],
		["pivotal", "a kind Zulip knows and does not render", v5({ kind: "task_create_activity" }), "Unable to handle Pivotal payload"],
		["pivotal", "a comment event without a comment", v5({ kind: "comment_create_activity", changes: [{ kind: "story", new_values: {} }] }), "Unable to handle Pivotal payload"],
	])("%s: %s", async (integration, _what, body, msg) => {
		const before = await newest();
		expectError(await hook(integration, { api_key: bot.api_key, stream: "dev" }, body), 400, "BAD_REQUEST", msg);
		expect(await botMessages(before)).toEqual([]);
	});

	test("an unsupported Pivotal v5 kind and Clubhouse event: Zulip's success naming it, nothing posted", async () => {
		const before = await newest();
		expect((await hook("pivotal", { api_key: bot.api_key, stream: "dev" }, v5({ kind: "story_frob_activity" }))).body).toMatchObject({ result: "success", event_type: "story_frob_activity", webhook_name: "Pivotal" });
		const frob = clubhouse({ primary_id: 11, actions: [{ ...story, entity_type: "story", action: "frob" }], references: [] });
		expect((await hook("clubhouse", { api_key: bot.api_key, stream: "dev" }, frob)).body).toMatchObject({ result: "success", event_type: "story_frob", webhook_name: "Clubhouse" });
		expect(await botMessages(before)).toEqual([]);
	});

	test("a Clubhouse empty POST (null) is ignored; a huge story name posts, its topic cut as Zulip cuts it", async () => {
		const before = await newest();
		expectSuccess(await hook("clubhouse", { api_key: bot.api_key, stream: "dev" }, "null"));
		expect(await botMessages(before)).toEqual([]);
		expectSuccess(await hook("clubhouse", { api_key: bot.api_key, stream: "dev" }, clubhouse({ primary_id: 11, actions: [{ ...story, name: "n".repeat(100_000) }], references: [] })));
		const [posted] = await botMessages(before);
		expect(posted.subject).toBe(`${"n".repeat(57)}...`);
		expect(posted.content).toMatch(/\[message truncated\]$/);
	});
});
