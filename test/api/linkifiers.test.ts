// Linkifiers through HTTP: administrators add, edit, reorder and remove them; a pattern in the
// safe subset with named groups matching the URL template's variables exactly; Zulip's errors for
// every bad input and every role below administrator (nothing changes); GET /realm/linkifiers,
// POST /register, realm_linkifiers events; message content rendered with links and topic_links,
// following changes at once; a catastrophic pattern is refused.
import { startTestApp, type TestApp, type Account, type Cast } from "../support/app";
import { client, expectError, expectSuccess, sendMessage } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { timesSlower } from "../support/timing";

let app: TestApp;
let cast: Cast;
let snap: Snapshotter;
const as = (a: Account) => client(app.baseUrl, a);
const issues = { pattern: "#(?P<id>[0-9]+)", url_template: "https://github.com/zulip/zulip/issues/{id}" };
const repo = { pattern: "(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)", url_template: "https://github.com/{org}/{repo}/pull/{id}" };

beforeAll(async () => {
	app = await startTestApp();
	cast = await app.createCast();
	snap = await snapshotter(app);
	expectSuccess(await as(app.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "dev" }], principals: [cast.member.user_id] }));
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

async function list(a: Account = cast.guest) {
	const res = await as(a).get("/realm/linkifiers");
	expectSuccess(res);
	return res.body.linkifiers;
}

async function message(id: number) {
	const res = await as(cast.member).get(`/messages/${id}`);
	expectSuccess(res);
	return res.body.message;
}

