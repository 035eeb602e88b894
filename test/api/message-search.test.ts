// Keyword search (the `search` narrow): stems, phrases, negation, what is and is not indexed, the
// index kept up to date by edits and moves, highlighting, and the joins with the caller's history.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, dropNotices, expectError, expectSuccess, sendMessage, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
const as = (a: Account) => client(app.baseUrl, a);

const send = sendMessage;
async function search(c: Client, narrow: unknown[], extra: Record<string, unknown> = {}) {
	const res = await c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow, ...extra });
	expectSuccess(res);
	return res.body;
}
const ids = (body: { messages: Array<{ id: number }> }) => body.messages.map((m) => m.id);
const inSearch = (words: string) => [
	["channel", "searching"],
	["search", words],
];

let running: number;
let fox: number;
let reversed: number;
let entity: number;
let linked: number;

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "searching" }], principals: [1, alice.user_id, bob.user_id] }));
	await dropNotices(owner, "searching");
	const post = (topic: string, content: string) => send(as(alice), { type: "channel", to: "searching", topic, content });
	running = await post("status", "Running late, the Über driver is lost");
	fox = await post("animals", "the quick brown fox");
	reversed = await post("animals", "brown, then quick");
	entity = await post("food", "fish & chips amp");
	linked = await post("links", "see [the docs](https://zebra.example.com/page)");
});
afterAll(() => app.stop());

describe("matching", () => {
	test("words match by stem and case, in content or topic", async () => {
		expect(ids(await search(as(bob), inSearch("runs")))).toEqual([running]);
		expect(ids(await search(as(bob), inSearch("über DRIVERS")))).toEqual([running]);
		expect(ids(await search(as(bob), inSearch("animal")))).toEqual([fox, reversed]);
		expect(ids(await search(as(bob), inSearch("animals quick fox")))).toEqual([fox]);
		expect(ids(await search(as(bob), inSearch("giraffe")))).toEqual([]);
	});

	test("every word is searchable, the common ones too", async () => {
		expect(ids(await search(as(bob), inSearch("the")))).toEqual([running, fox, linked]);
	});

	test("a quoted phrase must appear as written", async () => {
		expect(ids(await search(as(bob), inSearch('"quick brown"')))).toEqual([fox]);
		expect(ids(await search(as(bob), inSearch('"Quick   Brown" fox')))).toEqual([fox]);
		expect(ids(await search(as(bob), inSearch('"brown quick"')))).toEqual([]);
		expect(ids(await search(as(bob), inSearch("brown quick")))).toEqual([fox, reversed]);
	});

	test("link targets and markup are not searched, the text is", async () => {
		expect(ids(await search(as(bob), inSearch("zebra")))).toEqual([]);
		expect(ids(await search(as(bob), inSearch("href")))).toEqual([]);
		expect(ids(await search(as(bob), inSearch("docs")))).toEqual([linked]);
		expect(ids(await search(as(bob), inSearch("chips")))).toEqual([entity]);
	});

	test("a search of punctuation alone finds nothing; its negation everything", async () => {
		expect(ids(await search(as(bob), inSearch("?!")))).toEqual([]);
		const all = ids(await search(as(bob), [["channel", "searching"]]));
		expect(ids(await search(as(bob), [["channel", "searching"], { operator: "search", operand: "?!", negated: true }]))).toEqual(all);
	});

	test("negated: messages without the words", async () => {
		const res = await search(as(bob), [
			["channel", "searching"],
			{ operator: "search", operand: "quick", negated: true },
		]);
		expect(ids(res)).toEqual([running, entity, linked]);
		// A negated search alone is not highlighted.
		expect(res.messages[0]).not.toHaveProperty("match_content");
		// In the caller's own history, led by their rows.
		expect(ids(await search(as(bob), [{ operator: "search", operand: "quick", negated: true }]))).toEqual([running, entity, linked]);
		expect(ids(await search(as(bob), [["search", "brown"], { operator: "search", operand: "fox", negated: true }]))).toEqual([reversed]);
	});

	test("a search operand that is not a non-empty string is refused", async () => {
		// Zulip's NarrowParameter: check_required_string, and a pair must hold two strings.
		const get = (narrow: unknown[]) => as(bob).get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow });
		for (const operand of ["", "   "]) {
			expectError(await get([["search", operand]]), 400, "BAD_REQUEST", "operand cannot be blank.");
			expectError(await get([{ operator: "search", operand }]), 400, "BAD_REQUEST", "operand cannot be blank.");
		}
		for (const operand of [5, ["quick"]]) {
			expectError(await get([["search", operand]]), 400, "BAD_REQUEST", "Invalid narrow[0]: Value error, element is not a string pair");
			expectError(await get([{ operator: "search", operand }]), 400, "BAD_REQUEST", "operand is not a string");
		}
		// At most 100 distinct words (repeats count once).
		const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
		const narrow = (operand: string) => JSON.stringify([["search", operand]]);
		expectSuccess(await as(bob).post("/messages/flags/narrow", { anchor: "newest", num_before: 1, num_after: 0, narrow: narrow(`${words(100)} w1 w2`), op: "add", flag: "starred" }));
		expectError(
			await as(bob).post("/messages/flags/narrow", { anchor: "newest", num_before: 1, num_after: 0, narrow: narrow(words(101)), op: "add", flag: "starred" }),
			400,
			"BAD_NARROW",
			"Invalid narrow operator: search has too many words (limit: 100)",
		);
	});
});

