// Replays the requests of Zulip's own integration tests (reference/zulip-webhooks/cases.json: each
// request as Zulip's test suite sends it, and what a real Zulip 10 posted or answered) against this
// server, for every integration it implements, and checks byte for byte the posted topic and
// Markdown and the answer. Prints the pass rate per integration and overall; fails for any case
// that differs unless KNOWN_DIFFERENCES lists it with its reason.
import fs from "node:fs";
import path from "node:path";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectSuccess, jsonOf, type Client } from "../support/http";
import { INTEGRATIONS } from "../../services/integrations/incoming/registry";
import { clock } from "../../shared/clock";

const CASES_FILE = path.resolve(__dirname, "../../../shared/reference/zulip-webhooks/cases.json");
const FALLBACK_CASES_FILE = "/work/shared/reference/zulip-webhooks/cases.json";

interface Case {
	integration: string;
	method: string;
	path: string;
	query: string;
	headers: Record<string, string>;
	content_type: string;
	body: string;
	auth: "none" | "basic";
	zulip_answer: { status: number; body: unknown };
	zulip_messages: Array<{ type: "stream" | "private"; topic: string | null; content: string }>;
}

/**
 * Cases this server answers differently on purpose, each with its reason. Keep it short: a
 * difference that is not a decision is a bug to fix.
 */
const OVERLONG_URL = "Zulip's nginx refused the 12 KB query string with its 414 page; this server takes request lines up to its header limit and answers the request";
const KNOWN_DIFFERENCES: Record<string, string> = {
	"bitbucket/push_commits_above_limit~test_bitbucket_on_push_commits_above_limit_event_filtered_by_branches": OVERLONG_URL,
	"bitbucket/push_commits_above_limit~test_bitbucket_push_commits_above_limit_filtered_by_branches_ignore": OVERLONG_URL,
};

/**
 * Cases whose recorded message depends on when it was posted (UNIX seconds): the replay moves the
 * server's clock there for them, to a time the recorded message holds for. Stripe's "trial will
 * end in -3645 days" and Beeminder's "derail in -77239.0 hours" count from the clock; Zulip's
 * Beeminder test fixes the time (1517739100, "5.6 hours"), but the recording was made without
 * that fix, at the real time, as Stripe's.
 */
const RECORDED_AT: Record<string, number> = {
	"stripe/customer_subscription_trial_will_end": 1480892861 + 3645 * 86400,
	"beeminder/derail_worried": 1517759100 + 77239 * 3600,
};

/** Users of Zulip's test organization the recorded messages name (Jira names assignees by account; Dialogflow writes to one). */
const ZULIP_TEST_USERS = [
	{ email: "othello@zulip.com", full_name: "Othello, the Moor of Venice" },
	{ email: "aaron@zulip.com", full_name: "aaron" },
];

/**
 * One rule rather than a list of cases: where Zulip kept the literal topic "(no topic)" (Slack's
 * incoming webhook without a channel), this server stores the empty topic, as its POST /messages
 * does with "(no topic)", and shows it by the organization's name for it ("general chat"). Every
 * other byte of such a message is still compared.
 */
const EMPTY_TOPIC_NAMES = new Set(["", "general chat"]);
const sameTopic = (expected: string | null, got: string | null) => expected === got || (expected === "(no topic)" && got !== null && EMPTY_TOPIC_NAMES.has(got));

function loadCases(): Record<string, Case> {
	const file = fs.existsSync(CASES_FILE) ? CASES_FILE : FALLBACK_CASES_FILE;
	return (JSON.parse(fs.readFileSync(file, "utf8")) as { cases: Record<string, Case> }).cases;
}

const implemented = new Set(INTEGRATIONS.map((i) => i.name));
const allCases = loadCases();
/** Slack's Events API messages: every one of Zulip's cases of them, by one reason. */
const SLACK_EVENTS_API =
	"Zulip resolves the sender and channel IDs through Slack's API (its recording failed with a 500, out of Slack's reach); this server makes no calls to Slack and answers them as an unsupported event";
for (const key of Object.keys(allCases)) if (key.startsWith("slack/message_with_")) KNOWN_DIFFERENCES[key] = SLACK_EVENTS_API;
const byIntegration = new Map<string, Array<[string, Case]>>();
for (const [key, c] of Object.entries(allCases)) {
	if (!implemented.has(c.integration)) continue;
	byIntegration.set(c.integration, [...(byIntegration.get(c.integration) ?? []), [key, c]]);
}

