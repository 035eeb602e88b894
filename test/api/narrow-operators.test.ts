// Narrow operators and operands as Zulip's NarrowParameter and NarrowBuilder read them, wherever
// a narrow is read (GET /messages, POST /messages/flags/narrow, GET /messages/matches_narrow):
// the legacy names clients still send (zulip-terminal's ["pm_with", email]), every operand form,
// and the refusals of what Zulip refuses.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let snap: Snapshotter;
let alice: Account;
let bob: Account;
let carol: Account;
const as = (a: Account) => client(app.baseUrl, a);
let inChannel: number;
let inOther: number;
let oneToOne: number;
let group: number;
let withCarol: number;

beforeAll(async () => {
	app = await startTestApp();
	snap = await snapshotter(app);
	const owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "legacy" }, { name: "other" }], principals: [alice.user_id, bob.user_id] }));
	inChannel = await sendMessage(as(bob), { type: "stream", to: "legacy", topic: "old names", content: "in the channel" });
	inOther = await sendMessage(as(bob), { type: "stream", to: "other", topic: "old names", content: "elsewhere" });
	oneToOne = await sendMessage(as(bob), { type: "private", to: [alice.user_id], content: "just us" });
	group = await sendMessage(as(bob), { type: "private", to: [alice.user_id, carol.user_id], content: "the three of us" });
	withCarol = await sendMessage(as(alice), { type: "private", to: [carol.user_id], content: "hello Carol" });
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

/** The messages of this file's set that a narrow finds (not Notification Bot's notices). */
async function ids(c: Client, narrow: unknown[]): Promise<number[]> {
	const res = await c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow });
	expectSuccess(res);
	const ours = new Set([inChannel, inOther, oneToOne, group, withCarol]);
	return (res.body.messages as Array<{ id: number }>).map((m) => m.id).filter((id) => ours.has(id));
}

describe("legacy operator names read as Zulip reads them", () => {
	test("pm_with and pm-with are dm: one email, a comma-separated list, or user IDs", async () => {
		const a = as(alice);
		expect(await ids(a, [["pm_with", bob.email]])).toEqual([oneToOne]);
		expect(await ids(a, [["pm-with", bob.email]])).toEqual([oneToOne]);
		expect(await ids(a, [{ operator: "pm-with", operand: [bob.user_id] }])).toEqual([oneToOne]);
		expect(await ids(a, [["dm", `${bob.email},${carol.email}`]])).toEqual([group]);
		expect(await ids(a, [["pm_with", `${carol.email}, ${bob.email}`]])).toEqual([group]);
		expect(await ids(a, [{ operator: "dm", operand: [carol.user_id, bob.user_id] }])).toEqual([group]);
		// A group conversation that never was finds nothing.
		expect(await ids(as(bob), [{ operator: "dm", operand: [carol.user_id] }])).toEqual([]);
	});

	test("stream and streams are channel and channels", async () => {
		const b = as(bob);
		expect(await ids(b, [["stream", "legacy"]])).toEqual([inChannel]);
		expect(await ids(b, [["stream", "LEGACY"], ["topic", "old names"]])).toEqual([inChannel]);
		expect(await ids(b, [["streams", "public"], ["topic", "old names"]])).toEqual([inChannel, inOther]);
	});

	test("group-pm-with and group_pm_with find only group conversations with that user, unlike dm-including", async () => {
		const a = as(alice);
		expect(await ids(a, [["group-pm-with", bob.email]])).toEqual([group]);
		expect(await ids(a, [["group_pm_with", carol.email]])).toEqual([group]);
		expect(await ids(a, [{ operator: "group-pm-with", operand: carol.user_id }])).toEqual([group]);
		expect(await ids(a, [{ operator: "dm-including", operand: carol.user_id }])).toEqual([group, withCarol]);
		expect(await ids(a, [{ operator: "group-pm-with", operand: carol.user_id, negated: true }, ["is", "dm"]])).toEqual([oneToOne, withCarol]);
	});

	test("in:all narrows nothing; in:home leaves out muted channels", async () => {
		// Alice: Bob wrote in "other", so he follows its topic, which shows even where muted.
		const a = as(alice);
		const all = await ids(a, []);
		expect(await ids(a, [["in", "all"]])).toEqual(all);
		expect(await ids(a, [["in", "home"]])).toEqual(all);
		const other = (await a.get("/get_stream_id", { stream: "other" })).body.stream_id;
		expectSuccess(await a.post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: other, property: "is_muted", value: true }] }));
		expect(await ids(a, [["in", "home"]])).toEqual(all.filter((id) => id !== inOther));
		expect(await ids(a, [{ operator: "in", operand: "home", negated: true }])).toEqual([inOther]);
		expect(await ids(a, [{ operator: "in", operand: "all", negated: true }])).toEqual(all);
		expectSuccess(await a.post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: other, property: "is_muted", value: false }] }));
	});

	test("POST /messages/flags/narrow and GET /messages/matches_narrow read the same names", async () => {
		const a = as(alice);
		const res = await a.post("/messages/flags/narrow", { anchor: "newest", num_before: 10, num_after: 0, narrow: JSON.stringify([["pm_with", bob.email]]), op: "add", flag: "starred" });
		expectSuccess(res);
		expect(res.body.updated_count).toBe(1);
		expect(await ids(a, [["is", "starred"]])).toEqual([oneToOne]);
		const matched = await a.get("/messages/matches_narrow", { msg_ids: [oneToOne, group], narrow: [["group_pm_with", carol.email]] });
		expectSuccess(matched);
		expect(Object.keys(matched.body.messages)).toEqual([String(group)]);
	});
});

