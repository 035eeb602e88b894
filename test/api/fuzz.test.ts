// Property-based fuzzing of every route in services/api/routes.ts: each request sends one declared
// parameter with a generated bad value (wrong type, null, huge, deeply nested, odd Unicode,
// out-of-range number, unknown ID; integers past 2^53, 1e308 and fractions to every parameter that
// takes integers) or leaves it out, the others plausible or a valid baseline for each route that
// writes, as the owner, an administrator or a member, form-encoded, as JSON or in the query
// string. Every answer must be a success or Zulip's error envelope, never a 5xx, and a refused
// request must change no document in any service's database (test/support/db-snapshot.ts reads
// them all). FUZZ_SEED and FUZZ_RUNS override the fixed seed and the number of runs (1,500:
// about a minute); FUZZ_DEBUG=1 prints every answer.
import fc from "fast-check";
import { routes, type Route } from "../../services/api/routes";
import type { Rule } from "../../shared/params";
import { startTestApp, type Cast, type TestApp } from "../support/app";
import { client, jsonOf, sendMessage } from "../support/http";
import { diffSnapshots, snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventually } from "../support/eventually";

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);

let app: TestApp;
let cast: Cast;
let snap: Snapshotter;
const ids: Record<string, number[]> = {};
let victimEmail = "";

/** A value to send, as its JSON text (what a form field holds, unless it is a plain string). */
interface V {
	json: string;
	str?: string;
}
/** Long values print cut short in a counterexample. */
function shown(json: string): V {
	return Object.defineProperty({ json }, fc.toStringMethod, { value: () => (json.length > 80 ? `${json.slice(0, 80)}… (${json.length} chars)` : json) }) as V;
}
const v = (x: unknown): V => Object.assign(shown(JSON.stringify(x)), typeof x === "string" ? { str: x } : {});
const rawJson = (json: string): V => shown(json);

/**
 * Valid parameters for the routes that write, so that one bad parameter among good ones reaches
 * the handler's own checks (and any write made before them).
 */