describe("highlighting", () => {
	test("matched words, whatever their form, in content and topic", async () => {
		const [m] = (await search(as(bob), inSearch("run"))).messages;
		expect(m.match_content).toBe('<p><span class="highlight">Running</span> late, the Über driver is lost</p>');
		expect(m.match_subject).toBe("status");
		const [a] = (await search(as(bob), inSearch("animal fox"))).messages;
		expect(a.match_subject).toBe('<span class="highlight">animals</span>');
		expect(a.match_content).toBe('<p>the quick brown <span class="highlight">fox</span></p>');
	});

	test("never inside a tag or a character reference", async () => {
		const [m] = (await search(as(bob), inSearch("amp"))).messages;
		expect(m.match_content).toBe('<p>fish &amp; chips <span class="highlight">amp</span></p>');
		const [l] = (await search(as(bob), inSearch("docs page"))).messages;
		expect(l).toBeUndefined();
		const [d] = (await search(as(bob), inSearch("docs"))).messages;
		expect(d.match_content).toBe('<p>see <a href="https://zebra.example.com/page" target="_blank" rel="noopener noreferrer">the <span class="highlight">docs</span></a></p>');
	});

	test("with apply_markdown false, over the escaped source", async () => {
		const [m] = (await search(as(bob), inSearch("amp"), { apply_markdown: false })).messages;
		expect(m.match_content).toBe('fish &amp; chips <span class="highlight">amp</span>');
	});
});

describe("the index follows edits and moves", () => {
	test("a content edit replaces the message's words", async () => {
		const id = await send(as(alice), { type: "channel", to: "searching", topic: "edits", content: "original walrus" });
		expectSuccess(await as(alice).patch(`/messages/${id}`, { content: "updated narwhal" }));
		expect(ids(await search(as(bob), inSearch("walrus")))).toEqual([]);
		expect(ids(await search(as(bob), inSearch("narwhal")))).toEqual([id]);
	});

	test("a topic move replaces the topic's words of every moved message", async () => {
		const a = await send(as(alice), { type: "channel", to: "searching", topic: "alpha plans", content: "one" });
		const b = await send(as(alice), { type: "channel", to: "searching", topic: "alpha plans", content: "two" });
		expectSuccess(await as(alice).patch(`/messages/${a}`, { topic: "omega plans", propagate_mode: "change_all", send_notification_to_new_thread: false }));
		expect(ids(await search(as(bob), inSearch("alpha")))).toEqual([]);
		expect(ids(await search(as(bob), inSearch("omega plan")))).toEqual([a, b]);
	});
});

describe("whose messages are searched", () => {
	test("personal history: only what the caller received, in windows around the anchor", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true, principals: [alice.user_id] }));
		const secret = await send(as(alice), { type: "channel", to: "vault", topic: "t", content: "marmot secret" });
		const mine: number[] = [];
		for (let i = 0; i < 4; i++) mine.push(await send(as(alice), { type: "direct", to: [bob.user_id], content: `marmot ${i}` }));
		expect(ids(await search(as(alice), [["search", "marmot"]]))).toEqual([secret, ...mine]);
		expect(ids(await search(as(bob), [["search", "marmot"]]))).toEqual(mine);
		const window = await as(bob).get("/messages", { anchor: mine[2], num_before: 1, num_after: 1, narrow: [["search", "marmot"]] });
		expect(ids(window.body)).toEqual([mine[1], mine[2], mine[3]]);
		expect(window.body).toMatchObject({ found_anchor: true, found_oldest: false, found_newest: false });
		const oldest = await as(bob).get("/messages", { anchor: "oldest", num_before: 0, num_after: 2, narrow: [["search", "marmot"]] });
		expect(ids(oldest.body)).toEqual(mine.slice(0, 2));
		const selected = await as(bob).get("/messages", { message_ids: [secret, mine[0], mine[3]], narrow: [["search", "marmot 3"]] });
		expect(ids(selected.body)).toEqual([mine[3]]);
		// The secret stays out of reach through a channel narrow too.
		expect(ids(await search(as(bob), [["channel", "vault"], ["search", "marmot"]]))).toEqual([]);
	});

	test("first_unread finds the first unread match", async () => {
		const c = as(bob);
		const read = await send(as(alice), { type: "direct", to: [bob.user_id], content: "pelican one" });
		expectSuccess(await c.post("/messages/flags", { messages: [read], op: "add", flag: "read" }));
		await send(as(alice), { type: "direct", to: [bob.user_id], content: "unrelated unread" });
		const unread = await send(as(alice), { type: "direct", to: [bob.user_id], content: "pelican two" });
		const res = await c.get("/messages", { anchor: "first_unread", num_before: 0, num_after: 0, narrow: [["search", "pelican"]] });
		expect(res.body).toMatchObject({ anchor: unread, found_anchor: true });
		expect(ids(res.body)).toEqual([unread]);
	});

	test("searching changes nothing", async () => {
		const before = await search(as(bob), [["channel", "searching"]]);
		await search(as(bob), inSearch("quick"));
		expect(await search(as(bob), [["channel", "searching"]])).toEqual(before);
	});
});
