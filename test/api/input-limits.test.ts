// Integers beyond what JavaScript holds exactly and over-long strings, on the endpoints that store
// them: each refused with Zulip's error before anything is written (the databases unchanged), or,
// where Zulip cuts rather than refuses (a draft's content), cut.
import { startTestApp, type Cast, type TestApp } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let cast: Cast;
let snap: Snapshotter;
let owner: Client;
let member: Client;
let channelId: number;

beforeAll(async () => {
	app = await startTestApp();
	cast = await app.createCast();
	owner = client(app.baseUrl, app.owner);
	member = client(app.baseUrl, cast.member);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "limits" }], principals: [cast.member.user_id] }));
	channelId = ((await owner.get("/streams")).body.streams as { name: string; stream_id: number }[]).find((s) => s.name === "limits")!.stream_id;
	snap = await snapshotter(app);
}, 60_000);

afterAll(async () => {
	await snap?.close();
	await app?.stop();
});

const long = (n: number) => "x".repeat(n);
const refused = (request: () => Promise<any>, msg: string) => snap.refused(request, 400, "BAD_REQUEST", msg);

describe("integers", () => {
	test("PATCH /realm: a waiting period past 2^53 or Zulip's column is refused and changes nothing", async () => {
		for (const v of ["9223372036854775808", "9007199254740993"]) {
			await refused(() => owner.patch("/realm", { waiting_period_threshold: v, name: "Renamed" }), "waiting_period_threshold is too large");
		}
		await refused(() => owner.patch("/realm", { waiting_period_threshold: "1e308" }), "waiting_period_threshold is not an integer");
		await refused(() => owner.patch("/realm", { waiting_period_threshold: "1.5" }), "waiting_period_threshold is not an integer");
		// The same values in a JSON body arrive as numbers, already rounded.
		await refused(() => owner.patch("/realm", { waiting_period_threshold: 2 ** 63 }, { json: true }), "waiting_period_threshold is too large");
		await refused(() => owner.patch("/realm", { waiting_period_threshold: 1e308 }, { json: true }), "waiting_period_threshold is too large");
		await refused(() => owner.patch("/realm", { waiting_period_threshold: -1e308 }, { json: true }), "waiting_period_threshold is too small");
		await refused(() => owner.patch("/realm", { waiting_period_threshold: 1.5 }, { json: true }), "waiting_period_threshold is not an integer");
		await refused(() => owner.patch("/realm", { waiting_period_threshold: 2 ** 31 }), "Invalid waiting_period_threshold");
		await refused(() => owner.patch("/realm", { message_content_edit_limit_seconds: "9223372036854775808" }), "Bad value for 'message_content_edit_limit_seconds': 9223372036854775808");
		await refused(() => owner.patch("/realm", { message_content_edit_limit_seconds: 2 ** 31 }), `Bad value for 'message_content_edit_limit_seconds': ${2 ** 31}`);
	});

	test("PATCH /realm: the largest waiting period Zulip stores is taken, and every member stops being full", async () => {
		const groups = async () => (await owner.get("/user_groups")).body.user_groups as { name: string; members: number[] }[];
		const full = async () => (await groups()).find((g) => g.name === "role:fullmembers")!.members;
		expect(await full()).toContain(cast.member.user_id);
		const res = await owner.patch("/realm", { waiting_period_threshold: 2 ** 31 - 1 });
		expectSuccess(res);
		expect(res.body.waiting_period_threshold).toBe(2 ** 31 - 1);
		expect(await full()).not.toContain(cast.member.user_id);
		expectSuccess(await owner.patch("/realm", { waiting_period_threshold: 0 }));
		expect(await full()).toContain(cast.member.user_id);
	});

	test("IDs, lists of IDs and channel settings beyond 2^53 are refused", async () => {
		await refused(() => owner.get("/users/9007199254740993"), "user_id is too large");
		await refused(() => owner.post("/user_groups/create", { name: "big", description: "", members: "[9223372036854775808]" }), "members is too large");
		await refused(() => owner.patch(`/streams/${channelId}`, { message_retention_days: "9223372036854775808" }), "Bad value for 'message_retention_days'");
		await refused(() => owner.patch(`/streams/${channelId}`, { message_retention_days: 2 ** 31 }), "Bad value for 'message_retention_days'");
		// An anchor past every ID is the newest message, as Zulip clamps it.
		const newest = await member.get("/messages", { anchor: "99999999999999999999", num_before: 1, num_after: 0 });
		expectSuccess(newest);
		expect(newest.body.found_newest).toBe(true);
	});

	test("a draft's timestamp past year 9999 is refused", async () => {
		const draft = { type: "stream", to: [channelId], topic: "t", content: "c", timestamp: 10 ** 15 };
		await refused(() => member.post("/drafts", { drafts: [draft] }), 'drafts[0]["timestamp"] is too large');
	});
});