function baselines(): Record<string, Record<string, unknown>> {
	const member = cast.member.user_id;
	return {
		"POST /users": { email: "new.user@chat.test", password: "password123", full_name: "New User" },
		"POST /user_groups/create": { name: "new group", description: "d", members: [member] },
		"PATCH /user_groups/{user_group_id}": { name: "renamed", description: "d2" },
		"POST /user_groups/{user_group_id}/members": { add: [cast.member2.user_id], delete: [] },
		"POST /users/me/subscriptions": { subscriptions: [{ name: "new channel", description: "d" }], principals: [member] },
		"PATCH /streams/{stream_id}": { description: "new", new_name: "renamed channel" },
		"POST /messages": { type: "stream", to: "fuzz", topic: "t", content: "c" },
		"PATCH /messages/{message_id}": { content: "edited", topic: "t2" },
		"POST /drafts": { drafts: [{ type: "stream", to: [ids.stream_id[0]], topic: "t", content: "c", timestamp: 1 }] },
		"PATCH /drafts/{draft_id}": { draft: { type: "stream", to: [ids.stream_id[0]], topic: "t", content: "c", timestamp: 1 } },
		"POST /saved_snippets": { title: "s", content: "c" },
		"PATCH /saved_snippets/{saved_snippet_id}": { title: "s2", content: "c2" },
		"POST /realm/profile_fields": { name: "Field", field_type: 1, hint: "h" },
		"PATCH /realm/profile_fields/{field_id}": { name: "Field 2", hint: "h2" },
		"PATCH /settings": { full_name: "Other Name", default_language: "de", web_font_size_px: 16 },
		"POST /channel_folders/create": { name: "F2", description: "" },
		"PATCH /channel_folders/{channel_folder_id}": { name: "F3", description: "x" },
		"POST /messages/{message_id}/reactions": { emoji_name: "smile" },
		"POST /users/me/alert_words": { alert_words: ["word"] },
		"POST /users/me/subscriptions/properties": { subscription_data: [{ stream_id: ids.stream_id[0], property: "color", value: "#ff0000" }] },
		"PATCH /users/{user_id}": { full_name: "Renamed", role: 400 },
		"PATCH /users/me/profile_data": { data: [{ id: ids.field_id[0], value: "123" }] },
		"POST /messages/flags": { messages: ids.message_id, op: "add", flag: "starred" },
		"POST /user_topics": { stream_id: ids.stream_id[0], topic: "t", visibility_policy: 1 },
		"POST /default_streams": { stream_id: ids.stream_id[1] },
		"DELETE /default_streams": { stream_id: ids.stream_id[1] },
		"PATCH /users/{email}": { full_name: "Renamed Again" },
		"POST /users/me/presence": { status: "active" },
		"POST /users/me/status": { status_text: "busy", emoji_name: "car", away: false },
		"DELETE /users/me/profile_data": { data: [ids.field_id[0]] },
		"PATCH /settings/display": { web_font_size_px: 14 },
		"PATCH /settings/notifications": { enable_sounds: false },
		"POST /user_groups/{user_group_id}/subgroups": { add: [], delete: [] },
		"DELETE /users/me/subscriptions": { subscriptions: ["fuzz two"] },
		"PATCH /users/me/subscriptions/muted_topics": { stream_id: ids.stream_id[0], topic: "t", op: "add" },
		"POST /messages/flags/narrow": { anchor: "newest", num_before: 5, num_after: 0, narrow: [], op: "add", flag: "read" },
		"POST /mark_stream_as_read": { stream_id: ids.stream_id[0] },
		"POST /mark_topic_as_read": { stream_id: ids.stream_id[0], topic_name: "t" },
		"POST /streams/{stream_id}/delete_topic": { topic_name: "t" },
		"DELETE /messages/{message_id}/reactions": { emoji_name: "smile" },
		"POST /messages/{message_id}/report": { report_type: "spam", description: "d" },
		"POST /scheduled_messages": { type: "stream", to: ids.stream_id[0], topic: "t", content: "c", scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400 },
		"PATCH /scheduled_messages/{scheduled_message_id}": { content: "c2", topic: "t2" },
		"POST /invites": { invitee_emails: "invitee@chat.test", stream_ids: [ids.stream_id[0]] },
		"POST /invites/multiuse": { invite_expires_in_minutes: 60, stream_ids: [ids.stream_id[0]] },
		"DELETE /users/me/alert_words": { alert_words: ["word"] },
		"PATCH /realm": { name: "Fuzz org", description: "d", message_content_edit_limit_seconds: 600 },
		"POST /realm/playgrounds": { name: "P", pygments_language: "python", url_template: "https://play.test/?c={code}" },
		"POST /realm/filters": { pattern: "#(?P<id>[0-9]+)", url_template: "https://issues.test/{id}" },
		"PATCH /realm/filters/{filter_id}": { pattern: "!(?P<id>[0-9]+)", url_template: "https://issues.test/m/{id}" },
		"PATCH /realm/linkifiers": { ordered_linkifier_ids: ids.filter_id },
		"POST /navigation_views": { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" },
		"PATCH /navigation_views/{fragment...}": { is_pinned: false, name: "Renamed view" },
		"POST /users/me/apns_device_token": { token: "c0ffeec0ffee", appid: "org.zulip.Zulip" },
		"POST /users/me/android_gcm_reg_id": { token: "fcm-token" },
		"PATCH /realm/profile_fields": { order: ids.field_id },
		"POST /bots": { full_name: "Fuzz Bot", short_name: "fuzzbot", bot_type: 3, payload_url: JSON.stringify("https://hook.test/x"), default_sending_stream: "fuzz" },
		"PATCH /bots/{bot_id}": { full_name: "Fuzz Bot Renamed", default_sending_stream: "fuzz", default_all_public_streams: true },
	};
}

beforeAll(async () => {
	app = await startTestApp();
	cast = await app.createCast();
	const owner = client(app.baseUrl, app.owner);
	const victim = await app.createUser({ role: 400 });
	victimEmail = victim.email;
	const everyone = [cast.admin, cast.member, cast.member2, cast.moderator].map((u) => u.user_id);
	await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "fuzz" }, { name: "fuzz two" }], principals: everyone });
	const streams = (await owner.get("/streams")).body.streams as { stream_id: number }[];
	const messageId = await sendMessage(client(app.baseUrl, cast.member), { type: "stream", to: "fuzz", topic: "t", content: "hello" });
	await sendMessage(client(app.baseUrl, cast.admin), { type: "direct", to: [cast.member.user_id], content: "hi" });
	const group = await owner.post("/user_groups/create", { name: "fuzzers", description: "d", members: [cast.member.user_id] });
	const field = await owner.post("/realm/profile_fields", { name: "Phone", field_type: 1 });
	const folder = await owner.post("/channel_folders/create", { name: "Folder", description: "" });
	const draft = await client(app.baseUrl, cast.member).post("/drafts", { drafts: [{ type: "stream", to: [streams[0].stream_id], topic: "t", content: "c", timestamp: 1 }] });
	const snippet = await client(app.baseUrl, cast.member).post("/saved_snippets", { title: "s", content: "c" });
	const scheduled = await client(app.baseUrl, cast.admin).post("/scheduled_messages", {
		type: "stream",
		to: streams[0].stream_id,
		topic: "t",
		content: "later",
		scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400,
	});
	const filter = await owner.post("/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://issues.test/{id}" });
	const playground = await owner.post("/realm/playgrounds", { name: "Py", pygments_language: "python", url_template: "https://play.test/?c={code}" });
	const invite = await owner.post("/invites", { invitee_emails: "pending@chat.test", stream_ids: [streams[0].stream_id] });
	await client(app.baseUrl, cast.member).post("/navigation_views", { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" });
	ids.user_id = [victim.user_id, cast.member2.user_id];
	ids.stream_id = streams.map((s) => s.stream_id);
	ids.message_id = [messageId];
	ids.user_group_id = [group.body.group_id];
	ids.field_id = [field.body.id];
	ids.channel_folder_id = [folder.body.channel_folder_id];
	ids.draft_id = draft.body.ids ?? [];
	ids.saved_snippet_id = [snippet.body.saved_snippet_id];
	ids.scheduled_message_id = [scheduled.body.scheduled_message_id];
	ids.filter_id = [filter.body.id];
	ids.playground_id = [playground.body.id];
	ids.invite_id = ((await owner.get("/invites")).body.invites as { id: number }[]).map((i) => i.id);
	const bot = await client(app.baseUrl, cast.member).post("/bots", { full_name: "Member's bot", short_name: "membersbot" });
	ids.bot_id = [bot.body.user_id];
	expect(invite.status).toBe(200);
	snap = await snapshotter(app);
}, 60_000);

