// GET /messages/matches_narrow: which of some messages match a narrow, highlighted as a search
// narrow highlights them; only the caller's own messages count, as in Zulip.
import http from "node:http";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, encodeParams, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let snap: Snapshotter;
let owner: Client;
let alice: Account;
let bob: Account;
const as = (a: Account) => client(app.baseUrl, a);
let running: number;
let lunch: number;
let direct: number;
let lounge: number;
let secret: number;

/** A GET whose parameters travel form-encoded in its body, as Django reads them too: a list too long for a URL. */
function getWithBody(account: Account, path: string, params: Record<string, unknown>): Promise<{ status: number; body: any }> {
	const body = encodeParams(params).toString();
	const url = new URL(`${app.baseUrl}${path}`);
	return new Promise((resolve, reject) => {
		const req = http.request(
			url,
			{
				method: "GET",
				headers: {
					Authorization: `Basic ${Buffer.from(`${account.email}:${account.api_key}`).toString("base64")}`,
					"Content-Type": "application/x-www-form-urlencoded",
					"Content-Length": Buffer.byteLength(body),
				},
			},
			(res) => {
				let text = "";
				res.on("data", (chunk) => (text += chunk));
				res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
			},
		);
		req.on("error", reject);
		req.end(body);
	});
}

const matches = (c: Client, msgIds: unknown, narrow: unknown) => c.get("/messages/matches_narrow", { msg_ids: msgIds, narrow });

beforeAll(async () => {
	app = await startTestApp();
	snap = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "lounge" }] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true }));
	running = await sendMessage(owner, { type: "stream", to: "general", topic: "Plans", content: "Running late today" });
	lunch = await sendMessage(owner, { type: "stream", to: "general", topic: "lunch <at> noon & later", content: "Soup or **salad**?" });
	direct = await sendMessage(as(bob), { type: "private", to: [alice.user_id], content: "new running shoes" });
	// A public channel Alice is not in: she may read its history, but never received the message.
	lounge = await sendMessage(owner, { type: "stream", to: "lounge", topic: "Plans", content: "running club" });
	secret = await sendMessage(owner, { type: "stream", to: "vault", topic: "Plans", content: "running secret" });
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

describe("GET /messages/matches_narrow", () => {
	test("a search narrow: the matching messages the caller received, keyed by ID, highlighted", async () => {
		const res = await matches(as(alice), [running, lunch, direct, lounge, secret], [{ operator: "search", operand: "runs" }]);
		expectSuccess(res);
		expect(res.body).toEqual({
			result: "success",
			msg: "",
			messages: {
				[running]: { match_content: '<p><span class="highlight">Running</span> late today</p>', match_subject: "Plans" },
				[direct]: { match_content: '<p>new <span class="highlight">running</span> shoes</p>', match_subject: "" },
			},
		});
		// The topic is searched and highlighted too.
		const topic = await matches(as(alice), [running, lunch], [{ operator: "search", operand: "plans" }]);
		expect(topic.body.messages).toEqual({ [running]: { match_content: "<p>Running late today</p>", match_subject: '<span class="highlight">Plans</span>' } });
	});

	test("other narrows: the rendered content and the HTML-escaped topic, unhighlighted", async () => {
		const res = await matches(as(alice), [running, lunch, direct], [{ operator: "channel", operand: "general" }]);
		expectSuccess(res);
		expect(res.body.messages).toEqual({
			[running]: { match_content: "<p>Running late today</p>", match_subject: "Plans" },
			[lunch]: { match_content: "<p>Soup or <strong>salad</strong>?</p>", match_subject: "lunch &lt;at&gt; noon &amp; later" },
		});
		const dms = await matches(as(alice), [running, lunch, direct], [["is", "dm"]]);
		expect(Object.keys(dms.body.messages)).toEqual([String(direct)]);
		const negated = await matches(as(alice), [running, lunch, direct], [{ operator: "search", operand: "running", negated: true }]);
		expect(negated.body.messages).toEqual({ [lunch]: { match_content: "<p>Soup or <strong>salad</strong>?</p>", match_subject: "lunch &lt;at&gt; noon &amp; later" } });
		// An empty narrow matches every message the caller has.
		const all = await matches(as(alice), [direct, running, running, 999_999], []);
		expect(Object.keys(all.body.messages)).toEqual([String(running), String(direct)]);
		expect((await matches(as(alice), [], [])).body.messages).toEqual({});
	});

	test("only the caller's own messages: not a channel history it may read, nor one it may not", async () => {
		// GET /messages shows Alice the lounge's history ...
		const history = await as(alice).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "channel", operand: "lounge" }] });
		expect(history.body.messages.map((m: { id: number }) => m.id)).toContain(lounge);
		// ... but she received none of it.
		expect((await matches(as(alice), [lounge, secret], [{ operator: "channel", operand: "lounge" }])).body.messages).toEqual({});
		expect((await matches(as(alice), [lounge, secret], [])).body.messages).toEqual({});
		expect(Object.keys((await matches(owner, [lounge, secret], [])).body.messages)).toEqual([String(lounge), String(secret)]);
	});

	test("bad input is refused with Zulip's errors and changes nothing", async () => {
		const narrow = [{ operator: "search", operand: "running" }];
		await snap.refused(() => as(alice).get("/messages/matches_narrow", { narrow }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'msg_ids' argument");
		await snap.refused(() => as(alice).get("/messages/matches_narrow", { msg_ids: [running] }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'narrow' argument");
		await snap.refused(() => matches(as(alice), "running", narrow), 400, "BAD_REQUEST", 'Argument "msg_ids" is not valid JSON.');
		await snap.refused(() => matches(as(alice), { id: running }, narrow), 400, "BAD_REQUEST", "msg_ids is not a list");
		await snap.refused(() => matches(as(alice), ["one"], narrow), 400, "BAD_REQUEST", "msg_ids[0] is not an integer");
		await snap.refused(() => matches(as(alice), [running], null), 400, "BAD_REQUEST", "narrow is not a list");
		await snap.refused(() => matches(as(alice), [running], { operator: "search" }), 400, "BAD_REQUEST", "narrow is not a list");
		await snap.refused(() => matches(as(alice), [running], [{ operator: "colour", operand: "red" }]), 400, "BAD_NARROW", "Invalid narrow operator: unknown operator colour");
		await snap.refused(() => matches(as(alice), [running], [{ operator: "channel", operand: "nowhere" }]), 400, "BAD_NARROW", "Invalid narrow operator: unknown channel nowhere");
		const many = Array.from({ length: 5001 }, (_, i) => i + 1);
		await snap.refused(() => getWithBody(alice, "/messages/matches_narrow", { msg_ids: many, narrow: [] }), 400, "BAD_REQUEST", "Too many messages requested (maximum 5000).");
		const most = await getWithBody(alice, "/messages/matches_narrow", { msg_ids: many.slice(0, 5000), narrow: [["search", "running"]] });
		expect(most.status).toBe(200);
		expect(Object.keys(most.body.messages)).toEqual([String(running), String(direct)]);
	});
});
