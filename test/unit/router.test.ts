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

test("a path goes to the first pattern that matches it, whatever the method; that pattern's methods decide", () => {
	const r = new Router([
		{ method: "GET", path: "/a/{name}", action: "first" },
		{ method: "GET", path: "/a/b", action: "second" },
		{ method: "POST", path: "/a/b", action: "post" },
		{ method: "DELETE", path: "/a/{name}", action: "delete" },
	]);
	expect(r.match("GET", "/a/b")).toMatchObject({ route: { action: "first" }, pathParams: { name: "b" } });
	expect(r.match("DELETE", "/a/b")).toMatchObject({ route: { action: "delete" }, pathParams: { name: "b" } });
	// As Django: /a/b is /a/{name}'s, so POST is a 405 although the later /a/b takes POST.
	expect(r.match("POST", "/a/b")).toEqual({ kind: "wrong-method", allowed: ["GET", "DELETE"] });
	expect(r.match("PUT", "/a/b")).toEqual({ kind: "wrong-method", allowed: ["GET", "DELETE"] });
});

test("a pattern whose parameter is not valid percent-encoding does not match: the next one may", () => {
	const r = new Router([
		{ method: "GET", path: "/a/{name}", action: "first" },
		{ method: "POST", path: "/a/{other}", action: "second" },
	]);
	// Both fail to decode, so neither matches.
	expect(r.match("POST", "/a/%E0%A4%A")).toEqual({ kind: "none" });
	expect(r.match("POST", "/a/x")).toEqual({ kind: "wrong-method", allowed: ["GET"] });
});

describe("the route table's overlapping patterns resolve as Zulip's urls.py resolves them", () => {
	const real = new Router(routes);
	const found = (method: string, path: string, action: string, pathParams: Record<string, string>) =>
		expect(real.match(method, path)).toEqual({ kind: "found", route: expect.objectContaining({ method, action }), pathParams });
	const refused = (method: string, path: string, allowed: string[]) => expect(real.match(method, path)).toEqual({ kind: "wrong-method", allowed });

	test("users/me/presence (POST) before users/<user_id_or_email>/presence (GET)", () => {
		found("POST", "/users/me/presence", "users.updatePresence", {});
		refused("GET", "/users/me/presence", ["POST"]);
		found("GET", "/users/12/presence", "users.userPresence", { user_id_or_email: "12" });
		found("GET", "/users/a%40b.c/presence", "users.userPresence", { user_id_or_email: "a@b.c" });
		refused("POST", "/users/12/presence", ["GET"]);
	});

	test("users/me before users/<email>", () => {
		found("GET", "/users/me", "users.me", {});
		// GET then DELETE (deactivating oneself), as urls.py lists them.
		found("DELETE", "/users/me", "users.deactivateMe", {});
		refused("PATCH", "/users/me", ["GET", "DELETE"]);
	});

	test("users/<int:user_id> before users/<email>", () => {
		found("GET", "/users/12", "users.get", { user_id: "12" });
		found("PATCH", "/users/12", "users.update", { user_id: "12" });
		found("DELETE", "/users/12", "users.deactivate", { user_id: "12" });
		refused("PUT", "/users/12", ["GET", "PATCH", "DELETE"]);
		found("GET", "/users/a%40b.c", "users.getByEmail", { email: "a@b.c" });
		found("PATCH", "/users/a%40b.c", "users.updateByEmail", { email: "a@b.c" });
		refused("DELETE", "/users/a%40b.c", ["GET", "PATCH"]);
	});

	test("no other two patterns can take the same path (a new pair needs its place checked against urls.py)", () => {
		type Seg = { kind: "literal"; value: string } | { kind: "digits" | "any" | "rest" };
		const parse = (path: string): Seg[] =>
			path
				.split("/")
				.slice(1)
				.map((s) => {
					const m = /^\{(\w+)(\.\.\.)?\}$/.exec(s);
					if (!m) return { kind: "literal", value: s };
					return { kind: m[2] ? "rest" : m[1].endsWith("_id") ? "digits" : "any" };
				});
		const segmentsMeet = (a: Seg, b: Seg): boolean => {
			if (a.kind === "literal" && b.kind === "literal") return a.value === b.value;
			if (b.kind === "literal") return segmentsMeet(b, a);
			if (a.kind === "literal") return b.kind !== "digits" || /^\d+$/.test(a.value);
			return true;
		};
		const meet = (a: Seg[], b: Seg[]): boolean => {
			for (let i = 0; ; i++) {
				if (a[i]?.kind === "rest") return b.length > i;
				if (b[i]?.kind === "rest") return a.length > i;
				if (i === a.length || i === b.length) return a.length === b.length;
				if (!segmentsMeet(a[i], b[i])) return false;
			}
		};
		const paths = [...new Set([...routes, ...benchRoutes].map((r) => r.path))];
		const pairs: string[][] = [];
		paths.forEach((a, i) => paths.slice(i + 1).forEach((b) => meet(parse(a), parse(b)) && pairs.push([a, b])));
		expect(pairs).toEqual([
			["/users/me", "/users/{email}"],
			["/users/{user_id}", "/users/{email}"],
			["/users/me/presence", "/users/{user_id_or_email}/presence"],
		]);
	});
});

/**
 * The table resolved as Django resolves Zulip's urls.py: each distinct path a regular expression,
 * tried in the order the paths first appear; the first that matches (and decodes) decides.
 */
function regexMatch(table: Route[], method: string, path: string): Match {
	for (const p of [...new Set(table.map((r) => r.path))]) {
		const names: string[] = [];
		const pattern = p.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)((?:\\\.){3})?\}/g, (_m, name: string, rest?: string) => {
			names.push(name);
			if (rest) return "([^/].*?)";
			return name.endsWith("_id") ? "(\\d+)" : "([^/]+)";
		});
		const m = new RegExp(`^${pattern}/?$`).exec(path);
		if (!m) continue;
		let pathParams: Record<string, string>;
		try {
			pathParams = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
		} catch {
			continue;
		}
		const mine = table.filter((r) => r.path === p);
		const route = mine.find((r) => r.method === method);
		return route ? { kind: "found", route, pathParams } : { kind: "wrong-method", allowed: [...new Set(mine.map((r) => r.method))] };
	}
	return { kind: "none" };
}

test("the whole route table answers as Django's resolution of its regular expressions", () => {
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
