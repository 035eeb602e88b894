// The gateway's own rules: routing, the envelope, parameter decoding, body limits, rate limits.
import { startTestApp, type TestApp } from "../support/app";
import net from "node:net";
import zlib from "node:zlib";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
const basicAuth = (a: { email: string; api_key: string }) => `Basic ${Buffer.from(`${a.email}:${a.api_key}`).toString("base64")}`;

beforeAll(async () => {
	app = await startTestApp({ bodyLimit: 2048 });
	owner = client(app.baseUrl, app.owner);
	await app.grant(app.owner, "can_create_users");
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
		const many = await owner.request("PUT", `/users/${app.owner.user_id}`);
		expect(many.status).toBe(405);
		expect(many.headers.get("allow")).toBe("GET, PATCH, DELETE");
		expect(many.body).toEqual({ result: "error", msg: "Method Not Allowed", code: "METHOD_NOT_ALLOWED", allowed_methods: ["GET", "PATCH", "DELETE"] });
	});

	test("a path goes to the first pattern that matches it, whatever the method, as Django resolves Zulip's urls.py", async () => {
		// users/me/presence (POST only) comes before users/{user_id_or_email}/presence (GET).
		const presence = await owner.get("/users/me/presence");
		expect(presence.status).toBe(405);
		expect(presence.headers.get("allow")).toBe("POST");
		expect(presence.body).toEqual({ result: "error", msg: "Method Not Allowed", code: "METHOD_NOT_ALLOWED", allowed_methods: ["POST"] });
		// users/me (GET, DELETE) comes before users/{email} (GET, PATCH).
		const me = await owner.patch("/users/me", { full_name: "Renamed" });
		expect(me.status).toBe(405);
		expect(me.headers.get("allow")).toBe("GET, DELETE");
		// Another name in the same place still reaches the later pattern.
		expectError(await owner.get("/users/nobody%40chat.test/presence"), 400, "BAD_REQUEST", "No such user");
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

	test("multipart/form-data bodies arrive as form-encoded ones do: text fields, the last of a repeated name", async () => {
		const form = new FormData();
		form.append("email", "first@chat.test");
		form.append("email", "multipart@chat.test");
		form.append("password", "password1");
		form.append("full_name", "Multi Part");
		// A file where none is taken is dropped, as Zulip ignores it.
		form.append("attachment", new Blob(["data"]), "a.txt");
		const res = await fetch(`${app.baseUrl}/users`, { method: "POST", headers: { Authorization: basicAuth(app.owner) }, body: form });
		const body = (await res.json()) as { user_id: number };
		expect(body).toEqual({ result: "success", msg: "", user_id: expect.any(Number) });
		expect((await owner.get(`/users/${body.user_id}`)).body.user).toMatchObject({ email: "multipart@chat.test", full_name: "Multi Part" });
	});

	test("a malformed multipart body is a 400 and creates nothing", async () => {
		const before = (await owner.get("/users")).body.members.length;
		for (const contentType of ["multipart/form-data; boundary=xyz", "multipart/form-data"]) {
			const res = await fetch(`${app.baseUrl}/users`, { method: "POST", headers: { Authorization: basicAuth(app.owner), "Content-Type": contentType }, body: "email=x@chat.test&password=password1&full_name=X" });
			expect(res.status).toBe(400);
			expect(await res.json()).toEqual({ result: "error", msg: "Malformed multipart/form-data body", code: "BAD_REQUEST" });
		}
		expect((await owner.get("/users")).body.members.length).toBe(before);
	});

	test("messages record the client the User-Agent names, as Zulip parses it", async () => {
		const headers = { "User-Agent": "ZulipTerminal/0.7.0 Linux-6.1 (Debian GNU/Linux; 12)" };
		const res = await owner.post("/messages", { type: "direct", to: JSON.stringify([app.owner.user_id]), content: "which client?" }, { headers });
		expectSuccess(res);
		const read = await owner.get(`/messages/${res.body.id}`);
		expect(read.body.message.client).toBe("ZulipTerminal");
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

describe("no input is a 500 or a dropped connection", () => {
	const auth = () => `Basic ${Buffer.from(`${app.owner.email}:${app.owner.api_key}`).toString("base64")}`;
	const post = async (path: string, body: string | Buffer, headers: Record<string, string>) => {
		const res = await fetch(`${app.baseUrl}${path}`, { method: "POST", headers: { Authorization: auth(), ...headers }, body });
		return { status: res.status, body: (await res.json()) as any };
	};
	const form = { "Content-Type": "application/x-www-form-urlencoded" };
	/** Sends raw bytes and reads until the server closes (or `ms` passes: that bounds only a hang). */
	const rawExchange = (data: string, ms = 20_000) =>
		new Promise<{ text: string }>((resolve) => {
			const socket = net.connect(Number(new URL(app.baseUrl).port), "127.0.0.1");
			let text = "";
			const done = () => resolve({ text });
			const timer = setTimeout(() => {
				socket.destroy();
				done();
			}, ms);
			socket.on("data", (d) => {
				text += d.toString();
				if (/\r\n\r\n\{.*\}$/s.test(text)) {
					clearTimeout(timer);
					socket.destroy();
					done();
				}
			});
			socket.on("error", () => undefined);
			socket.on("close", () => {
				clearTimeout(timer);
				done();
			});
			socket.write(data);
		});

	test("deeply nested JSON in a parameter is a 400, form-encoded or in a JSON body", async () => {
		// Within this file's 2 KB body limit; test/unit/params.test.ts and the fuzz test go 20,000 deep.
		const deepList = "[".repeat(900) + "]".repeat(900);
		let deepObject = "1";
		for (let i = 0; i < 300; i++) deepObject = `{"a":${deepObject}}`;
		const list = await post("/register", `{"fetch_event_types":${deepList}}`, { "Content-Type": "application/json" });
		expect(list).toEqual({ status: 400, body: { result: "error", code: "BAD_REQUEST", msg: expect.stringMatching(/fetch_event_types is nested too deeply/) } });
		const json = await post("/users/me/subscriptions", `{"subscriptions":[${deepObject}]}`, { "Content-Type": "application/json" });
		expect(json).toEqual({ status: 400, body: { result: "error", code: "BAD_REQUEST", msg: expect.stringMatching(/subscriptions is nested too deeply/) } });
	});

	test("JSON null where a string is expected is the wrong type, and creates nothing", async () => {
		const groups = (await owner.get("/user_groups")).body.user_groups.length;
		const res = await post("/user_groups/create", '{"name":null,"description":"d","members":[]}', { "Content-Type": "application/json" });
		expect(res).toEqual({ status: 400, body: { result: "error", code: "BAD_REQUEST", msg: "name is not a string" } });
		const desc = await post("/user_groups/create", '{"name":"g","description":null,"members":[]}', { "Content-Type": "application/json" });
		expect(desc.body.msg).toBe("description is not a string");
		expect((await owner.get("/user_groups")).body.user_groups.length).toBe(groups);
	});

	test("a form body in a charset other than UTF-8, or one that does not exist, is a 415", async () => {
		for (const charset of ["latin1", "nope"]) {
			const res = await post("/users/me/alert_words", "alert_words=%5B%22x%22%5D", { "Content-Type": `application/x-www-form-urlencoded; charset=${charset}` });
			expect(res).toEqual({ status: 415, body: { result: "error", code: "BAD_REQUEST", msg: "Unsupported charset: request bodies must be UTF-8" } });
		}
		const json = await post("/users/me/alert_words", '{"alert_words":["x"]}', { "Content-Type": "application/json; charset=latin1" });
		expect(json.status).toBe(415);
		expect((await owner.get("/users/me/alert_words")).body.alert_words).toEqual([]);
	});

	test("an unknown Content-Encoding is a 415, and a body that does not decompress a 400; real gzip works", async () => {
		const bad = await post("/users/me/alert_words", "alert_words=%5B%22x%22%5D", { ...form, "Content-Encoding": "zstd-ish" });
		expect(bad).toEqual({ status: 415, body: { result: "error", code: "BAD_REQUEST", msg: "Unsupported Content-Encoding: use gzip, deflate or br" } });
		for (const encoding of ["gzip", "deflate", "br"]) {
			const res = await post("/users/me/alert_words", "alert_words=%5B%22x%22%5D", { ...form, "Content-Encoding": encoding });
			expect(res).toEqual({ status: 400, body: { result: "error", code: "BAD_REQUEST", msg: "Malformed request body" } });
		}
		expect((await owner.get("/users/me/alert_words")).body.alert_words).toEqual([]);
		expect((await post("/users/me/alert_words", zlib.gzipSync("alert_words=%5B%22zipped%22%5D"), { ...form, "Content-Encoding": "gzip" })).status).toBe(200);
		expect((await owner.get("/users/me/alert_words")).body.alert_words).toEqual(["zipped"]);
	});

	test("a query string or headers over the header limit are answered 431 with Zulip's envelope, not reset", async () => {
		for (const url of [`${app.baseUrl}/users/me?x=${"a".repeat(1024 * 1024)}`, `${app.baseUrl}/users/me?x=${"a".repeat(20 * 1024)}`]) {
			const res = await fetch(url, { headers: { Authorization: auth() } });
			expect(res.status).toBe(431);
			expect(await res.json()).toEqual({ result: "error", code: "BAD_REQUEST", msg: "Request line or headers too large" });
		}
		const raw = await rawExchange(`GET /api/v1/users/me HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
		expect(raw.text).toMatch(/^HTTP\/1\.1 431 [^]*"code":"BAD_REQUEST"/);
		expectSuccess(await owner.get("/users/me"));
	});

	test("a 100,000-element list is answered at once: 413 over the body limit, 431 in a query string", async () => {
		const big = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => i + 1));
		const res = await post("/messages/flags", `op=add&flag=read&messages=${encodeURIComponent(big)}`, form);
		expect(res.status).toBe(413); // over this file's 2 KB body limit
		// 431 comes from the HTTP parser's header limit, before the list is read.
		const query = await fetch(`${app.baseUrl}/users?user_ids=${big}`, { headers: { Authorization: auth() } });
		expect(query.status).toBe(431);
	});

	test("a Content-Length over the body limit is refused with 413 at once, before any body arrives", async () => {
		// The body never comes: an answer at all is one given before it (a server's wait for it would
		// end in 408, not 413).
		const { text } = await rawExchange(
			`POST /api/v1/users/me/alert_words HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 99999999\r\n\r\n`,
		);
		expect(text).toMatch(/^HTTP\/1\.1 413 [^]*\{"result":"error","msg":"Request body too large","code":"BAD_REQUEST"\}$/);
	});
});

describe("what the gateway logs of refused requests", () => {
	/** The api service's log lines while `run` runs, by level (its logger's methods, wrapped). */
	async function logsDuring(run: () => Promise<void>): Promise<Array<{ level: string; fields: Record<string, unknown>; msg: string }>> {
		const logger = (app.node.broker.getLocalService("api") as unknown as { logger: Record<string, (...a: unknown[]) => void> }).logger;
		const seen: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
		const kept = Object.fromEntries(["debug", "info", "warn", "error"].map((l) => [l, logger[l]]));
		for (const level of Object.keys(kept)) {
			logger[level] = (...args: unknown[]) => {
				if (typeof args[0] === "object" && args[0] !== null) seen.push({ level, fields: args[0] as Record<string, unknown>, msg: String(args[1]) });
				else seen.push({ level, fields: {}, msg: args.map(String).join(" ") });
			};
		}
		try {
			await run();
		} finally {
			Object.assign(logger, kept);
		}
		return seen.filter((l) => l.level !== "debug");
	}

	test("a bad request is one line at info with its route, status, code and request ID, never the body or the key", async () => {
		let res!: Awaited<ReturnType<Client["post"]>>;
		const lines = await logsDuring(async () => {
			res = await owner.post("/messages", { type: "channel", to: 999999, topic: "t", content: "secret words" });
		});
		expectError(res, 400, "STREAM_DOES_NOT_EXIST");
		const id = res.headers.get("x-request-id");
		expect(id).toMatch(/^[0-9a-f-]{36}$/);
		expect(lines).toEqual([{ level: "info", msg: "request refused", fields: { request_id: id, method: "POST", route: "messages.send", status: 400, code: "STREAM_DOES_NOT_EXIST" } }]);
		expect(JSON.stringify(lines)).not.toContain("secret words");
		expect(JSON.stringify(lines)).not.toContain(app.owner.api_key);
	});

	test("a body that does not parse is refused at info too, not as moleculer-web's 'Request error!'", async () => {
		let status = 0;
		const lines = await logsDuring(async () => {
			const r = await fetch(`${app.baseUrl}/messages`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Basic ${Buffer.from(`${app.owner.email}:${app.owner.api_key}`).toString("base64")}` }, body: "{not json" });
			status = r.status;
		});
		expect(status).toBe(400);
		expect(lines.map((l) => l.level)).toEqual(["info"]);
		expect(lines[0].fields).toMatchObject({ status: 400, code: "BAD_REQUEST" });
	});

	test("every answer carries X-Request-Id; a sane one the client sent is kept, another replaced", async () => {
		const ok = await fetch(`${app.baseUrl}/server_settings`);
		expect(ok.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
		const kept = await fetch(`${app.baseUrl}/server_settings`, { headers: { "X-Request-Id": "proxy-7.abc" } });
		expect(kept.headers.get("x-request-id")).toBe("proxy-7.abc");
		const odd = await fetch(`${app.baseUrl}/server_settings`, { headers: { "X-Request-Id": "has spaces\tand tabs" } });
		expect(odd.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
	});
});
