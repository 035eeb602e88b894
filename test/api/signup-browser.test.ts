// The sign-up page in a real browser: Debian's Chromium, headless, driven by playwright-core (which
// downloads no browser). An invitation's emailed link opens the HTML form; a refused password shows
// the error with the name kept; the right one creates the account, which then logs in through the
// API with the password set in the form (POST /fetch_api_key) and uses its API key. The page works
// under its Content-Security-Policy (its style applies, no violation is reported), and another
// site can neither post the form (403, no account) nor frame it.
// Chromium resolves chat.test (the organization's EXTERNAL_URL) to the test gateway, so the pages
// are opened at the origin their links name, as a real browser would.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { lastLinkTo } from "../support/emails";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectError, expectSuccess } from "../support/http";

const CHROMIUM = "/usr/bin/chromium";

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
	// Installed by the test prerequisites when missing (Debian package; needs root).
	if (!fs.existsSync(CHROMIUM)) execFileSync("bash", [path.join(__dirname, "../support/prerequisites.sh")], { stdio: "inherit" });
	app = await startTestApp();
	// --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start.
	const port = new URL(app.baseUrl).port;
	browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", `--host-resolver-rules=MAP chat.test 127.0.0.1:${port}`] });
});

afterAll(async () => {
	await browser?.close();
	await app?.stop();
});

/** The sign-up link of the email sent to `to`. */
const linkFor = (to: string) => lastLinkTo(app.dataDir, to);

/** A new page, and the Content-Security-Policy violations Chromium reports on its console. */
async function pageWithViolations(): Promise<{ page: Page; violations: string[] }> {
	const page = await browser.newPage();
	const violations: string[] = [];
	// Each document reports its own violations on the console (the script is the browser's, run
	// outside the page's policy).
	await page.addInitScript({
		content: `document.addEventListener("securitypolicyviolation", (e) => console.error("Content Security Policy violation: " + e.violatedDirective + " " + e.blockedURI));`,
	});
	page.on("console", (m) => {
		if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
	});
	return { page, violations };
}

test("filling in the emailed form creates an account that logs in through the API", async () => {
	const owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
	const general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	expectSuccess(await owner.post("/invites", { invitee_emails: "browser@example.com", stream_ids: [general] }));
	const url = linkFor("browser@example.com");

	const { page, violations } = await pageWithViolations();
	const opened = await page.goto(url);
	expect(opened!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
	expect(await page.textContent("body")).toContain("browser@example.com");

	// A password the server refuses: the page says why and keeps the name.
	await page.fill("#full_name", "Bro' & <Ser");
	await page.fill("#password", "123");
	await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")]);
	expect(await page.textContent("[role=alert]")).toBe("The password is too weak.");
	// The inline stylesheet applies under the policy (allowed by its hash).
	expect(await page.$eval("[role=alert]", (e) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e).color)).toBe("rgb(187, 0, 0)");
	expect(await page.inputValue("#full_name")).toBe("Bro' & <Ser");

	await page.fill("#full_name", "Brow Ser");
	await page.fill("#password", "a-good-password");
	await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")]);
	expect(await page.textContent("h1")).toBe("Account created");
	await page.close();
	expect(violations).toEqual([]);

	const login = await client(app.baseUrl, null).post("/fetch_api_key", { username: "browser@example.com", password: "a-good-password" });
	expectSuccess(login);
	const user = client(app.baseUrl, { email: "browser@example.com", api_key: login.body.api_key });
	const me = await user.get("/users/me");
	expectSuccess(me);
	expect(me.body).toMatchObject({ full_name: "Brow Ser", delivery_email: "browser@example.com", role: 400 });
	expect((await user.get("/users/me/subscriptions")).body.subscriptions.map((s: { name: string }) => s.name)).toEqual(["general"]);
});

test("another site can neither post the form nor frame it", async () => {
	const owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.post("/invites", { invitee_emails: "victim@example.com", stream_ids: [] }));
	const url = linkFor("victim@example.com");
	// A page of another site, served by the browser itself: a copy of the form posting to the link,
	// and the link in a frame.
	const { page, violations } = await pageWithViolations();
	await page.route("http://evil.example/**", (route) =>
		route.fulfill({
			contentType: "text/html",
			body: `<!doctype html><form method="post" action="${url}"><input name="full_name" value="Mallory"><input name="password" value="a-good-password"><button type="submit">Go</button></form><iframe src="${url}"></iframe>`,
		}),
	);
	await page.goto("http://evil.example/");
	// Chromium refuses to show the page in the frame (an error page stands in for it).
	expect(page.frames()[1].url()).toMatch(/^chrome-error:/);
	expect(await page.frames()[1].$("#full_name")).toBeNull();

	const [answer] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
	expect(answer!.status()).toBe(403);
	expect(await page.textContent("h1")).toBe("Forbidden");
	await page.close();
	expect(violations).toEqual([]);
	const users = (await owner.get("/users")).body.members as Array<{ delivery_email: string }>;
	expect(users.map((u) => u.delivery_email)).not.toContain("victim@example.com");
	expectError(await client(app.baseUrl, null).post("/fetch_api_key", { username: "victim@example.com", password: "a-good-password" }), 401, "AUTHENTICATION_FAILED");
});