describe("what Zulip refuses is refused, and changes nothing", () => {
	const get = (narrow: unknown) => as(alice).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow });
	const flags = (narrow: unknown) => as(alice).post("/messages/flags/narrow", { anchor: "newest", num_before: 10, num_after: 0, narrow: JSON.stringify(narrow), op: "add", flag: "read" });
	const matches = (narrow: unknown) => as(alice).get("/messages/matches_narrow", { msg_ids: [oneToOne], narrow });

	// Zulip's NarrowParameter: the term's shape and the operand's type, by the operator as sent.
	const SHAPES: Array<[string, unknown[], string]> = [
		["a dm operand as a list of emails", [{ operator: "dm", operand: ["x@example.com"] }], "operand[0] is not an integer"],
		["a pm-with operand as a list with an email after an ID", [{ operator: "pm-with", operand: [1, "x@example.com"] }], "operand[1] is not an integer"],
		["a dm operand as one integer", [{ operator: "dm", operand: 5 }], "operand is not a string or an integer list"],
		["a pm_with operand as user IDs (underscored names take strings only)", [{ operator: "pm_with", operand: [1] }], "operand is not a string"],
		["a sender operand as a list", [{ operator: "sender", operand: [1] }], "operand is not a string or integer"],
		["a topic operand as a number", [{ operator: "topic", operand: 5 }], "operand is not a string"],
		["a blank search", [{ operator: "search", operand: "  " }], "operand cannot be blank."],
		["a pair with a number", [["sender", 5]], "Invalid narrow[0]: Value error, element is not a string pair"],
		["a pair of three", [["is", "dm", "x"]], "Invalid narrow[0]: Value error, element is not a string pair"],
		["a term that is neither", [["is", "dm"], 5], "Invalid narrow[1]: Value error, dict or list required"],
		["an object without an operand", [{ operator: "is" }], "Invalid narrow[0]: Value error, operand is missing"],
		["an object without an operator", [{ operand: "dm" }], "Invalid narrow[0]: Value error, operator is missing"],
		["an operator that is not a string", [{ operator: 5, operand: "dm" }], 'narrow[0]["operator"] is not a string'],
		["negated that is not a boolean", [{ operator: "is", operand: "dm", negated: "yes" }], 'narrow[0]["negated"] is not a boolean'],
	];
	test.each(SHAPES)("%s", async (_name, narrow, msg) => {
		await snap.refused(() => get(narrow), 400, "BAD_REQUEST", msg);
		await snap.refused(() => flags(narrow), 400, "BAD_REQUEST", msg);
		await snap.refused(() => matches(narrow), 400, "BAD_REQUEST", msg);
	});

	// Zulip's NarrowBuilder: operators and operands it does not know.
	const UNKNOWN: Array<[string, unknown[], string]> = [
		["subject (the web app's alias, not the server's)", [["subject", "old names"]], "unknown operator subject"],
		["dm_including (no underscored spelling but pm_with and group_pm_with)", [["dm_including", "x@example.com"]], "unknown operator dm_including"],
		["an unknown email in a dm", [["pm_with", "nobody@example.com"]], "unknown user in nobody@example.com"],
		["an unknown user ID in a dm", [{ operator: "dm", operand: [99999999] }], "unknown user in [99999999]"],
		["an unknown sender", [["sender", "nobody@example.com"]], "unknown user nobody@example.com"],
		["an unknown group-pm-with user", [["group-pm-with", "nobody@example.com"]], "unknown user nobody@example.com"],
		["an unknown channel", [["stream", "nowhere"]], "unknown channel nowhere"],
		["a channel ID as a string (a name to Zulip)", [["stream", "12345"]], "unknown channel 12345"],
		["an in operand", [["in", "everywhere"]], "unknown 'in' operand everywhere"],
		["a streams operand", [["streams", "private"]], "unknown channels operand private"],
		["an is operand", [["is", "shiny"]], "unknown 'is' operand shiny"],
		["a has operand", [["has", "video"]], "unknown 'has' operand video"],
		["an id that is not a number", [["id", "first"]], "Invalid message ID"],
		["a channel term beside a dm term", [["stream", "legacy"], ["pm_with", "someone@example.com"]], "No message can be both a channel message and direct message"],
		["a topic term beside is:private", [["topic", "old names"], ["is", "private"]], "No message can be both a channel message and direct message"],
	];
	test.each(UNKNOWN)("%s", async (_name, narrow, msg) => {
		await snap.refused(() => get(narrow), 400, "BAD_NARROW", `Invalid narrow operator: ${msg}`);
		await snap.refused(() => flags(narrow), 400, "BAD_NARROW", `Invalid narrow operator: ${msg}`);
		await snap.refused(() => matches(narrow), 400, "BAD_NARROW", `Invalid narrow operator: ${msg}`);
	});

	test("a negated channel or dm term does not conflict, and a negated is:dm is a channel term", async () => {
		expect(await ids(as(alice), [{ operator: "channel", operand: "legacy", negated: true }, ["pm_with", bob.email]])).toEqual([oneToOne]);
		expect(await ids(as(bob), [{ operator: "is", operand: "dm", negated: true }, ["stream", "legacy"]])).toEqual([inChannel]);
		await snap.refused(() => get([{ operator: "is", operand: "dm", negated: true }, ["pm_with", bob.email]]), 400, "BAD_NARROW", "Invalid narrow operator: No message can be both a channel message and direct message");
	});
});