test("administrators add, edit, reorder and remove linkifiers; register and events follow", async () => {
	const reg = await as(cast.member).post("/register", { event_types: JSON.stringify(["realm_linkifiers"]) });
	expectSuccess(reg);
	expect(reg.body.realm_linkifiers).toEqual([]);
	const a = await as(cast.admin).post("/realm/filters", { pattern: ` ${issues.pattern} `, url_template: issues.url_template });
	expectSuccess(a);
	const b = await as(app.owner).post("/realm/filters", { pattern: "ZUL-(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}" });
	expectSuccess(b);
	const first = { ...issues, id: a.body.id };
	const second = { pattern: "ZUL-(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}", id: b.body.id };
	expect(await list()).toEqual([first, second]);

	expectSuccess(await as(cast.admin).patch("/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([b.body.id, a.body.id]) }));
	expect(await list()).toEqual([second, first]);
	expectSuccess(await as(cast.admin).patch(`/realm/filters/${b.body.id}`, repo));
	const edited = { ...repo, id: b.body.id };
	expect(await list()).toEqual([edited, first]);
	const reg2 = await as(cast.guest).post("/register", { event_types: JSON.stringify(["realm_linkifiers"]) });
	expect(reg2.body.realm_linkifiers).toEqual([edited, first]);
	expectSuccess(await as(cast.admin).delete(`/realm/filters/${b.body.id}`));
	expect(await list()).toEqual([first]);

	const ev = await as(cast.member).get("/events", { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
	expectSuccess(ev);
	expect(ev.body.events.map(({ id: _id, ...e }: { id: number }) => e)).toEqual([
		{ type: "realm_linkifiers", realm_linkifiers: [first] },
		{ type: "realm_linkifiers", realm_linkifiers: [first, second] },
		{ type: "realm_linkifiers", realm_linkifiers: [second, first] },
		{ type: "realm_linkifiers", realm_linkifiers: [edited, first] },
		{ type: "realm_linkifiers", realm_linkifiers: [first] },
	]);
	// Clean up for the tests below.
	expectSuccess(await as(cast.admin).delete(`/realm/filters/${a.body.id}`));
});

test("message content and topic_links use the linkifiers, following changes at once", async () => {
	const before = await sendMessage(as(cast.member), { type: "stream", to: "dev", topic: "fix #12", content: "see #12" });
	expect((await message(before)).topic_links).toEqual([]);
	const added = await as(cast.admin).post("/realm/filters", issues);
	expectSuccess(added);
	expectSuccess(await as(cast.admin).post("/realm/filters", repo));

	const id = await sendMessage(as(cast.member), {
		type: "stream",
		to: "dev",
		topic: "zulip/zulip#7 and #12 https://example.com/x",
		content: "Fixes #12 and zulip/zulip#7, not a#3, `#4` or [#5](https://example.org).",
	});
	const m = await message(id);
	const link = (url: string, text: string) => `<a href="${url}" title="${url}" target="_blank" rel="noopener noreferrer">${text}</a>`;
	expect(m.content).toBe(
		`<p>Fixes ${link("https://github.com/zulip/zulip/issues/12", "#12")} and ${link("https://github.com/zulip/zulip/pull/7", "zulip/zulip#7")}, not a#3, <code>#4</code> or <a href="https://example.org" target="_blank" rel="noopener noreferrer">#5</a>.</p>`,
	);
	expect(m.topic_links).toEqual([
		{ text: "zulip/zulip#7", url: "https://github.com/zulip/zulip/pull/7" },
		{ text: "#12", url: "https://github.com/zulip/zulip/issues/12" },
		{ text: "https://example.com/x", url: "https://example.com/x" },
	]);
	// The older message's topic is linkified now too (topic_links are computed when shown).
	expect((await message(before)).topic_links).toEqual([{ text: "#12", url: "https://github.com/zulip/zulip/issues/12" }]);
	// A catastrophic input against an accepted pattern renders about as fast as ordinary text of its
	// length (backtracking over it would take seconds).
	const catastrophic = `#${"1".repeat(6000)}x ${"a/".repeat(1500)}`;
	const send = (content: string) => () => sendMessage(as(cast.member), { type: "stream", to: "dev", topic: "t", content });
	expect(await timesSlower(send("ordinary words ".repeat(600).slice(0, catastrophic.length)), send(catastrophic), 10)).toBeLessThan(10);
});

test("bad input and roles below administrator change nothing", async () => {
	const existing = (await list())[0];
	await snap.unchanged(async () => {
		for (const who of [cast.moderator, cast.member, cast.guest]) {
			expectError(await as(who).post("/realm/filters", { pattern: "X-(?P<id>\\d+)", url_template: "https://x/{id}" }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
			expectError(await as(who).patch(`/realm/filters/${existing.id}`, { pattern: "X-(?P<id>\\d+)", url_template: "https://x/{id}" }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
			expectError(await as(who).delete(`/realm/filters/${existing.id}`), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
			expectError(await as(who).patch("/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([existing.id]) }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		}
		const admin = as(cast.admin);
		expectError(await admin.post("/realm/filters", { url_template: "https://x/{id}" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'pattern' argument");
		expectError(await admin.post("/realm/filters", { pattern: "X-(?P<id>\\d+)" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'url_template' argument");
		const bad: Array<[string, string, string]> = [
			["X-(?P<id>\\d+", "https://x/{id}", "Bad regular expression: missing )"],
			["(?P<id>a+)+b", "https://x/{id}", "Bad regular expression: nested quantifiers are not supported"],
			["(?P<id>(a|aa)*)c", "https://x/{id}", "Bad regular expression: nested quantifiers are not supported"],
			["(?P<id>a)\\1", "https://x/{id}", "Bad regular expression: backreferences are not supported"],
			["(?=x)(?P<id>a)", "https://x/{id}", "Bad regular expression: lookaround is not supported"],
			["X-(?P<id>\\d+)", "https://x/{id", "Invalid URL template."],
			["X-(?P<id>\\d+)", "", "Invalid URL template."],
			["X-(?P<id>\\d+)", "https://x/{id}/{other}", "Group 'other' in URL template is not present in linkifier pattern."],
			["X-(?P<id>\\d+)-(?P<b>\\d+)", "https://x/{id}", "Group 'b' in linkifier pattern is not present in URL template."],
			[issues.pattern, "https://elsewhere/{id}", "Linkifier with this Pattern and Realm already exists."],
		];
		for (const [pattern, url_template, msg] of bad) {
			const res = await admin.post("/realm/filters", { pattern, url_template });
			expectError(res, 400, "BAD_REQUEST", msg);
			expect(Object.values(res.body.errors)).toEqual([[msg]]);
		}
		expectError(await admin.patch(`/realm/filters/${existing.id}`, { pattern: "(?P<id>a+)+", url_template: "https://x/{id}" }), 400, "BAD_REQUEST", "Bad regular expression: nested quantifiers are not supported");
		expectError(await admin.patch(`/realm/filters/${existing.id}`, { pattern: repo.pattern, url_template: repo.url_template }), 400, "BAD_REQUEST", "Linkifier with this Pattern and Realm already exists.");
		expectError(await admin.patch(`/realm/filters/${existing.id}`, { pattern: "X-(?P<id>\\d+)" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'url_template' argument");
		expectError(await admin.patch("/realm/filters/99999", { pattern: "X-(?P<id>\\d+)", url_template: "https://x/{id}" }), 400, "BAD_REQUEST", "Linkifier not found.");
		expectError(await admin.delete("/realm/filters/99999"), 400, "BAD_REQUEST", "Linkifier not found.");
		expectError(await admin.delete("/realm/filters/abc"), 404, "NOT_FOUND");
		const ids = (await list()).map((l: { id: number }) => l.id);
		expectError(await admin.patch("/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([...ids, ids[0]]) }), 400, "BAD_REQUEST", "The ordered list must not contain duplicated linkifiers");
		expectError(await admin.patch("/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify(ids.slice(1)) }), 400, "BAD_REQUEST", "The ordered list must enumerate all existing linkifiers exactly once");
		expectError(await admin.patch("/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([...ids, 99999]) }), 400, "BAD_REQUEST", "The ordered list must enumerate all existing linkifiers exactly once");
		expectError(await admin.patch("/realm/linkifiers", { ordered_linkifier_ids: "[1," }), 400, "BAD_REQUEST");
		expectError(await admin.patch("/realm/linkifiers", {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'ordered_linkifier_ids' argument");
	});
});