afterAll(async () => {
	await snap?.close();
	await app?.stop();
});

function normalize(rule: Rule | Rule[] | string | boolean): Rule {
	if (Array.isArray(rule)) return { type: "multi", rules: rule };
	if (typeof rule === "string") return { type: rule.split("|")[0], optional: rule.includes("optional") };
	if (typeof rule === "boolean") return { type: "any" };
	return rule;
}

const allIds = () => Object.values(ids).flat();

/** A plausible value for `rule`: what a client could well send. */
function plausible(rule: Rule, depth = 0): fc.Arbitrary<unknown> {
	switch (rule.type) {
		case "string":
			if (rule.enum) return fc.constantFrom(...(rule.enum as string[]));
			return fc.oneof(fc.constantFrom("fuzz", "t", "hello", victimEmail, "x"), fc.string({ maxLength: 12 }));
		case "number":
			return fc.oneof(fc.constantFrom(...allIds()), fc.integer({ min: -1, max: 50 }));
		case "boolean":
			return fc.boolean();
		case "enum":
			return fc.constantFrom(...(rule.values as unknown[]));
		case "array":
			return depth > 2 ? fc.constant([]) : fc.array(plausible(normalize(rule.items ?? "any"), depth + 1), { maxLength: 3 });
		case "object": {
			if (!rule.props || depth > 2) return fc.constant({});
			const props = Object.fromEntries(Object.entries(rule.props as Record<string, Rule>).map(([k, r]) => [k, plausible(normalize(r), depth + 1)]));
			return fc.record(props, { requiredKeys: [] });
		}
		case "multi":
			return fc.oneof(...(rule.rules as Rule[]).map((r) => plausible(normalize(r), depth)));
		default:
			return fc.jsonValue({ maxDepth: 2 });
	}
}

const nested = (open: string, close: string, n: number) => rawJson(open.repeat(n) + "1" + close.repeat(n));

/** Values no parameter should take without a clean refusal (or, at worst, a success). */
const hostile: fc.Arbitrary<V> = fc.oneof(
	fc
		.constantFrom<unknown>(
			null,
			true,
			0,
			-1,
			1.5,
			2 ** 31,
			2 ** 53 + 2,
			-(2 ** 63),
			1e308,
			-1e308,
			"",
			" ",
			"null",
			"NaN",
			"Infinity",
			"1e308",
			"-0",
			"0x10",
			"\u0000",
			"\uD800",
			"a\uDC00b",
			"\u202Eevil",
			"\uFEFF\u200B",
			"e\u0301",
			"\uFFFF",
			"🙂".repeat(50),
			"a".repeat(10_000),
			[],
			{},
			[null],
			[[]],
			{ a: null },
			[1, "x", null],
			["\uD800"],
			999_999,
			[999_999],
			{ __proto__x: 1, constructor: 2 },
		)
		.map(v),
	fc.constantFrom(
		rawJson("[".repeat(10_000) + "]".repeat(10_000)),
		nested('{"a":', "}", 20_000),
		rawJson(JSON.stringify(Array.from({ length: 100_000 }, (_, i) => i))),
		v("x".repeat(300_000)),
	),
	fc.jsonValue({ maxDepth: 3 }).map(v),
	fc.string({ unit: "binary", maxLength: 20 }).map(v),
	fc.double().map((d) => rawJson(Number.isFinite(d) ? JSON.stringify(d) : String(d))),
	fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((b) => rawJson(b.toString())),
);

