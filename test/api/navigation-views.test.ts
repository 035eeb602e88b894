// Navigation views through HTTP: built-in views pinned or hidden but never named, custom views
// with a unique name, Zulip's errors for every bad input (nothing changes), POST /register and
// the navigation_view events to the user's own queue.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let alice: Account;
let bob: Account;
let snap: Snapshotter;
const as = (a: Account) => client(app.baseUrl, a);
const path = (fragment: string) => `/navigation_views/${encodeURIComponent(fragment)}`;

beforeAll(async () => {
	app = await startTestApp();
	const cast = await app.createCast();
	alice = cast.member;
	bob = cast.member2;
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

async function views(a: Account) {
	const res = await as(a).get("/navigation_views");
	expectSuccess(res);
	return res.body.navigation_views;
}

test("built-in and custom views: add, update, remove, register and events", async () => {
	const reg = await as(alice).post("/register", { event_types: JSON.stringify(["navigation_view"]) });
	expectSuccess(reg);
	expect(reg.body.navigation_views).toEqual([]);
	const queue = reg.body.queue_id;

	expectSuccess(await as(alice).post("/navigation_views", { fragment: " inbox ", is_pinned: false }));
	expectSuccess(await as(alice).post("/navigation_views", { fragment: "narrow/channel/1-general", is_pinned: true, name: " General " }));
	expect(await views(alice)).toEqual([
		{ fragment: "inbox", is_pinned: false, name: null },
		{ fragment: "narrow/channel/1-general", is_pinned: true, name: "General" },
	]);
	expect(await views(bob)).toEqual([]);

	expectSuccess(await as(alice).patch(path("inbox"), { is_pinned: true }));
	expectSuccess(await as(alice).patch(path("narrow/channel/1-general"), { name: "Everyone", is_pinned: false }));
	expectSuccess(await as(alice).patch(path("inbox"), {}));
	expect(await views(alice)).toEqual([
		{ fragment: "inbox", is_pinned: true, name: null },
		{ fragment: "narrow/channel/1-general", is_pinned: false, name: "Everyone" },
	]);
	const reg2 = await as(alice).post("/register", { event_types: JSON.stringify(["navigation_view"]) });
	expect(reg2.body.navigation_views).toHaveLength(2);

	expectSuccess(await as(alice).delete(path("inbox")));
	expect((await views(alice)).map((v: { fragment: string }) => v.fragment)).toEqual(["narrow/channel/1-general"]);

	const ev = await as(alice).get("/events", { queue_id: queue, last_event_id: -1, dont_block: true });
	expectSuccess(ev);
	expect(ev.body.events.map(({ id: _id, ...e }: { id: number }) => e)).toEqual([
		{ type: "navigation_view", op: "add", navigation_view: { fragment: "inbox", is_pinned: false, name: null } },
		{ type: "navigation_view", op: "add", navigation_view: { fragment: "narrow/channel/1-general", is_pinned: true, name: "General" } },
		{ type: "navigation_view", op: "update", fragment: "inbox", data: { is_pinned: true } },
		{ type: "navigation_view", op: "update", fragment: "narrow/channel/1-general", data: { name: "Everyone", is_pinned: false } },
		{ type: "navigation_view", op: "update", fragment: "inbox", data: {} },
		{ type: "navigation_view", op: "remove", fragment: "inbox" },
	]);
});

test("a fragment's slashes may be written as they are in the path, as Zulip's <path:fragment> takes them", async () => {
	const carol = await app.createUser({ full_name: "Carol" });
	expectSuccess(await as(carol).post("/navigation_views", { fragment: "narrow/channel/9-dev/topic/plans", is_pinned: true, name: "Plans" }));
	expectSuccess(await as(carol).patch("/navigation_views/narrow/channel/9-dev/topic/plans", { name: "Our plans" }));
	expect(await views(carol)).toEqual([{ fragment: "narrow/channel/9-dev/topic/plans", is_pinned: true, name: "Our plans" }]);
	expectSuccess(await as(carol).delete("/navigation_views/narrow/channel/9-dev/topic/plans"));
	expect(await views(carol)).toEqual([]);
});

test("bad input to POST /navigation_views changes nothing", async () => {
	expectSuccess(await as(bob).post("/navigation_views", { fragment: "custom/a", is_pinned: true, name: "Mine" }));
	const cases: Array<[Record<string, unknown>, string]> = [
		[{ fragment: "recent", is_pinned: "yes" }, "is_pinned is not a boolean"],
		[{ fragment: "  ", is_pinned: true }, "fragment cannot be blank"],
		[{ fragment: "recent", is_pinned: true, name: "Recent" }, "Built-in views cannot have a custom name."],
		[{ fragment: "narrow/is/starred", is_pinned: true, name: "" }, "name cannot be blank"],
		[{ fragment: "custom/b", is_pinned: true }, "Custom views must have a valid name."],
		[{ fragment: "custom/b", is_pinned: true, name: " " }, "name cannot be blank"],
		[{ fragment: "custom/a", is_pinned: false, name: "Other" }, "Navigation view already exists."],
		[{ fragment: "custom/b", is_pinned: false, name: "Mine" }, "Navigation view already exists."],
	];
	await snap.unchanged(async () => {
		expectError(await as(bob).post("/navigation_views", { is_pinned: true }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'fragment' argument");
		expectError(await as(bob).post("/navigation_views", { fragment: "recent" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'is_pinned' argument");
		for (const [params, msg] of cases) expectError(await as(bob).post("/navigation_views", params), 400, "BAD_REQUEST", msg);
	});
});

test("bad input to PATCH and DELETE /navigation_views/{fragment} changes nothing", async () => {
	expectSuccess(await as(bob).post("/navigation_views", { fragment: "feed", is_pinned: true }));
	expectSuccess(await as(bob).post("/navigation_views", { fragment: "custom/c", is_pinned: true, name: "Third" }));
	await snap.unchanged(async () => {
		expectError(await as(bob).patch(path("feed"), { name: "Feed" }), 400, "BAD_REQUEST", "Built-in views cannot have a custom name.");
		expectError(await as(bob).patch(path("custom/c"), { name: "Mine" }), 400, "BAD_REQUEST", "Navigation view already exists.");
		expectError(await as(bob).patch(path("custom/c"), { name: "Third" }), 400, "BAD_REQUEST", "Navigation view already exists.");
		expectError(await as(bob).patch(path("custom/c"), { is_pinned: "maybe" }), 400, "BAD_REQUEST", "is_pinned is not a boolean");
		expectError(await as(bob).patch(path("custom/c"), { name: "" }), 400, "BAD_REQUEST", "name cannot be blank");
		expectError(await as(bob).patch(path("custom/zzz"), { is_pinned: true }), 404, "NOT_FOUND", "Navigation view does not exist.");
		expectError(await as(bob).patch(path("drafts"), { is_pinned: true }), 404, "NOT_FOUND", "Navigation view does not exist.");
		expectError(await as(bob).delete(path("custom/zzz")), 404, "NOT_FOUND", "Navigation view does not exist.");
		// Another user's view is not the caller's.
		expectError(await as(alice).delete(path("custom/c")), 404, "NOT_FOUND", "Navigation view does not exist.");
		expect((await as(bob).get("/navigation_views", {}, { auth: null })).status).toBe(401);
	});
});
