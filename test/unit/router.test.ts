import fc from "fast-check";
import { Router, type Match } from "../../services/api/router";
import { routes, benchRoutes, type Route } from "../../services/api/routes";

const router = new Router([
	{ method: "GET", path: "/users/me", action: "users.me" },
	{ method: "GET", path: "/users/{user_id}", action: "users.get" },
	{ method: "GET", path: "/users/{email}", action: "users.getByEmail" },
	{ method: "DELETE", path: "/users/{user_id}", action: "users.deactivate" },
]);

test("routes in order, with *_id parameters matching digits only", () => {
	expect(router.match("GET", "/users/me")).toMatchObject({ kind: "found", route: { action: "users.me" } });
	expect(router.match("GET", "/users/12")).toMatchObject({ kind: "found", route: { action: "users.get" }, pathParams: { user_id: "12" } });
	expect(router.match("GET", "/users/a%40b.c")).toMatchObject({ kind: "found", route: { action: "users.getByEmail" }, pathParams: { email: "a@b.c" } });
});

test("a known path with another method lists the allowed methods", () => {
	expect(router.match("PATCH", "/users/12")).toEqual({ kind: "wrong-method", allowed: ["GET", "DELETE"] });
});

test("unknown paths match nothing", () => {
	expect(router.match("GET", "/users/12/extra")).toEqual({ kind: "none" });
	expect(router.match("GET", "/")).toEqual({ kind: "none" });
	expect(router.match("GET", "")).toEqual({ kind: "none" });
	expect(router.match("GET", "users/me")).toEqual({ kind: "none" });
	expect(router.match("GET", "/users//")).toEqual({ kind: "none" });
	expect(router.match("GET", "/users/me//")).toEqual({ kind: "none" });
});

test("one trailing slash is allowed", () => {
	expect(router.match("GET", "/users/me/")).toMatchObject({ kind: "found", route: { action: "users.me" } });
	expect(router.match("GET", "/users/12/")).toMatchObject({ kind: "found", pathParams: { user_id: "12" } });
});

test("a malformed escape in a path parameter is not a crash", () => {
	expect(router.match("GET", "/users/%E0%A4%A")).toEqual({ kind: "none" });
});

test("a last {name...} takes the rest of the path, slashes included", () => {
	const r = new Router([
		{ method: "GET", path: "/views", action: "list" },
		{ method: "PATCH", path: "/views/{fragment...}", action: "update" },
	]);
	expect(r.match("PATCH", "/views/narrow/channel/1-general")).toMatchObject({ route: { action: "update" }, pathParams: { fragment: "narrow/channel/1-general" } });
	expect(r.match("PATCH", "/views/inbox/")).toMatchObject({ pathParams: { fragment: "inbox" } });
	expect(r.match("PATCH", "/views/a%2Fb/c")).toMatchObject({ pathParams: { fragment: "a/b/c" } });
	expect(r.match("PATCH", "/views")).toEqual({ kind: "wrong-method", allowed: ["GET"] });
	expect(r.match("PATCH", "/views/")).toEqual({ kind: "wrong-method", allowed: ["GET"] });
});

test("a literal segment and a parameter at the same place: the table's order decides", () => {
	const r = new Router([
		{ method: "GET", path: "/a/{name}", action: "first" },
		{ method: "GET", path: "/a/b", action: "second" },
		{ method: "POST", path: "/a/b", action: "post" },
	]);
	expect(r.match("GET", "/a/b")).toMatchObject({ route: { action: "first" }, pathParams: { name: "b" } });
	expect(r.match("POST", "/a/b")).toMatchObject({ route: { action: "post" } });
	expect(r.match("PUT", "/a/b")).toEqual({ kind: "wrong-method", allowed: ["GET", "POST"] });
});

/** The table as it was matched before the tree: each route's regular expression, in order. */
function regexMatch(table: Route[], method: string, path: string): Match {
	const allowed: string[] = [];
	for (const route of table) {
		const names: string[] = [];
		const pattern = route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)((?:\\\.){3})?\}/g, (_m, name: string, rest?: string) => {
			names.push(name);
			if (rest) return "([^/].*?)";
			return name.endsWith("_id") ? "(\\d+)" : "([^/]+)";
		});
		const m = new RegExp(`^${pattern}/?$`).exec(path);
		if (!m) continue;
		if (route.method !== method) {
			allowed.push(route.method);
			continue;
		}
		try {
			return { kind: "found", route, pathParams: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
		} catch {
			continue;
		}
	}
	return allowed.length ? { kind: "wrong-method", allowed: [...new Set(allowed)] } : { kind: "none" };
}

test("the whole route table answers as its regular expressions tried in order did", () => {
	const table = [...routes, ...benchRoutes];
	const real = new Router(table);
	const literals = [...new Set(table.flatMap((r) => r.path.split("/").filter((s) => s && !s.startsWith("{"))))];
	const segment = fc.oneof(
		fc.constantFrom(...literals),
		fc.constantFrom("12", "0", "007", "me", "", "a%40b.c", "%E0%A4%A", "%", "x y", "१२", "-1", "1.5"),
		fc.string({ maxLength: 6 }),
	);
	// Random segments, and the table's own paths with their parameters filled and one segment maybe changed.
	const segments = fc.oneof(
		fc.array(segment, { minLength: 0, maxLength: 6 }),
		fc.tuple(fc.constantFrom(...table.map((r) => r.path.split("/").slice(1))), fc.array(segment, { minLength: 6, maxLength: 6 }), fc.nat(8)).map(([parts, fill, changed]) =>
			parts.map((s, i) => (i === changed ? fill[i] : s.startsWith("{") ? fill[i] : s)),
		),
	);
	const path = fc.tuple(segments, fc.constantFrom("", "/", "//")).map(([segs, tail]) => `/${segs.join("/")}${tail}`);
	const method = fc.constantFrom("GET", "POST", "PATCH", "PUT", "DELETE", "HEAD");
	fc.assert(
		fc.property(method, path, (m, p) => {
			expect(real.match(m, p)).toEqual(regexMatch(table, m, p));
		}),
		{ seed: 19, numRuns: 20_000 },
	);
	// Every route is reachable by its own path, with sample values for its parameters.
	for (const route of table) {
		const p = route.path.replace(/\{(\w+)(?:\.\.\.)?\}/g, (_m, name: string) => (name.endsWith("_id") ? "42" : "some%20name"));
		expect(real.match(route.method, p)).toEqual(regexMatch(table, route.method, p));
	}
});