/** Django's META spelling of a header (HTTP_X_GITHUB_EVENT) as sent on the wire (X-Github-Event). */
const wireName = (name: string) => (name.startsWith("HTTP_") ? name.slice(5).split("_").map((w) => w[0] + w.slice(1).toLowerCase()).join("-") : name);

let app: TestApp;
let owner: Client;
let bot: { user_id: number; api_key: string; email: string };
/** Zulip's test users, who see the direct messages integrations send them. */
const testUsers: Client[] = [];
const results = new Map<string, { passed: number; total: number }>();

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	const res = await owner.post("/bots", { full_name: "Webhook Conformance Bot", short_name: "webhook-conformance", bot_type: 2 });
	expectSuccess(res);
	bot = { user_id: res.body.user_id, api_key: res.body.api_key, email: "webhook-conformance-bot@chat.test" };
	for (const u of ZULIP_TEST_USERS) testUsers.push(client(app.baseUrl, await app.createUser(u)));
	const names = new Set<string>();
	for (const list of byIntegration.values()) for (const [, c] of list) {
		const stream = new URLSearchParams(c.query).get("stream");
		if (stream && !/^\d+$/.test(stream)) names.add(stream);
	}
	if (names.size) expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [...names].map((name) => ({ name })) }));
}, 60_000);

afterAll(async () => {
	const lines = [...results].map(([name, r]) => `  ${name.padEnd(16)} ${r.passed}/${r.total} (${Math.round((100 * r.passed) / r.total)} %)`);
	const passed = [...results.values()].reduce((n, r) => n + r.passed, 0);
	const total = [...results.values()].reduce((n, r) => n + r.total, 0);
	const all = Object.keys(allCases).length;
	process.stdout.write(`\nZulip webhook replay: ${passed}/${total} cases of ${results.size} integrations pass; ${total}/${all} cases of Zulip's ${new Set(Object.values(allCases).map((c) => c.integration)).size} integrations implemented\n${lines.join("\n")}\n`);
	await app?.stop();
});

async function newestId(): Promise<number> {
	let newest = 0;
	for (const viewer of [owner, ...testUsers]) {
		const res = await viewer.get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: [] });
		if (res.body.messages.length) newest = Math.max(newest, res.body.messages[0].id);
	}
	return newest;
}

/** What the bot posted after message `after`: in channels as the owner sees them, and direct messages to Zulip's test users. */
async function postedSince(after: number) {
	const seen = new Map<number, { id: number; type: string; subject: string; content: string }>();
	for (const viewer of [owner, ...testUsers]) {
		const res = await viewer.get("/messages", { anchor: "newest", num_before: 20, num_after: 0, narrow: [{ operator: "sender", operand: bot.user_id }], apply_markdown: false });
		for (const m of res.body.messages as Array<{ id: number; type: string; subject: string; content: string }>) seen.set(m.id, m);
	}
	return [...seen.values()]
		.sort((a, b) => a.id - b.id)
		.filter((m) => m.id > after)
		.map((m) => (m.type === "stream" ? { type: "stream", topic: m.subject, content: m.content } : { type: "private", topic: null, content: m.content }));
}

/** Sends a case's request (its method, headers, query and authentication) with `body`. */
async function replayBody(c: Case, body: string) {
	const headers: Record<string, string> = {};
	for (const [k, v] of Object.entries(c.headers)) headers[wireName(k)] = v;
	if (c.content_type) headers["Content-Type"] = c.content_type;
	if (c.auth === "basic") headers.Authorization = `Basic ${Buffer.from(`${bot.email}:${bot.api_key}`).toString("base64")}`;
	const query = c.query.replaceAll("XXAPIKEYXX", bot.api_key);
	const res = await fetch(`${new URL(app.baseUrl).origin}${c.path}${query ? `?${query}` : ""}`, { method: c.method, headers, body: c.method === "GET" || c.method === "HEAD" ? undefined : body });
	const text = await res.text();
	return { status: res.status, body: jsonOf(text) ?? text };
}

async function replay(c: Case): Promise<string | null> {
	const before = await newestId();
	const answer = await replayBody(c, c.body);
	const posted = await postedSince(before);
	const problems: string[] = [];
	const zulipAnswer = asThisBot(c.zulip_answer);
	if (JSON.stringify(sortKeys(answer)) !== JSON.stringify(sortKeys(zulipAnswer))) problems.push(`answer ${JSON.stringify(answer)} instead of ${JSON.stringify(zulipAnswer)}`);
	const expected = c.zulip_messages.map((m, i) => ({ type: m.type, topic: sameTopic(m.topic, posted[i]?.topic ?? null) ? (posted[i]?.topic ?? null) : m.topic, content: m.content }));
	if (JSON.stringify(posted) !== JSON.stringify(expected)) problems.push(`posted ${JSON.stringify(posted)}\n    instead of ${JSON.stringify(expected)}`);
	return problems.length ? problems.join("\n  ") : null;
}

