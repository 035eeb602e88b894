// The password reset pages over HTTP (/accounts/password/reset/ and the link it emails): the link
// reaches only the account's address, sets a password once, and every refusal (bad address, budget
// spent, cross-site post, wrong or used or expired link, mismatched or weak password) changes
// nothing: no email, no link, the old password still the one that works.
import { lastLinkTo, sentEmails } from "../support/emails";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, jsonOf, type Client } from "../support/http";
import { clock } from "../../shared/clock";
import mongoose from "mongoose";

const ORIGIN = { Origin: "http://chat.test" };

interface Answer {
	status: number;
	text: string;
	body: any;
	headers: Headers;
}

let app: TestApp;
let owner: Client;
let anon: Client;

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	anon = client(app.baseUrl);
});

afterAll(async () => {
	clock.reset();
	await app?.stop();
});

afterEach(() => clock.reset());

/** One request to a page: `form` form-encoded (a list value repeats the field), `json` as JSON. */
async function open(pagePath: string, o: { form?: Record<string, string | string[]>; json?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
	const headers: Record<string, string> = { ...o.headers };
	let body: string | undefined;
	if (o.form) {
		headers["Content-Type"] = "application/x-www-form-urlencoded";
		body = new URLSearchParams(Object.entries(o.form).flatMap(([k, v]): [string, string][] => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v]]))).toString();
	} else if (o.json !== undefined) {
		headers["Content-Type"] = "application/json";
		body = JSON.stringify(o.json);
	}
	const res = await fetch(`${new URL(app.baseUrl).origin}${pagePath}`, { method: body === undefined ? "GET" : "POST", headers, body });
	const text = await res.text();
	return { status: res.status, text, body: jsonOf(text), headers: res.headers };
}

/** Every email sent to `to`, oldest first, as written. */
const emailsTo = (to: string) => sentEmails(app.dataDir, to).map((m) => m.body);

/** The reset link in the newest email to `to`, as a path on the gateway. */
const linkTo = (to: string) => new URL(lastLinkTo(app.dataDir, to)).pathname;

const ask = (email: string) => open("/accounts/password/reset/", { form: { email }, headers: ORIGIN });
const setPassword = (link: string, a: string, b = a) => open(link, { form: { new_password1: a, new_password2: b }, headers: ORIGIN });
const passwordWorks = async (who: Account, password: string) => (await anon.post("/fetch_api_key", { username: who.email, password })).status === 200;

/** Moves the clock to one minute into a fresh day, so the hour and day budgets start empty and no window ends mid-test. */
function startOfFreshDay(): void {
	const now = clock.nowMs();
	clock.advance(86_400_000 - (now % 86_400_000) + 60_000);
}