describe("strings", () => {
	test("navigation views: a name or fragment over the limit", async () => {
		await refused(() => member.post("/navigation_views", { fragment: "narrow/channel/1-x", is_pinned: true, name: long(1_000_000) }), "name is too long (limit: 200 characters)");
		await refused(() => member.post("/navigation_views", { fragment: long(1001), is_pinned: true, name: "x" }), "fragment is too long (limit: 1000 characters)");
		expectSuccess(await member.post("/navigation_views", { fragment: "narrow/channel/1-x", is_pinned: true, name: long(200) }));
		await refused(() => member.patch("/navigation_views/narrow%2Fchannel%2F1-x", { name: long(201) }), "name is too long (limit: 200 characters)");
	});

	test("linkifiers and code playgrounds", async () => {
		await refused(() => owner.post("/realm/filters", { pattern: `#(?P<id>[0-9]+)${long(1000)}`, url_template: "https://x.test/{id}" }), "pattern is too long (limit: 1000 characters)");
		await refused(() => owner.post("/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: `https://x.test/{id}${long(2000)}` }), "url_template is too long (limit: 2000 characters)");
		await refused(() => owner.post("/realm/playgrounds", { name: long(201), pygments_language: "python", url_template: "https://x.test/?c={code}" }), "name is too long (limit: 200 characters)");
		await refused(() => owner.post("/realm/playgrounds", { name: "P", pygments_language: "python", url_template: `https://x.test/?c={code}${long(2000)}` }), "url_template is too long (limit: 2000 characters)");
	});

	test("custom profile fields, user groups, channels and channel folders, at Zulip's limits", async () => {
		await refused(() => owner.post("/realm/profile_fields", { name: long(41), field_type: 1 }), "name is too long (limit: 40 characters)");
		await refused(() => owner.post("/realm/profile_fields", { name: "F", hint: long(81), field_type: 1 }), "hint is too long (limit: 80 characters)");
		await refused(() => owner.post("/user_groups/create", { name: long(101), description: "", members: [] }), "User group name cannot exceed 100 characters.");
		await refused(() => owner.post("/user_groups/create", { name: "g", description: long(1025), members: [] }), "description is too long (limit: 1024 characters)");
		await refused(() => owner.patch(`/streams/${channelId}`, { description: long(1025) }), "description is too long (limit: 1024 characters)");
		await refused(() => owner.post("/channel_folders/create", { name: long(61), description: "" }), "Channel folder name too long (limit: 60 characters).");
		await refused(() => owner.patch("/realm", { name: long(41) }), "name is too long (limit: 40 characters)");
	});

	test("alert words and saved snippets", async () => {
		await refused(() => member.post("/users/me/alert_words", { alert_words: [long(101)] }), "alert_words[0] is too long (limit: 100 characters)");
		await refused(() => member.post("/saved_snippets", { title: long(201), content: "c" }), "title is too long (limit: 200 characters)");
	});

	test("a draft's content past the message limit is cut with Zulip's notice", async () => {
		const res = await member.post("/drafts", { drafts: [{ type: "stream", to: [channelId], topic: "t", content: long(1_000_000) }] });
		expectSuccess(res);
		const stored = ((await member.get("/drafts")).body.drafts as { id: number; content: string }[]).find((d) => d.id === res.body.ids[0])!;
		expect(stored.content).toHaveLength(10_000);
		expect(stored.content.endsWith("x\n[message truncated]")).toBe(true);
	});
});
