// POST /messages/render: content rendered exactly as a send renders it (mentions, channel links,
// linkifiers), with nothing stored and no event; empty, too long and missing content.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let snaps: Snapshotter;
let owner: Client;
let alice: Account;
const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	snaps = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice Render" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "render-room" }]), principals: JSON.stringify([app.owner.user_id, alice.user_id]) }));
	expectSuccess(await owner.post("/realm/filters", { pattern: "RND-(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}" }));
});
afterAll(async () => {
	await snaps.close();
	await app.stop();
});

const render = (c: Client, content?: string) => c.post("/messages/render", content === undefined ? {} : { content });

test("Markdown to HTML, in Zulip's answer", async () => {
	const res = await render(owner, "**foo**");
	expect(res.body).toEqual({ result: "success", msg: "", rendered: "<p><strong>foo</strong></p>" });
});

test("as a send renders it: mentions, channel links and linkifiers, storing nothing and telling no one", async () => {
	const content = "hi @**Alice Render**, see #**render-room** and RND-42; @**Nobody Here**";
	const queue = await as(alice).post("/register", { event_types: JSON.stringify(["message", "update_message_flags"]) });
	expectSuccess(queue);
	let rendered = "";
	await snaps.unchanged(async () => {
		const res = await render(owner, content);
		expectSuccess(res);
		rendered = res.body.rendered;
	});
	expect(rendered).toContain(`data-user-id="${alice.user_id}"`);
	expect(rendered).toContain("https://tracker.example.com/42");
	const events = await as(alice).get("/events", { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true });
	expect(events.body.events.filter((e: { type: string }) => e.type !== "heartbeat")).toEqual([]);

	const id = await sendMessage(owner, { type: "stream", to: "render-room", topic: "compare", content });
	const sent = await owner.get(`/messages/${id}`);
	expect(rendered).toBe(sent.body.message.content);
});

test("empty content renders empty, as Zulip's endpoint does; content longer than a send may be is refused with the send's error", async () => {
	expect((await render(as(alice), "")).body).toEqual({ result: "success", msg: "", rendered: "" });
	expect((await render(as(alice), "   ")).body.rendered).toBe("");
	const longest = await render(as(alice), `${"word ".repeat(2_000)}   `);
	expectSuccess(longest);
	expect(longest.body.rendered).toBe(`<p>${"word ".repeat(1_999)}word</p>`);
	await snaps.refused(() => render(as(alice), "x".repeat(10_001)), 400, "BAD_REQUEST", "Message too long (limit: 10000 characters)");
	await snaps.refused(() => render(as(alice), "x".repeat(1_000_001)), 400, "BAD_REQUEST", "Message too long (limit: 10000 characters)");
	await snaps.refused(() => render(as(alice)), 400, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
	expectError(await client(app.baseUrl, null).post("/messages/render", { content: "hi" }), 401, "UNAUTHORIZED");
});