test("the form, then the emailed link sets a new password once; the old one stops working", async () => {
	const user = await app.createUser({ password: "old-password" });
	const form = await open("/accounts/password/reset/");
	expect(form.status).toBe(200);
	expect(form.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
	expect(form.text).toContain('name="email"');

	const sent = await ask(user.email);
	expect([sent.status, sent.text]).toEqual([200, expect.stringContaining("Check your email")]);
	const link = linkTo(user.email);
	expect(link).toMatch(/^\/accounts\/password\/reset\/[A-Za-z0-9]{32}$/);

	const page = await open(link);
	expect(page.status).toBe(200);
	expect(page.text).toContain(user.email);
	expect(page.text).toContain('name="new_password1"');

	const done = await setPassword(link, "new-password");
	expect([done.status, done.text]).toEqual([200, expect.stringContaining("Password set")]);
	expect(await passwordWorks(user, "new-password")).toBe(true);
	expect(await passwordWorks(user, "old-password")).toBe(false);

	// Used up: the page and the form both refuse it, and the password stays.
	expect((await open(link)).status).toBe(404);
	expect((await setPassword(link, "third-password")).status).toBe(404);
	expect(await passwordWorks(user, "new-password")).toBe(true);
});

test("a user without a password (as every imported user) sets one and can then fetch their API key", async () => {
	const user = await app.createUser({});
	// As the importer leaves imported users: no password at all.
	const conn = mongoose.createConnection(process.env.TEST_MONGO_URL!, { dbName: `${app.node.config.dbPrefix}_users` });
	await conn.collection("users").updateOne({ _id: user.user_id as never }, { $set: { password_hash: null } });
	await conn.close();
	expect(await passwordWorks(user, "password123")).toBe(false);

	expect((await ask(user.email)).status).toBe(200);
	const set = await open(linkTo(user.email), { json: { new_password1: "chosen-password", new_password2: "chosen-password" } });
	expect([set.status, set.body]).toEqual([200, { result: "success", msg: "", user_id: user.user_id, email: user.email }]);
	const key = await anon.post("/fetch_api_key", { username: user.email, password: "chosen-password" });
	expect([key.status, key.body.api_key]).toEqual([200, user.api_key]);
});

test("an address without an account gets an email saying so, with no link; the page answers as for anyone", async () => {
	const stranger = "nobody-here@example.com";
	const sent = await ask(stranger);
	expect([sent.status, sent.text]).toEqual([200, expect.stringContaining("Check your email")]);
	const mails = emailsTo(stranger);
	expect(mails).toHaveLength(1);
	expect(mails[0]).toContain("you do not have an active account");
	expect(mails[0]).not.toContain("/accounts/password/reset/");

	const deactivated = await app.createUser({});
	expectSuccess(await owner.delete(`/users/${deactivated.user_id}`));
	expect((await ask(deactivated.email)).status).toBe(200);
	expect(emailsTo(deactivated.email).at(-1)).toContain("is deactivated");
	expect(emailsTo(deactivated.email).at(-1)).not.toContain("/accounts/password/reset/");
});

test("mismatched, weak, missing or wrongly typed passwords are refused and leave the password and the link as they were", async () => {
	const user = await app.createUser({ password: "kept-password" });
	await ask(user.email);
	const link = linkTo(user.email);

	const mismatch = await setPassword(link, "first-choice", "second-choice");
	expect([mismatch.status, mismatch.text]).toEqual([400, expect.stringContaining("The two password fields didn’t match.")]);
	const weak = await setPassword(link, "abc");
	expect([weak.status, weak.text]).toEqual([400, expect.stringContaining("The password is too weak.")]);
	expect((await open(link, { form: { new_password1: "only-one" }, headers: ORIGIN })).status).toBe(400);
	const typed = await open(link, { json: { new_password1: 12345678, new_password2: 12345678 } });
	expect([typed.status, typed.body?.code]).toEqual([400, "BAD_REQUEST"]);
	const listed = await open(link, { form: { new_password1: ["a-password", "b-password"], new_password2: "a-password" }, headers: ORIGIN });
	expect(listed.status).toBe(400);

	expect(await passwordWorks(user, "kept-password")).toBe(true);
	expect((await setPassword(link, "finally-good")).status).toBe(200);
});

test("bad addresses are refused with Django's messages and send nothing", async () => {
	const before = sentEmails(app.dataDir).length;
	const missing = await open("/accounts/password/reset/", { form: {}, headers: ORIGIN });
	expect([missing.status, missing.text]).toEqual([400, expect.stringContaining("This field is required.")]);
	const invalid = await ask("not-an-address");
	expect([invalid.status, invalid.text]).toEqual([400, expect.stringContaining("Enter a valid email address.")]);
	const typed = await open("/accounts/password/reset/", { json: { email: 42 } });
	expect([typed.status, typed.body]).toEqual([400, { result: "error", msg: "email is not a string", code: "BAD_REQUEST" }]);
	expect((await open("/accounts/password/reset/", { form: { email: ["a@example.com", "b@example.com"] }, headers: ORIGIN })).status).toBe(400);
	expect((await ask(`${"x".repeat(300)}@example.com`)).status).toBe(400);
	expect(sentEmails(app.dataDir)).toHaveLength(before);
});

test("a cross-site post is refused with 403 and sends nothing; a cross-site post to a link sets nothing", async () => {
	const user = await app.createUser({ password: "cross-site-kept" });
	const refused = await open("/accounts/password/reset/", { form: { email: user.email }, headers: { Origin: "https://evil.example" } });
	expect(refused.status).toBe(403);
	expect(emailsTo(user.email)).toHaveLength(0);

	await ask(user.email);
	const link = linkTo(user.email);
	expect((await open(link, { form: { new_password1: "attacker-pass", new_password2: "attacker-pass" }, headers: { Origin: "https://evil.example" } })).status).toBe(403);
	expect(await passwordWorks(user, "cross-site-kept")).toBe(true);
});

test("wrong, malformed and expired links are 404, and a link works for three days", async () => {
	for (const key of ["A".repeat(32), "short", "x".repeat(64), "%00%01"]) {
		const r = await open(`/accounts/password/reset/${key}`);
		expect(r.status).toBe(404);
		expect(r.text).toContain("The password reset link is invalid");
	}
	const user = await app.createUser({ password: "expiry-kept" });
	await ask(user.email);
	const link = linkTo(user.email);
	clock.advance(3 * 86_400_000 - 60_000);
	expect((await open(link)).status).toBe(200);
	clock.advance(120_000);
	expect((await open(link)).status).toBe(404);
	expect((await setPassword(link, "too-late-pass")).status).toBe(404);
	expect(await passwordWorks(user, "expiry-kept")).toBe(true);
});

test("setting the password by one link retires every other link of the user; two submissions of one link set it once", async () => {
	startOfFreshDay();
	const user = await app.createUser({ password: "retire-kept" });
	await ask(user.email);
	const first = linkTo(user.email);
	await ask(user.email);
	const second = linkTo(user.email);
	expect(second).not.toBe(first);

	const answers = await Promise.all([setPassword(second, "racer-one-pass"), setPassword(second, "racer-two-pass")]);
	expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
	const winner = answers[0].status === 200 ? "racer-one-pass" : "racer-two-pass";
	expect(await passwordWorks(user, winner)).toBe(true);
	expect((await open(first)).status).toBe(404);
});

test("an address gets at most 2 reset emails an hour and 5 a day (Zulip's budget), shared by every request", async () => {
	startOfFreshDay();
	const user = await app.createUser({});
	const sends = await Promise.all([ask(user.email), ask(user.email), ask(user.email.toUpperCase())]);
	expect(sends.map((s) => s.status).sort()).toEqual([200, 200, 429]);
	const refused = sends.find((s) => s.status === 429)!;
	expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
	expect(emailsTo(user.email)).toHaveLength(2);

	// Each following hour gives two more, up to five in the day.
	clock.advance(3_600_000);
	expect([(await ask(user.email)).status, (await ask(user.email)).status]).toEqual([200, 200]);
	clock.advance(3_600_000);
	expect([(await ask(user.email)).status, (await ask(user.email)).status]).toEqual([200, 429]);
	expect(emailsTo(user.email)).toHaveLength(5);
	const json = await open("/accounts/password/reset/", { json: { email: user.email } });
	expect([json.status, json.body?.code]).toEqual([429, "RATE_LIMIT_HIT"]);

	// The next day, the budget is back.
	clock.advance(86_400_000);
	expect((await ask(user.email)).status).toBe(200);
	expect(emailsTo(user.email)).toHaveLength(6);
});

test("wrong link keys count against the address as on the sign-up pages: once spent, even a right link is 429", async () => {
	const guarded = await startTestApp({ signupKeyFailures: 3, signupKeyWindowSeconds: 600 });
	try {
		const base = new URL(guarded.baseUrl).origin;
		const user = await guarded.createUser({ password: "guarded-kept" });
		const post = (p: string, body: Record<string, string>) =>
			fetch(`${base}${p}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
		expect((await post("/accounts/password/reset/", { email: user.email })).status).toBe(200);
		const link = new URL(lastLinkTo(guarded.dataDir, user.email)).pathname;
		for (let i = 0; i < 3; i++) expect((await fetch(`${base}/accounts/password/reset/${"B".repeat(32)}`)).status).toBe(404);
		const right = await fetch(`${base}${link}`);
		expect([right.status, Number(right.headers.get("retry-after")) > 0]).toEqual([429, true]);
		expect((await post(link, { new_password1: "guessed-pass", new_password2: "guessed-pass" })).status).toBe(429);
		const anonGuarded = client(guarded.baseUrl);
		expect((await anonGuarded.post("/fetch_api_key", { username: user.email, password: "guarded-kept" })).status).toBe(200);
	} finally {
		await guarded.stop();
	}
});