/** Integers no JavaScript number holds exactly, and numbers that are no integers: each alone or in a list. */
const HUGE = ["9223372036854775808", "-9223372036854775809", "9007199254740993", "1e308", "-1e308", "1.5"];
const hugeInts: fc.Arbitrary<V> = fc.constantFrom(...HUGE).chain((h) => fc.constantFrom(rawJson(h), rawJson(`[${h}]`)));

/** Whether a parameter takes integers anywhere in its shape (IDs, lists of IDs, integer settings). */
function takesIntegers(rule: Rule, depth = 0): boolean {
	if (depth > 4) return false;
	if (rule.type === "number") return true;
	if (rule.type === "enum") return (rule.values as unknown[]).some((x) => typeof x === "number");
	if (rule.type === "multi") return (rule.rules as Rule[]).some((r) => takesIntegers(normalize(r), depth + 1));
	if (rule.type === "array") return takesIntegers(normalize(rule.items ?? "any"), depth + 1);
	if (rule.type === "object") return Object.values((rule.props ?? {}) as Record<string, Rule>).some((r) => takesIntegers(normalize(r), depth + 1));
	return false;
}

interface Plan {
	route: Route;
	as: "owner" | "admin" | "member";
	encoding: "form" | "json";
	path: string;
	params: Record<string, V>;
	target: string;
}

function pathArb(route: Route): fc.Arbitrary<string> {
	const parts = route.path.split(/(\{\w+(?:\.\.\.)?\})/);
	return fc.tuple(
		...parts.map((part) => {
			const m = /^\{(\w+)(?:\.\.\.)?\}$/.exec(part);
			if (!m) return fc.constant(part);
			if (m[1] === "fragment") return fc.constantFrom("narrow%2Fis%2Falerted", "inbox", "x".repeat(2000));
			if (m[1] === "email") return fc.constantFrom(encodeURIComponent(victimEmail), "nobody%40chat.test", "%F0%9F%99%82", "a".repeat(300));
			return fc.constantFrom(...(ids[m[1]] ?? [1]).map(String), "0", "999999", "99999999999999999999");
		}),
	).map((p) => p.join(""));
}

