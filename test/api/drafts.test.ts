// Drafts and saved snippets: every rule of the Draft resource, the synchronization setting, the
// saved snippet endpoints, and both in POST /register.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { recordEvents } from "../support/events";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
const as = (a: Account) => client(app.baseUrl, a);
let general: number;
let vault: number;

const channelDraft = (extra: Record<string, unknown> = {}) => ({ type: "stream", to: [general], topic: "plans", content: "Let's meet", ...extra });

async function draftsOf(c: Client) {
	const res = await c.get("/drafts");
	expectSuccess(res);
	expect(res.body.count).toBe(res.body.drafts.length);
	return res.body.drafts;
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	vault = (await owner.get("/get_stream_id", { stream: "vault" })).body.stream_id;
});
afterAll(() => app.stop());

describe("drafts", () => {
	test("created in a batch (IDs in submission order), listed most recently edited first, per user", async () => {
		const res = await as(alice).post("/drafts", {
			drafts: [
				channelDraft({ timestamp: 1_000 }),
				{ type: "private", to: [bob.user_id, bob.user_id], topic: "ignored", content: "psst", timestamp: 3_000 },
				{ type: "", to: [general], topic: "ignored", content: "unaddressed", timestamp: 2_000 },
			],
		});
		expectSuccess(res);
		expect(res.body.ids).toHaveLength(3);
		const [a, b, c] = res.body.ids;
		expect(b).toBeGreaterThan(a);
		expect(c).toBeGreaterThan(b);
		expect(await draftsOf(as(alice))).toEqual([
			{ id: b, type: "private", to: [bob.user_id], topic: "", content: "psst", timestamp: 3_000 },
			{ id: c, type: "", to: [], topic: "", content: "unaddressed", timestamp: 2_000 },
			{ id: a, type: "stream", to: [general], topic: "plans", content: "Let's meet", timestamp: 1_000 },
		]);
		expect(await draftsOf(as(bob))).toEqual([]);
		expect((await as(alice).post("/drafts", {})).body.ids).toEqual([]);
	});

	test("as Zulip reads drafts back: a direct draft naming no one is unaddressed, and `to` names the others", async () => {
		const res = await as(alice).post("/drafts", {
			drafts: [
				{ type: "private", to: [], topic: "ignored", content: "to whom?", timestamp: 100 },
				{ type: "private", to: [bob.user_id, alice.user_id], topic: "", content: "one to one", timestamp: 101 },
				{ type: "private", to: [alice.user_id, alice.user_id], topic: "", content: "to myself", timestamp: 102 },
				{ type: "private", to: [bob.user_id, 1, alice.user_id], topic: "", content: "the three of us", timestamp: 103 },
			],
		});
		expectSuccess(res);
		const [nobody, oneToOne, self, group] = res.body.ids;
		const mine = await draftsOf(as(alice));
		const byId = (id: number) => mine.find((d: { id: number }) => d.id === id);
		expect(byId(nobody)).toEqual({ id: nobody, type: "", to: [], topic: "", content: "to whom?", timestamp: 100 });
		expect(byId(oneToOne)).toMatchObject({ type: "private", to: [bob.user_id] });
		expect(byId(self)).toMatchObject({ type: "private", to: [alice.user_id] });
		expect(byId(group)).toMatchObject({ type: "private", to: [1, bob.user_id] });
		// Editing into a direct draft naming no one makes it unaddressed too.
		expectSuccess(await as(alice).patch(`/drafts/${group}`, { draft: { type: "private", to: [], topic: "", content: "undecided", timestamp: 104 } }));
		expect((await draftsOf(as(alice))).find((d: { id: number }) => d.id === group)).toEqual({ id: group, type: "", to: [], topic: "", content: "undecided", timestamp: 104 });
		for (const id of res.body.ids) expectSuccess(await as(alice).delete(`/drafts/${id}`));
	});

	test("the timestamp is filled in when absent; an over-long topic is cut to the limit", async () => {
		const before = Math.floor(Date.now() / 1000);
		const res = await as(bob).post("/drafts", { drafts: [channelDraft({ topic: "x".repeat(80) })] });
		const [draft] = (await draftsOf(as(bob))).filter((d: { id: number }) => d.id === res.body.ids[0]);
		expect(draft.timestamp).toBeGreaterThanOrEqual(before);
		expect(draft.topic).toBe("x".repeat(60));
	});

	test("a batch with one bad draft stores nothing", async () => {
		const count = (await draftsOf(as(bob))).length;
		const bad: Array<[unknown, string]> = [
			[channelDraft({ to: [] }), "Must specify exactly 1 channel ID for channel messages"],
			[channelDraft({ to: [general, vault] }), "Must specify exactly 1 channel ID for channel messages"],
			[channelDraft({ to: [vault] }), "Invalid channel ID"],
			[channelDraft({ to: [999_999] }), "Invalid channel ID"],
			[{ type: "private", to: [999_999], topic: "", content: "x" }, "Invalid user ID"],
			[channelDraft({ id: 5 }), "Unexpected arguments: id"],
			// The gateway refuses null bytes anywhere in a request, JSON-encoded ones included.
			[channelDraft({ content: "nul\u0000byte" }), "drafts contains a null byte"],
			[channelDraft({ topic: "nul\u0000byte" }), "drafts contains a null byte"],
			[channelDraft({ timestamp: -1 }), "Timestamp must not be negative."],
			[channelDraft({ timestamp: "soon" }), 'drafts[1]["timestamp"] is not an integer'],
			[channelDraft({ type: "channel" }), 'Invalid drafts[1]["type"]'],
			[channelDraft({ to: general }), 'drafts[1]["to"] is not a list'],
			[channelDraft({ to: ["general"] }), 'drafts[1]["to"][0] is not an integer'],
			[channelDraft({ content: 5 }), 'drafts[1]["content"] is not a string'],
			[{ type: "stream", to: [general], topic: "t" }, "content key is missing from drafts[1]"],
			["a draft", "drafts[1] is not a dict"],
		];
		for (const [draft, msg] of bad) {
			expectError(await as(bob).post("/drafts", { drafts: [channelDraft(), draft] }), 400, "BAD_REQUEST", msg);
		}
		expectError(await as(bob).post("/drafts", { drafts: { type: "" } }), 400, "BAD_REQUEST", "drafts is not a list");
		expectError(await as(bob).post("/drafts", { drafts: "[" }), 400, "BAD_REQUEST");
		expect(await draftsOf(as(bob))).toHaveLength(count);
	});

	test("edited whole; unknown drafts and others' drafts are 'does not exist'", async () => {
		const [id] = (await as(alice).post("/drafts", { drafts: [channelDraft()] })).body.ids;
		expectSuccess(await as(alice).patch(`/drafts/${id}`, { draft: { type: "private", to: [bob.user_id], topic: "", content: "changed", timestamp: 5_000 } }));
		expect((await draftsOf(as(alice))).find((d: { id: number }) => d.id === id)).toEqual({ id, type: "private", to: [bob.user_id], topic: "", content: "changed", timestamp: 5_000 });
		expectError(await as(bob).patch(`/drafts/${id}`, { draft: channelDraft() }), 404, "BAD_REQUEST", "Draft does not exist");
		expectError(await as(alice).patch("/drafts/999999", { draft: channelDraft() }), 404, "BAD_REQUEST", "Draft does not exist");
		expectError(await as(alice).patch(`/drafts/${id}`, { draft: channelDraft({ id }) }), 400, "BAD_REQUEST", "Unexpected arguments: id");
		expectError(await as(alice).patch(`/drafts/${id}`, { draft: channelDraft({ to: [vault] }) }), 400, "BAD_REQUEST", "Invalid channel ID");
		expectError(await as(alice).patch(`/drafts/${id}`, {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'draft' argument");
		expect((await draftsOf(as(alice))).find((d: { id: number }) => d.id === id).content).toBe("changed");
	});

	test("every change is announced on the bus for the user's other clients", async () => {
		const seen = await recordEvents(app, ["messages.draftsChanged"]);
		const [id] = (await as(alice).post("/drafts", { drafts: [channelDraft({ timestamp: 9 })] })).body.ids;
		expectSuccess(await as(alice).patch(`/drafts/${id}`, { draft: channelDraft({ content: "v2", timestamp: 10 }) }));
		expectSuccess(await as(alice).delete(`/drafts/${id}`));
		const view = { id, type: "stream", to: [general], topic: "plans" };
		expect(seen.map((e) => e.payload)).toEqual([
			{ user_id: alice.user_id, op: "add", drafts: [{ ...view, content: "Let's meet", timestamp: 9 }] },
			{ user_id: alice.user_id, op: "update", draft: { ...view, content: "v2", timestamp: 10 } },
			{ user_id: alice.user_id, op: "remove", draft_id: id },
		]);
	});

	test("deleted by their owner only", async () => {
		const [id] = (await as(alice).post("/drafts", { drafts: [channelDraft()] })).body.ids;
		expectError(await as(bob).delete(`/drafts/${id}`), 404, "BAD_REQUEST", "Draft does not exist");
		expectSuccess(await as(alice).delete(`/drafts/${id}`));
		expect((await draftsOf(as(alice))).some((d: { id: number }) => d.id === id)).toBe(false);
		expectError(await as(alice).delete(`/drafts/${id}`), 404, "BAD_REQUEST", "Draft does not exist");
	});

	test("in POST /register; turning synchronization off deletes them and refuses new ones until it is on again", async () => {
		const carol = await app.createUser({ full_name: "Carol" });
		const [id] = (await as(carol).post("/drafts", { drafts: [channelDraft({ timestamp: 7 })] })).body.ids;
		const reg = await as(carol).post("/register", { fetch_event_types: ["drafts"] });
		expect(reg.body.drafts).toEqual([{ id, type: "stream", to: [general], topic: "plans", content: "Let's meet", timestamp: 7 }]);

		expectSuccess(await as(carol).patch("/settings", { enable_drafts_synchronization: false }));
		expectError(await as(carol).get("/drafts"), 400, "BAD_REQUEST", "User has disabled synchronizing drafts.");
		expectError(await as(carol).post("/drafts", { drafts: [channelDraft()] }), 400, "BAD_REQUEST", "User has disabled synchronizing drafts.");
		expectError(await as(carol).patch(`/drafts/${id}`, { draft: channelDraft() }), 400, "BAD_REQUEST", "User has disabled synchronizing drafts.");
		expectError(await as(carol).delete(`/drafts/${id}`), 400, "BAD_REQUEST", "User has disabled synchronizing drafts.");
		expect((await as(carol).post("/register", { fetch_event_types: ["drafts"] })).body.drafts).toEqual([]);

		expectSuccess(await as(carol).patch("/settings", { enable_drafts_synchronization: true }));
		expect(await draftsOf(as(carol))).toEqual([]);
		expectSuccess(await as(carol).post("/drafts", { drafts: [channelDraft()] }));
		expect(await draftsOf(as(carol))).toHaveLength(1);
	});
});

describe("saved snippets", () => {
	test("created, listed, edited and deleted per user; in POST /register", async () => {
		const res = await as(alice).post("/saved_snippets", { title: "Greeting", content: "Hello **there**" });
		expectSuccess(res);
		const id = res.body.saved_snippet_id;
		expect(id).toEqual(expect.any(Number));
		const list = await as(alice).get("/saved_snippets");
		expect(list.body.saved_snippets).toEqual([{ id, title: "Greeting", content: "Hello **there**", date_created: expect.any(Number) }]);
		expect((await as(bob).get("/saved_snippets")).body.saved_snippets).toEqual([]);
		expect((await as(alice).post("/register", { fetch_event_types: ["saved_snippets"] })).body.saved_snippets).toEqual(list.body.saved_snippets);

		expectSuccess(await as(alice).patch(`/saved_snippets/${id}`, { title: "Hi" }));
		expectSuccess(await as(alice).patch(`/saved_snippets/${id}`, { content: "Hi!" }));
		expect((await as(alice).get("/saved_snippets")).body.saved_snippets[0]).toMatchObject({ id, title: "Hi", content: "Hi!" });

		expectError(await as(bob).patch(`/saved_snippets/${id}`, { title: "mine" }), 404, "BAD_REQUEST", "Saved snippet does not exist.");
		expectError(await as(bob).delete(`/saved_snippets/${id}`), 404, "BAD_REQUEST", "Saved snippet does not exist.");
		expectSuccess(await as(alice).delete(`/saved_snippets/${id}`));
		expect((await as(alice).get("/saved_snippets")).body.saved_snippets).toEqual([]);
		expectError(await as(alice).delete(`/saved_snippets/${id}`), 404, "BAD_REQUEST", "Saved snippet does not exist.");
	});

	test("changes are announced on the bus", async () => {
		const seen = await recordEvents(app, ["messages.savedSnippetsChanged"]);
		const { saved_snippet_id: id } = (await as(alice).post("/saved_snippets", { title: "A", content: "B" })).body;
		expectSuccess(await as(alice).patch(`/saved_snippets/${id}`, { content: "C" }));
		expectSuccess(await as(alice).delete(`/saved_snippets/${id}`));
		const snippet = { id, title: "A", date_created: expect.any(Number) };
		expect(seen.map((e) => e.payload)).toEqual([
			{ user_id: alice.user_id, op: "add", saved_snippet: { ...snippet, content: "B" } },
			{ user_id: alice.user_id, op: "update", saved_snippet: { ...snippet, content: "C" } },
			{ user_id: alice.user_id, op: "remove", saved_snippet_id: id },
		]);
	});

	test("empty, missing, over-long and mistyped values are refused and change nothing", async () => {
		const { saved_snippet_id: id } = (await as(bob).post("/saved_snippets", { title: "Keep", content: "me" })).body;
		const create = (params: Record<string, unknown>) => as(bob).post("/saved_snippets", params);
		expectError(await create({ title: "", content: "x" }), 400, "BAD_REQUEST", "Title cannot be empty.");
		expectError(await create({ title: "  ", content: "x" }), 400, "BAD_REQUEST", "Title cannot be empty.");
		expectError(await create({ title: "x", content: "" }), 400, "BAD_REQUEST", "Content cannot be empty.");
		expectError(await create({ content: "x" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'title' argument");
		expectError(await create({ title: "x" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
		expectError(await create({ title: "x".repeat(201), content: "x" }), 400, "BAD_REQUEST", "title is too long (limit: 200 characters)");
		expectError(await as(bob).patch(`/saved_snippets/${id}`, { title: "" }), 400, "BAD_REQUEST", "Title cannot be empty.");
		expectError(await as(bob).patch(`/saved_snippets/${id}`, {}), 400, "BAD_REQUEST", "At least one of the following arguments must be present: title, content");
		expectError(await as(bob).patch("/saved_snippets/abc", { title: "x" }), 404, "NOT_FOUND");
		expect((await as(bob).get("/saved_snippets")).body.saved_snippets).toEqual([expect.objectContaining({ id, title: "Keep", content: "me" })]);
	});
});
