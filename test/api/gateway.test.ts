// The gateway's own rules: routing, the envelope, parameter decoding, body limits, rate limits.
import { startTestApp, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;

beforeAll(async () => {
	app = await startTestApp({ bodyLimit: 2048 });
	owner = client(app.baseUrl, app.owner);
});
afterAll(() => app.stop());

describe("routing", () => {
	test("an unknown path under /api/v1 is a 404 in Zulip's envelope", async () => {
		expectError(await owner.get("/no/such/endpoint"), 404, "NOT_FOUND", "Not Found");
	});

	test("a path outside /api/v1 is a 404 in the same envelope", async () => {
		const res = await fetch(app.baseUrl.replace("/api/v1", "/elsewhere"));
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
	});

	test("a known path with the wrong method is a 405 naming the allowed ones", async () => {
		const res = await owner.delete("/server_settings");
		expectError(res, 405, "METHOD_NOT_ALLOWED");
		expect(res.headers.get("allow")).toBe("GET");
		const many = await owner.request("PUT", "/users/me");
		expect(many.status).toBe(405);
		expect(many.headers.get("allow")).toBe("GET, PATCH");
	});

	test("path parameters named *_id take digits only", async () => {
		// /users/abc is the by-email route, not the by-ID one.
		expectError(await owner.get("/users/abc"), 400, "BAD_REQUEST", "No such user");
		expectError(await owner.post("/users/abc/reactivate"), 404, "NOT_FOUND");
	});

	test("a trailing slash reaches the same endpoint", async () => {
		expectSuccess(await owner.get("/users/me/"));
	});
});

describe("parameters", () => {
	test("form-encoded bodies, query strings and JSON bodies all arrive", async () => {
		const email = "forms@chat.test";
		const form = await owner.post("/users", { email, password: "password1", full_name: "Form" });
		expectSuccess(form);
		const json = await owner.post("/users", { email: "json@chat.test", password: "password1", full_name: "Json" }, { json: true });
		expectSuccess(json);
		const query = await owner.request("POST", `/users?email=query@chat.test&password=password1&full_name=Query`);
		expectSuccess(query);
		const list = await owner.get("/users");
		const names = list.body.members.map((m: { full_name: string }) => m.full_name);
		expect(names).toEqual(expect.arrayContaining(["Form", "Json", "Query"]));
	});

	test("unknown parameters are listed in ignored_parameters_unsupported", async () => {
		const res = await owner.get("/users/me", { bogus: 1, other: "x" });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported).toEqual(["bogus", "other"]);
		const clean = await owner.get("/users/me");
		expect(clean.body).not.toHaveProperty("ignored_parameters_unsupported");
	});

	test("a boolean parameter that is not a JSON boolean is a 400 naming it", async () => {
		expectError(await owner.get("/users", { client_gravatar: "yes" }), 400, "BAD_REQUEST", "client_gravatar is not a boolean");
		expectError(await owner.get("/users", { client_gravatar: "1" }), 400, "BAD_REQUEST", "client_gravatar is not a boolean");
	});

	test("a JSON body value of the wrong type is a 400 naming it", async () => {
		const res = await owner.post("/users", { email: 5, password: "password1", full_name: "X" }, { json: true });
		expectError(res, 400, "BAD_REQUEST", "email is not a string");
	});

	test("a list parameter that is not valid JSON is a 400 naming it", async () => {
		expectError(await owner.post("/register", { fetch_event_types: "[realm" }), 400, "BAD_REQUEST", 'Argument "fetch_event_types" is not valid JSON.');
	});

	test("a list parameter holding the wrong JSON type is a 400 naming it", async () => {
		expectError(await owner.post("/register", { fetch_event_types: { a: 1 } }), 400, "BAD_REQUEST", "fetch_event_types is not a list");
		expectError(await owner.post("/register", { fetch_event_types: [1, 2] }), 400, "BAD_REQUEST", "fetch_event_types[0] is not a string");
	});

	test("a malformed JSON body is a 400", async () => {
		const res = await fetch(`${app.baseUrl}/users/me`, {
			method: "POST",
			headers: { "Content-Type": "application/json", Authorization: `Basic ${Buffer.from(`${app.owner.email}:${app.owner.api_key}`).toString("base64")}` },
			body: "{not json",
		});
		expect(res.status).toBe(400);
		expect(await res.json()).toMatchObject({ result: "error", code: "BAD_REQUEST" });
	});

	test("a body over the size limit is refused with 413 and nothing is created", async () => {
		const before = (await owner.get("/users")).body.members.length;
		const res = await owner.post("/users", { email: "big@chat.test", password: "password1", full_name: "x".repeat(5000) });
		expect(res.status).toBe(413);
		expect(res.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
		expect((await owner.get("/users")).body.members.length).toBe(before);
	});
});

describe("rate limiting", () => {
	let limited: TestApp;
	beforeAll(async () => {
		limited = await startTestApp({ rateLimit: 3, rateLimitWindowSeconds: 60 });
	});
	afterAll(() => limited.stop());

	test("each user gets the configured budget, then RATE_LIMIT_HIT with Retry-After", async () => {
		const c = client(limited.baseUrl, limited.owner);
		for (let i = 0; i < 3; i++) {
			const ok = await c.get("/users/me");
			expectSuccess(ok);
			expect(ok.headers.get("x-ratelimit-limit")).toBe("3");
			expect(ok.headers.get("x-ratelimit-remaining")).toBe(String(2 - i));
		}
		const res = await c.get("/users/me");
		expectError(res, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit");
		expect(res.body["retry-after"]).toBeGreaterThan(0);
		expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
		expect(res.headers.get("x-ratelimit-remaining")).toBe("0");

		// Another user has a budget of their own.
		const other = await limited.createUser({});
		expectSuccess(await client(limited.baseUrl, other).get("/users/me"));
	});

	test("failed authentication attempts spend the address's budget", async () => {
		const c = client(limited.baseUrl, { email: limited.owner.email, api_key: "B".repeat(32) });
		for (let i = 0; i < 3; i++) expectError(await c.get("/users/me"), 401, "UNAUTHORIZED", "Invalid API key");
		expectError(await c.get("/users/me"), 429, "RATE_LIMIT_HIT");
		// Unauthenticated requests from the address are limited; a user's own budget is not touched.
		expectError(await client(limited.baseUrl, null).get("/server_settings"), 429, "RATE_LIMIT_HIT");
		const fresh = await limited.createUser({});
		expectSuccess(await client(limited.baseUrl, fresh).get("/users/me"));
	});
});

describe("hostile input", () => {
	test("a malformed percent-escape in the path is a 400, not a crash", async () => {
		expectError(await owner.get("/users/%E0%A4%A"), 400, "BAD_REQUEST", "Malformed URL");
		expectSuccess(await owner.get("/users/me"));
	});

	test("NUL bytes and odd Unicode in parameters are handled as data", async () => {
		expectError(await owner.get("/users/a%00b%40chat.test"), 400, "BAD_REQUEST", "email contains a null byte");
		const before = (await owner.get("/users")).body.members.length;
		expectError(await owner.post("/users", { email: "nul\u0000@chat.test", password: "password1", full_name: "N" }), 400, "BAD_REQUEST", "email contains a null byte");
		expectError(await owner.post("/register", { fetch_event_types: ["realm\u0000"] }), 400, "BAD_REQUEST", "fetch_event_types contains a null byte");
		expectError(await owner.post("/users", { email: "ctl\u0007x@chat.test", password: "password1", full_name: "N" }), 400, "BAD_REQUEST", /Invalid email/);
		expect((await owner.get("/users")).body.members.length).toBe(before);
		expectError(await owner.post("/users", { email: "ctl@chat.test", password: "password1", full_name: "bad\u0007name" }), 400, "BAD_REQUEST", "Invalid characters in name!");
	});

	test("prototype-polluting parameter names are ignored", async () => {
		const res = await owner.get("/users/me", { __proto__x: 1, constructor: "x" });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported).toEqual(["__proto__x", "constructor"]);
	});
});