/** The recording's bot, as the API key stands for this server's bot: Zapier's auth answer names it by its email and ID. */
const ZULIP_BOT_EMAIL = "webhook-conformance-bot@localhost";
function asThisBot(answer: Case["zulip_answer"]): Case["zulip_answer"] {
	const body = answer.body as Record<string, unknown> | null;
	if (!body || typeof body !== "object" || body.email !== ZULIP_BOT_EMAIL) return answer;
	return { ...answer, body: { ...body, email: bot.email, id: bot.user_id } };
}

function sortKeys(v: unknown): unknown {
	if (Array.isArray(v)) return v.map(sortKeys);
	if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, sortKeys(x)]));
	return v;
}

describe.each([...byIntegration.keys()])("Zulip's cases for %s", (name) => {
	test("replay byte for byte", async () => {
		const failures: string[] = [];
		let passed = 0;
		const list = byIntegration.get(name)!;
		for (const [key, c] of list) {
			if (Object.hasOwn(RECORDED_AT, key)) clock.advance(RECORDED_AT[key] * 1000 - clock.nowMs());
			const problem = await replay(c).finally(() => clock.reset());
			if (problem === null) passed++;
			else if (!Object.hasOwn(KNOWN_DIFFERENCES, key)) failures.push(`${key}:\n  ${problem}`);
		}
		results.set(name, { passed, total: list.length });
		expect(failures).toEqual([]);
	}, 120_000);
});

/** The share of all of Zulip's recorded cases (implemented or not) this server replays byte for byte. */
const REQUIRED_RATE = 0.95;

test(`every one of Zulip's integrations is implemented, and at least ${REQUIRED_RATE * 100} % of all of its cases replay byte for byte`, () => {
	const zulips = new Set(Object.values(allCases).map((c) => c.integration));
	expect([...zulips].filter((name) => !implemented.has(name))).toEqual([]);
	// Meaningful only after every integration's replay (not under a -t filter that skips some).
	expect(results.size).toBe(byIntegration.size);
	const passed = [...results.values()].reduce((n, r) => n + r.passed, 0);
	const all = Object.keys(allCases).length;
	process.stdout.write(`Zulip webhook replay overall: ${passed}/${all} (${((100 * passed) / all).toFixed(1)} %) of Zulip's cases match\n`);
	expect(passed / all).toBeGreaterThanOrEqual(REQUIRED_RATE);
});

/** Every string of a JSON value turned into a number, every number into a string: the wrong type everywhere. */
function wrongTypes(v: unknown): unknown {
	if (typeof v === "string") return 12345;
	if (typeof v === "number") return "12345";
	if (Array.isArray(v)) return v.map(wrongTypes);
	if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrongTypes(x)]));
	return v;
}

/** The body without one of its top-level fields, for each field of a JSON object body. */
function withoutEachField(v: unknown): unknown[] {
	if (!v || typeof v !== "object" || Array.isArray(v)) return [];
	return Object.keys(v).map((k) => Object.fromEntries(Object.entries(v).filter(([key]) => key !== k)));
}

describe("hostile payloads", () => {
	test("every implemented integration answers Zulip's 400 (or ignores the request), never a 500, for payloads of the wrong shape, and a refused one posts nothing", async () => {
		const failures: string[] = [];
		let before = await newestId();
		for (const [name, list] of byIntegration) {
			const [, first] = list[0];
			const shapes = ["{}", "[]", "null", '"text"', "{nope", ...withoutEachField(jsonOf(first.body)).map((b) => JSON.stringify(b))];
			// Every case of the wrong type throughout: each event's own reading is reached.
			const requests: Array<[Case, string]> = shapes.map((body) => [first, body]);
			for (const [, c] of list) {
				const parsed = jsonOf(c.body);
				if (parsed !== undefined) requests.push([c, JSON.stringify(wrongTypes(parsed))]);
			}
			for (const [c, body] of requests) {
				const answer = await replayBody(c, body);
				const what = `${name} ${body.slice(0, 60)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`;
				if (answer.status !== 200 && answer.status !== 400) failures.push(what);
				if (answer.status === 200) before = await newestId();
				else if ((await postedSince(before)).length) failures.push(`${what}, and the bot posted`);
			}
		}
		expect(failures).toEqual([]);
	}, 300_000);
});
