// The sign-up page in a real browser: Debian's Chromium, headless, driven by playwright-core (which
// downloads no browser). An invitation's emailed link opens the HTML form; a refused password shows
// the error with the name kept; the right one creates the account, which then logs in through the
// API with the password set in the form (POST /fetch_api_key) and uses its API key.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectSuccess } from "../support/http";

const CHROMIUM = "/usr/bin/chromium";

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
	// Installed by the test prerequisites when missing (Debian package; needs root).
	if (!fs.existsSync(CHROMIUM)) execFileSync("bash", [path.join(__dirname, "../support/prerequisites.sh")], { stdio: "inherit" });
	app = await startTestApp();
	// --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start.
	browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
});

afterAll(async () => {
	await browser?.close();
	await app?.stop();
});

/** The sign-up link of the email sent to `to`. */
function linkFor(to: string): string {
	const dir = path.join(app.dataDir, "emails");
	for (const f of fs.readdirSync(dir)) {
		const text = fs.readFileSync(path.join(dir, f), "utf8");
		if (text.includes(`To: ${to}\r\n`)) return /(http:\/\/chat\.test\/\S+)/.exec(text)![1];
	}
	throw new Error(`no email to ${to}`);
}

test("filling in the emailed form creates an account that logs in through the API", async () => {
	const owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
	const general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	expectSuccess(await owner.post("/invites", { invitee_emails: "browser@example.com", stream_ids: [general] }));
	const url = `${app.baseUrl.replace(/\/api\/v1$/, "")}${new URL(linkFor("browser@example.com")).pathname}`;

	const page = await browser.newPage();
	await page.goto(url);
	expect(await page.textContent("body")).toContain("browser@example.com");

	// A password the server refuses: the page says why and keeps the name.
	await page.fill("#full_name", "Bro' & <Ser");
	await page.fill("#password", "123");
	await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")]);
	expect(await page.textContent("[role=alert]")).toBe("The password is too weak.");
	expect(await page.inputValue("#full_name")).toBe("Bro' & <Ser");

	await page.fill("#full_name", "Brow Ser");
	await page.fill("#password", "a-good-password");
	await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")]);
	expect(await page.textContent("h1")).toBe("Account created");
	await page.close();

	const login = await client(app.baseUrl, null).post("/fetch_api_key", { username: "browser@example.com", password: "a-good-password" });
	expectSuccess(login);
	const user = client(app.baseUrl, { email: "browser@example.com", api_key: login.body.api_key });
	const me = await user.get("/users/me");
	expectSuccess(me);
	expect(me.body).toMatchObject({ full_name: "Brow Ser", delivery_email: "browser@example.com", role: 400 });
	expect((await user.get("/users/me/subscriptions")).body.subscriptions.map((s: { name: string }) => s.name)).toEqual(["general"]);
});
