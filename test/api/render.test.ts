// POST /messages/render: content rendered exactly as a send renders it (mentions, channel links,
// linkifiers), with nothing stored and no event; empty, too long and missing content.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { stillImage, uploadFile } from "../support/images";

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

test("an uploaded image previews as Zulip's message_inline_image, in its paragraph's place: after it, inside a list item, replacing a bare link, not in a quote", async () => {
	const up = async (name: string, bytes: Uint8Array, type: string) => {
		const res = await uploadFile(app, alice, name, bytes, type);
		expect(res.status).toBe(200);
		return res.body.url as string;
	};
	const url = await up("chart.png", await stillImage(40, 30, "png"), "image/png");
	const file = await up("data.csv", new TextEncoder().encode("a,b\n1,2\n"), "text/csv");
	const link = (name: string, to = url) => `<a href="${to}" target="_blank" rel="noopener noreferrer">${name}</a>`;
	const div = (title: string | null) =>
		`<div class="message_inline_image"><a href="${url}"${title === null ? "" : ` title="${title}"`}>` +
		`<img data-original-content-type="image/png" data-original-dimensions="40x30" src="/user_uploads/thumbnail/${url.slice("/user_uploads/".length)}/840x560.webp"></a></div>`;
	const cases: Array<[string, string]> = [
		[`see [the "chart" & more](${url}) here`, `<p>see ${link("the &quot;chart&quot; &amp; more")} here</p>\n${div("the &quot;chart&quot; &amp; more")}`],
		[`- [chart](${url})\n- other`, `<ul>\n<li>${link("chart")}${div("chart")}</li>\n<li>other</li>\n</ul>`],
		[`[${url}](${url})`, div(null)],
		[`> [chart](${url})`, `<blockquote>\n<p>${link("chart")}</p>\n</blockquote>`],
		["```quote\n[chart](" + url + ")\n```", `<blockquote>\n<p>${link("chart")}</p>\n</blockquote>`],
		[`[data.csv](${file})`, `<p>${link("data.csv", file)}</p>`],
		[`\`[chart](${url})\``, `<p><code>[chart](${url})</code></p>`],
	];
	for (const [content, html] of cases) {
		const res = await render(as(alice), content);
		expectSuccess(res);
		expect({ content, rendered: res.body.rendered }).toEqual({ content, rendered: html });
	}
	// More distinct links than Zulip previews in one message: none is previewed.
	const many = Array.from({ length: 24 }, (_, i) => `https://example.com/${i}`).join(" ");
	expect((await render(as(alice), `${many} [chart](${url})`)).body.rendered).not.toContain("message_inline_image");
	expect((await render(as(alice), `${many.split(" ").slice(1).join(" ")} [chart](${url})`)).body.rendered).toContain("message_inline_image");
});
