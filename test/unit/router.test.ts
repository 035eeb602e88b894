import { Router } from "../../services/api/router";

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
});

test("a malformed escape in a path parameter is not a crash", () => {
	expect(router.match("GET", "/users/%E0%A4%A")).toEqual({ kind: "none" });
});