function planArb(): fc.Arbitrary<Plan> {
	const base = baselines();
	return fc.constantFrom(...routes).chain((route) => {
		const endpoint = app.node.broker.registry.getActionEndpoints(route.action)?.endpoints[0];
		const schema = (endpoint?.action.params ?? {}) as Record<string, Rule | Rule[] | string | boolean>;
		const declared = Object.keys(schema).filter((k) => !k.startsWith("$$") && !/\{/.test(k) && !route.path.includes(`{${k}}`) && !route.path.includes(`{${k}...}`));
		const names = declared.length ? declared : ["anything"];
		return fc.constantFrom(...names).chain((target) => fc.record({
			route: fc.constant(route),
			// The owner too: some settings (the waiting period among them) only an owner may change.
			as: fc.constantFrom<Plan["as"]>("owner", "admin", "member"),
			encoding: fc.constantFrom<"form" | "json">("form", "json"),
			path: pathArb(route),
			target: fc.constant(target),
			bad: fc.option(schema[target] !== undefined && takesIntegers(normalize(schema[target])) ? fc.oneof(hostile, hugeInts) : hostile, { freq: 6 }),
			others: fc.oneof(
				fc.record(
					Object.fromEntries(declared.map((k) => [k, plausible(normalize(schema[k])).map(v)])),
					{ requiredKeys: [] },
				) as fc.Arbitrary<Record<string, V>>,
				fc.constant(Object.fromEntries(Object.entries(base[`${route.method} ${route.path}`] ?? {}).map(([k, x]) => [k, v(x)]))),
			),
		}).map(({ bad, others, target, ...rest }) => {
			const params = { ...others };
			delete params[target];
			// null from fc.option: the target parameter is left out.
			if (bad !== null) params[target] = bad;
			return { ...rest, target, params };
		}));
	});
}

const caller = (plan: Plan) => (plan.as === "owner" ? app.owner : plan.as === "admin" ? cast.admin : cast.member);

async function send(plan: Plan): Promise<{ status: number; body: any; text: string }> {
	const who = caller(plan);
	const headers: Record<string, string> = { Authorization: `Basic ${Buffer.from(`${who.email}:${who.api_key}`).toString("base64")}` };
	let url = `${app.baseUrl}${plan.path}`;
	let body: string | undefined;
	const form = new URLSearchParams();
	for (const [k, x] of Object.entries(plan.params)) form.append(k, x.str ?? x.json);
	if (plan.route.method === "GET") {
		if ([...form.keys()].length) url += `?${form}`;
	} else if (plan.encoding === "json") {
		headers["Content-Type"] = "application/json";
		body = `{${Object.entries(plan.params)
			.map(([k, x]) => `${JSON.stringify(k)}:${x.json}`)
			.join(",")}}`;
	} else {
		headers["Content-Type"] = "application/x-www-form-urlencoded";
		body = form.toString();
	}
	const res = await fetch(url, { method: plan.route.method, headers, body });
	const text = await res.text();
	return { status: res.status, body: jsonOf(text), text };
}

function describePlan(plan: Plan): string {
	const params = Object.fromEntries(Object.entries(plan.params).map(([k, x]) => [k, x.json.length > 120 ? `${x.json.slice(0, 120)}… (${x.json.length} chars)` : x.json]));
	return `${plan.route.method} ${plan.path} as ${plan.as} (${plan.encoding}), target ${plan.target}: ${JSON.stringify(params)}`;
}

/** Waits until no organization export is pending (a hang is bounded, not timed). */
async function exportsDone(): Promise<void> {
	await eventually(async () => {
		const res = await client(app.baseUrl, app.owner).get("/export/realm");
		return !(res.body.exports as Array<{ pending: boolean }>).some((e) => e.pending);
	}, "the organization exports to finish");
}

/** Waits until the databases stop changing (events a success set off land after its answer). */
async function settled(): Promise<Map<string, string>> {
	let last = await snap.take();
	for (let i = 0; i < 20; i++) {
		await new Promise((r) => setTimeout(r, 25));
		const next = await snap.take();
		if (diffSnapshots(last, next).length === 0) return next;
		last = next;
	}
	return last;
}

test("every route answers bad parameters with a Zulip error or a success, never a 5xx, and a refusal changes nothing", async () => {
	let state = await settled();
	try {
		await fc.assert(
			fc.asyncProperty(planArb(), async (plan) => {
				const res = await send(plan).catch((err: Error) => {
					throw new Error(`${describePlan(plan)}: no answer (${err.message}, ${String((err.cause as { code?: string })?.code)})`);
				});
				if (process.env.FUZZ_DEBUG) process.stdout.write(`${res.status} ${plan.route.method} ${plan.route.path} ${res.text.slice(0, 100)}\n`);
				const what = `${describePlan(plan)} → ${res.status} ${res.text.slice(0, 300)}`;
				if (res.status >= 500) throw new Error(`5xx: ${what}`);
				if (!res.body || typeof res.body !== "object") throw new Error(`not JSON: ${what}`);
				if (res.status === 200) {
					if (res.body.result !== "success") throw new Error(`200 without success: ${what}`);
					// The caller's key was regenerated: the runs after it use the new one.
					if (plan.route.method === "POST" && plan.route.path === "/users/me/api_key/regenerate") caller(plan).api_key = res.body.api_key;
					// The caller deactivated their own account: back, so the runs after it still reach the handlers.
					if (plan.route.method === "DELETE" && plan.route.path === "/users/me") {
						const who = caller(plan);
						const back = await client(app.baseUrl, app.owner).post(`/users/${who.user_id}/reactivate`);
						if (back.status !== 200) throw new Error(`could not reactivate ${who.email}: ${back.status}`);
					}
					// An organization export is written in the background after its answer: done first.
					if (plan.route.path === "/export/realm" && plan.route.method === "POST") await exportsDone();
					state = await settled();
					return;
				}
				if (res.body.result !== "error" || typeof res.body.msg !== "string" || typeof res.body.code !== "string") throw new Error(`not a Zulip error: ${what}`);
				const after = await snap.take();
				const diff = diffSnapshots(state, after);
				if (diff.length) {
					state = await settled();
					throw new Error(`state changed on error: ${what}\n${diff.join("\n")}`);
				}
			}),
			{ seed: SEED, numRuns: RUNS, endOnFailure: true },
		);
	} catch (err) {
		throw new Error(`fuzz failed with seed ${SEED} (FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} to replay)\n${(err as Error).message}`);
	}
}, 240_000);
