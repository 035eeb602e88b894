// The pages a key in the URL opens (sign-up links, email confirmation), over HTTP: the security
// headers on every answer, cross-site form posts refused as Django's CSRF check refuses them (403,
// nothing created, the invitation still usable), and wrong keys limited per client address (429
// with Retry-After once SIGNUP_KEY_FAILURES are spent, a right key from another address still
// working, the address's own right key refused until the window ends). The client address comes
// from X-Forwarded-For only when the connection is from a proxy in TRUSTED_PROXIES.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { lastLinkTo } from "../support/emails";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, jsonOf, type Client } from "../support/http";
import { clock } from "../../shared/clock";

interface Answer {
	status: number;
	text: string;
	body: any;
	headers: Headers;
}

/** The sign-up link emailed to `to`, as a path on the gateway (links name http://chat.test). */
const linkPath = (app: TestApp, to: string) => new URL(lastLinkTo(app.dataDir, to)).pathname;

/** One request to a page: `form` is sent form-encoded, `json` as JSON. */
async function open(app: TestApp, pagePath: string, o: { form?: Record<string, string>; json?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Answer> {
	const headers: Record<string, string> = { ...o.headers };
	let body: string | undefined;
	if (o.form) {
		headers["Content-Type"] = "application/x-www-form-urlencoded";
		body = new URLSearchParams(o.form).toString();
	} else if (o.json) {
		headers["Content-Type"] = "application/json";
		body = JSON.stringify(o.json);
	}
	const res = await fetch(`${new URL(app.baseUrl).origin}${pagePath}`, { method: body === undefined ? "GET" : "POST", headers, body });
	const text = await res.text();
	return { status: res.status, text, body: jsonOf(text), headers: res.headers };
}

function expectPageHeaders(a: Answer): void {
	const csp = a.headers.get("content-security-policy") ?? "";
	expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
	expect(a.headers.get("x-frame-options")).toBe("DENY");
	expect(a.headers.get("x-content-type-options")).toBe("nosniff");
	expect(a.headers.get("referrer-policy")).toBe("same-origin");
}

const emailsOf = async (owner: Client) => ((await owner.get("/users")).body.members as Array<{ delivery_email: string }>).map((u) => u.delivery_email);
const pendingOf = async (owner: Client) => ((await owner.get("/invites")).body.invites as Array<{ email: string }>).map((i) => i.email);

describe("behind a trusted proxy", () => {
	let app: TestApp;
	let owner: Client;
	const invite = async (email: string) => {
		expectSuccess(await owner.post("/invites", { invitee_emails: email, stream_ids: [] }));
		return linkPath(app, email);
	};

	beforeAll(async () => {
		app = await startTestApp({ signupKeyFailures: 5, signupKeyWindowSeconds: 60, trustedProxies: ["127.0.0.0/8", "::1"] });
		owner = client(app.baseUrl, app.owner);
	});

	afterAll(async () => {
		clock.reset();
		await app?.stop();
	});

	test("every answer of the pages carries the security headers", async () => {
		const link = await invite("headers@example.com");
		const form = await open(app, link);
		expect(form.status).toBe(200);
		expect(form.headers.get("content-type")).toBe("text/html; charset=utf-8");
		expectPageHeaders(form);
		// The policy's hash is the page's one inline stylesheet's, and nothing else is inline.
		const styles = [...form.text.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]);
		expect(styles).toHaveLength(1);
		expect(form.headers.get("content-security-policy")).toContain(`'sha256-${createHash("sha256").update(styles[0]).digest("base64")}'`);
		expect(form.text).not.toMatch(/<script|\sstyle=|\son\w+=/i);
		expectPageHeaders(await open(app, "/accounts/do_confirm/unknownkey", { headers: { "X-Forwarded-For": "192.0.2.1" } }));
		const refused = await open(app, link, { json: { full_name: "H", password: "secret-123" } });
		expectError(refused, 400, "BAD_REQUEST", "Name too short!");
		expectPageHeaders(refused);
		expectPageHeaders(await open(app, `/accounts/confirm_new_email/${"Z".repeat(32)}`, { headers: { "X-Forwarded-For": "192.0.2.1" } }));
	});

	test("a form posted from another site is refused with 403 and creates nothing", async () => {
		const link = await invite("victim@example.com");
		const fields = { full_name: "Mallory", password: "a-good-password" };
		const foreign = await open(app, link, { form: fields, headers: { Origin: "http://evil.example" } });
		expect(foreign.status).toBe(403);
		expect(foreign.headers.get("content-type")).toBe("text/html; charset=utf-8");
		expect(foreign.text).toContain("<h1>Forbidden</h1>");
		expect(foreign.text).toContain("Origin checking failed - http://evil.example does not match any trusted origins.");
		expectPageHeaders(foreign);

		// An API client's JSON gets Zulip's CSRF error.
		const json = await open(app, link, { json: fields, headers: { Origin: "http://evil.example" } });
		expectError(json, 403, "CSRF_FAILED", "CSRF error: Origin checking failed - http://evil.example does not match any trusted origins.");
		expect(json.body.reason).toBe("Origin checking failed - http://evil.example does not match any trusted origins.");

		// A sandboxed or no-referrer page says `null`; older browsers send only a Referer; a form
		// with neither header is no API client's.
		expect((await open(app, link, { form: fields, headers: { Origin: "null" } })).status).toBe(403);
		expect((await open(app, link, { form: fields, headers: { Origin: "http://chat.test.evil.example" } })).status).toBe(403);
		expect((await open(app, link, { form: fields, headers: { Referer: "http://evil.example/chat.test" } })).status).toBe(403);
		const bare = await open(app, link, { form: fields });
		expect(bare.status).toBe(403);
		expect(bare.text).toContain("Referer checking failed - no Referer.");

		// A reusable link's form too: no email is sent.
		const multiuse = await owner.post("/invites/multiuse", { stream_ids: [] });
		const joinPath = new URL(multiuse.body.invite_link).pathname;
		const emails = fs.readdirSync(path.join(app.dataDir, "emails")).length;
		expect((await open(app, joinPath, { form: { email: "lured@example.com" }, headers: { Origin: "http://evil.example" } })).status).toBe(403);
		expect(fs.readdirSync(path.join(app.dataDir, "emails"))).toHaveLength(emails);

		expect(await emailsOf(owner)).not.toContain("victim@example.com");
		expect(await pendingOf(owner)).toContain("victim@example.com");

		// From the page itself (Origin, or only a Referer, of EXTERNAL_URL) the form works.
		const own = await open(app, link, { form: fields, headers: { Referer: `http://chat.test${link}` } });
		expect(own.status).toBe(200);
		expect(own.text).toContain("Account created");
		expect(await emailsOf(owner)).toContain("victim@example.com");
		const other = await invite("welcome@example.com");
		expect((await open(app, other, { form: { full_name: "Wel Come", password: "a-good-password" }, headers: { Origin: "http://chat.test" } })).status).toBe(200);
		// API clients post JSON without either header, as before.
		const third = await invite("api@example.com");
		expectSuccess(await open(app, third, { json: { full_name: "Api Client", password: "a-good-password" } }));
	});

	test("after SIGNUP_KEY_FAILURES wrong keys an address is answered 429 until the window ends; other addresses are not", async () => {
		const link = await invite("guarded@example.com");
		const guesser = { "X-Forwarded-For": "203.0.113.7" };
		// Five failures, GET and POST, on both kinds of link.
		for (const p of ["/accounts/do_confirm/guess1", "/accounts/do_confirm/guess2", "/join/guess3/"]) expect((await open(app, p, { headers: guesser })).status).toBe(400);
		expectError(await open(app, "/accounts/do_confirm/guess4", { json: { full_name: "G", password: "x" }, headers: guesser }), 400, "BAD_REQUEST", "This invitation link is not valid.");
		expect((await open(app, "/accounts/do_confirm/guess5", { form: { full_name: "G" }, headers: { ...guesser, Origin: "http://chat.test" } })).status).toBe(400);

		// Now even the right key is refused to this address, as HTML and as JSON.
		const page = await open(app, link, { headers: guesser });
		expect(page.status).toBe(429);
		expect(page.text).toContain("Rate limit exceeded");
		expectPageHeaders(page);
		const wait = Number(page.headers.get("retry-after"));
		expect(wait).toBeGreaterThanOrEqual(1);
		expect(wait).toBeLessThanOrEqual(60);
		const json = await open(app, link, { json: { full_name: "Guess Er", password: "a-good-password" }, headers: guesser });
		expectError(json, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit");
		expect(json.body["retry-after"]).toBeGreaterThan(0);
		expect(json.headers.get("retry-after")).toMatch(/^\d+$/);
		// Writing another address in front of the one the proxy added changes nothing.
		expect((await open(app, link, { headers: { "X-Forwarded-For": "198.51.100.9, 203.0.113.7" } })).status).toBe(429);
		expect(await emailsOf(owner)).not.toContain("guarded@example.com");

		// Another address opens the same link and signs up.
		const friend = { "X-Forwarded-For": "198.51.100.9" };
		const form = await open(app, link, { headers: friend });
		expect(form.status).toBe(200);
		expect(form.text).toContain("guarded@example.com");
		expectSuccess(await open(app, link, { json: { full_name: "Guard Ed", password: "a-good-password" }, headers: friend }));
		expect(await emailsOf(owner)).toContain("guarded@example.com");

		// When the window ends the address is answered again.
		clock.advance(61_000);
		expect((await open(app, "/accounts/do_confirm/guess6", { headers: guesser })).status).toBe(400);
	});
});

describe("without a trusted proxy, with the default limit", () => {
	let app: TestApp;
	let owner: Client;

	beforeAll(async () => {
		app = await startTestApp();
		owner = client(app.baseUrl, app.owner);
	});

	afterAll(async () => {
		clock.reset();
		await app?.stop();
	});

	test("X-Forwarded-For is ignored: 20 wrong or expired keys from one connection's address, then 429", async () => {
		expectSuccess(await owner.post("/invites", { invitee_emails: "late@example.com", stream_ids: [], invite_expires_in_minutes: 1 }));
		const expired = linkPath(app, "late@example.com");
		clock.advance(2 * 60_000);
		for (let i = 0; i < 20; i++) {
			const p = i % 4 === 0 ? expired : `/accounts/do_confirm/guess${i}`;
			expect((await open(app, p, { headers: { "X-Forwarded-For": `192.0.2.${i}` } })).status).toBe(400);
		}
		expectSuccess(await owner.post("/invites", { invitee_emails: "fresh@example.com", stream_ids: [] }));
		const refused = await open(app, linkPath(app, "fresh@example.com"), { headers: { "X-Forwarded-For": "198.51.100.1" } });
		expect(refused.status).toBe(429);
		expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
	});
});
