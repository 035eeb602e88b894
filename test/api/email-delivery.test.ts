// Email over SMTP, to a real SMTP server in the test process (test/support/smtp.ts): invitations,
// the new account's details, password resets and email changes arrive there as multipart text and
// HTML from the organization's name and NOREPLY_EMAIL, and their links work; a refused message is
// retried, then kept as a dead letter that `npm run manage -- email-dead-letters` lists; a
// password login gets the new-login email, whose unsubscribe link turns enable_login_emails off
// without credentials; an email asked for twice with one key is sent once; and two notifications
// replicas sweeping the same outbox send each email once.
import { ServiceBroker } from "moleculer";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";
import { startSmtp, type Received, type TestSmtp } from "../support/smtp";
import { manage } from "../support/manage";
import { clock } from "../../shared/clock";
import { notificationsService } from "../../services/notifications/notifications.service";
import type { EmailRequest } from "../../shared/email";
import { connectServiceDb } from "../../shared/db";
import { outboxEmailModel } from "../../services/notifications/models/outbox-email";
import { CLAIM_TIMEOUT_MS } from "../../services/notifications/outbox/delivery";

jest.setTimeout(120_000);

const MAX_ATTEMPTS = 3;
let smtp: TestSmtp;
let app: TestApp;
let owner: Client;
const origin = () => app.baseUrl.replace(/\/api\/v1$/, "");
/** A link to the organization (http://chat.test) opened on the test gateway. */
const onGateway = (link: string) => `${origin()}${new URL(link).pathname}`;
const linkIn = (r: Received) => /(http:\/\/chat\.test\/[^\s>]+)/.exec(r.mail.text ?? "")?.[1] ?? null;
/** The List-Unsubscribe header's link. */
const unsubscribeHeader = (r: Received) => /^List-Unsubscribe:\s*<(\S+)>\r?$/im.exec(r.raw.split("\r\n\r\n")[0].replace(/\r\n[ \t]+/g, " "))?.[1];
const sweep = (replica?: string, broker = app.node.broker) => broker.call<Record<string, string[]>, { replica?: string }>("notifications.sweep", replica ? { replica } : {});

beforeAll(async () => {
	smtp = await startSmtp();
	// No sweep timer: the tests sweep when they mean to; failed attempts are due again at once.
	app = await startTestApp({ smtpUrl: smtp.url, noreplyEmail: "noreply@mail.chat.test", emailMaxAttempts: MAX_ATTEMPTS, emailRetrySeconds: 0, emailSweepSeconds: 0 });
	owner = client(app.baseUrl, app.owner);
});

afterAll(async () => {
	clock.reset();
	await app?.stop();
	await smtp?.stop();
});

/** Checks what every email of the server has: both parts, the sender, a stable Message-ID. */
function expectWellFormed(r: Received, subject: string) {
	expect(r.mail.subject).toBe(subject);
	expect(r.mail.from?.value).toEqual([{ name: expect.any(String), address: "noreply@mail.chat.test" }]);
	expect(r.mail.text).toBeTruthy();
	expect(r.mail.html).toBeTruthy();
	expect(r.raw).toMatch(/Content-Type: multipart\/alternative/);
	expect(r.mail.messageId).toMatch(/^<[0-9a-f]{32}@mail\.chat\.test>$/);
}

test("an invitation arrives over SMTP; its link makes the account, whose details arrive with an unsubscribe link", async () => {
	expectSuccess(await owner.post("/invites", { invitee_emails: "smtp-invitee@example.com", stream_ids: "[]" }));
	const [invitation] = await smtp.waitFor("smtp-invitee@example.com");
	expectWellFormed(invitation, "Organization owner has invited you to join Team chat");
	expect(invitation.mail.from?.value[0].name).toBe("Team chat");
	expect(invitation.mail.text).toContain("Organization owner (owner@chat.test) wants you to join them in Team chat");
	const link = linkIn(invitation)!;
	expect(link).toMatch(/^http:\/\/chat\.test\/accounts\/do_confirm\/\w+$/);
	expect(invitation.mail.html).toContain(`href="${link}"`);

	const res = await fetch(onGateway(link), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ full_name: "Smtp Person", password: "smtp-person-pw" }) });
	expect(res.status).toBe(200);
	const key = await client(app.baseUrl).post("/fetch_api_key", { username: "smtp-invitee@example.com", password: "smtp-person-pw" });
	expectSuccess(key);

	const [welcome] = await smtp.waitFor("smtp-invitee@example.com", 2).then((all) => all.slice(1));
	expectWellFormed(welcome, "Team chat on Zulip: Your new account details");
	expect(welcome.mail.text).toContain("Your account email: smtp-invitee@example.com");
	expect(welcome.mail.text).toContain("Organization URL: http://chat.test");
	expect(unsubscribeHeader(welcome)).toMatch(/^http:\/\/chat\.test\/accounts\/unsubscribe\/welcome\/\w{32}$/);
	// The login right after sign-up sends no new-login email (Zulip's JUST_CREATED_THRESHOLD).
	await sweep();
	expect(smtp.received.filter((r) => r.to.includes("smtp-invitee@example.com"))).toHaveLength(2);
});

test("a password reset and an email change arrive", async () => {
	const user = await app.createUser({});
	const reset = await fetch(`${origin()}/accounts/password/reset/`, { method: "POST", headers: { "Content-Type": "application/json", Origin: "http://chat.test" }, body: JSON.stringify({ email: user.email }) });
	expect(reset.status).toBe(200);
	const [resetMail] = await smtp.waitFor(user.email);
	expectWellFormed(resetMail, "Password reset request for Team chat");
	expect(linkIn(resetMail)).toMatch(/^http:\/\/chat\.test\/accounts\/password\/reset\/[A-Za-z0-9]{32}$/);

	expectSuccess(await client(app.baseUrl, user).patch("/settings", { email: "smtp-changed@example.com" }));
	const [change] = await smtp.waitFor("smtp-changed@example.com");
	expectWellFormed(change, "Verify your new email address for chat.test");
	expect(change.mail.text).toContain(`from ${user.email} to smtp-changed@example.com`);
	const confirm = await fetch(onGateway(linkIn(change)!));
	expect(confirm.status).toBe(200);
	expect((await client(app.baseUrl, { email: "smtp-changed@example.com", api_key: user.api_key }).get("/users/me")).body.delivery_email).toBe("smtp-changed@example.com");
});

test("a refused email is retried, then kept as a dead letter that the command lists", async () => {
	smtp.refusing = true;
	try {
		expectSuccess(await owner.post("/invites", { invitee_emails: "refused@example.com", stream_ids: "[]" }));
		// The first attempt ran off the request; each sweep makes one more, until the last.
		const outcomes: Array<Record<string, string[]>> = [];
		for (let i = 1; i < MAX_ATTEMPTS; i++) outcomes.push(await sweep());
		expect(outcomes.at(-1)!.dead).toHaveLength(1);
		expect(smtp.refused).toHaveLength(MAX_ATTEMPTS);
		expect(new Set(smtp.refused).size).toBe(1); // one Message-ID on every attempt
		// Nothing is due any more.
		expect(await sweep()).toEqual({ sent: [], retrying: [], dead: [] });
	} finally {
		smtp.refusing = false;
	}
	expect(smtp.received.filter((r) => r.to.includes("refused@example.com"))).toHaveLength(0);

	const { config } = app.node;
	const run = await manage({ MONGO_URL: config.mongoUrl, DB_PREFIX: config.dbPrefix, TRANSPORTER: "", SERVICES: "" }, ["email-dead-letters", "--json"]);
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
	const letters = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
	expect(letters).toEqual([
		expect.objectContaining({ kind: "invitation", to: "refused@example.com", attempts: MAX_ATTEMPTS, last_error: expect.stringContaining("451") }),
	]);
	const text = await manage({ MONGO_URL: config.mongoUrl, DB_PREFIX: config.dbPrefix, TRANSPORTER: "", SERVICES: "" }, ["email-dead-letters"]);
	expect(text.stdout).toContain("to refused@example.com");
	const bad = await manage({ MONGO_URL: config.mongoUrl, DB_PREFIX: config.dbPrefix }, ["email-dead-letters", "--limit", "none"]);
	expect(bad.code).toBe(2);
});

describe("new-login emails", () => {
	let user: Account;
	const login = (password = "password123") =>
		fetch(`${app.baseUrl}/fetch_api_key`, {
			method: "POST",
			headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" },
			body: new URLSearchParams({ username: user.email, password }).toString(),
		});
	const loginEmailsSetting = async () => (await client(app.baseUrl, user).post("/register", { fetch_event_types: '["user_settings"]' })).body.user_settings.enable_login_emails;

	beforeAll(async () => {
		user = await app.createUser({});
		// Older than Zulip's JUST_CREATED_THRESHOLD (a minute), so a login is news.
		clock.advance(61_000);
	});

	test("a password login is told; the unsubscribe link turns login emails off without credentials", async () => {
		expect((await login()).status).toBe(200);
		const [notice] = await smtp.waitFor(user.email);
		expectWellFormed(notice, "New login from Firefox on Linux");
		expect(notice.mail.from?.value[0].name).toBe("Team chat account security");
		expect(notice.mail.text).toContain(`Account: ${user.email}`);
		expect(notice.mail.text).toContain("IP address: 127.0.0.1");
		const unsubscribe = unsubscribeHeader(notice)!;
		expect(unsubscribe).toMatch(/^http:\/\/chat\.test\/accounts\/unsubscribe\/login\/\w{32}$/);
		expect(notice.mail.text).toContain(unsubscribe);
		expect(await loginEmailsSetting()).toBe(true);

		// Wrong links change nothing: unknown key, the key under another type, a malformed one.
		const key = unsubscribe.split("/").at(-1)!;
		const wrong = [
			`/accounts/unsubscribe/login/${"x".repeat(32)}`,
			`/accounts/unsubscribe/welcome/${key}`,
			`/accounts/unsubscribe/digest/${key}`,
			`/accounts/unsubscribe/__proto__/${key}`,
			"/accounts/unsubscribe/login/short",
			`/accounts/unsubscribe/login/${key}${"a".repeat(500)}`,
			`/accounts/unsubscribe/login/${key.slice(0, 31)}%00`,
		];
		for (const path of wrong) {
			const res = await fetch(`${origin()}${path}`);
			expect(res.status).toBe(404);
			expect(await res.text()).toContain("Unknown email unsubscribe request");
		}
		expect(await loginEmailsSetting()).toBe(true);
		// Only GET opens it.
		expect((await fetch(onGateway(unsubscribe), { method: "POST" })).status).toBe(404);
		expect(await loginEmailsSetting()).toBe(true);

		const page = await fetch(onGateway(unsubscribe));
		expect(page.status).toBe(200);
		expect(await page.text()).toContain("unsubscribed from login emails");
		expect(await loginEmailsSetting()).toBe(false);
		// Opened again: still off, still a success.
		expect((await fetch(onGateway(unsubscribe))).status).toBe(200);

		// The next login is not told (nothing stored: the gateway waited for the decision).
		expect((await login()).status).toBe(200);
		await sweep();
		expect(smtp.received.filter((r) => r.to.includes(user.email))).toHaveLength(1);
	});

	test("a failed login sends nothing", async () => {
		expectSuccess(await client(app.baseUrl, user).patch("/settings", { enable_login_emails: true }));
		const before = smtp.received.length;
		expect((await login("wrong-password")).status).toBe(401);
		await sweep();
		expect(smtp.received.length).toBe(before);
	});
});

test("an email asked for twice with one key is stored and sent once", async () => {
	const email: EmailRequest = {
		template: "password_reset_no_account",
		to: "twice@example.com",
		idempotency_key: "test:twice",
		context: { realm_name: "Team chat", realm_url: "http://chat.test", email: "twice@example.com", deactivated: false },
	};
	const [a, b] = await Promise.all([app.node.broker.call("notifications.sendEmail", email), app.node.broker.call("notifications.sendEmail", email)]);
	expect([a, b]).toEqual(expect.arrayContaining([{ stored: true }, { stored: false }]));
	await smtp.waitFor("twice@example.com");
	await sweep();
	expect(smtp.received.filter((r) => r.to.includes("twice@example.com"))).toHaveLength(1);
});

test("two notifications replicas on one outbox send each email once", async () => {
	// A second replica: its own broker and service instance, on the same database.
	const second = new ServiceBroker({ nodeID: "second-notifications", logger: false, transporter: undefined });
	second.createService(notificationsService(app.node.config));
	await second.start();
	try {
		const to = (i: number) => `replica${i}@example.com`;
		const emails = Array.from({ length: 12 }, (_, i): EmailRequest => ({
			template: "password_reset_no_account",
			to: to(i),
			idempotency_key: `test:replicas:${i}`,
			context: { realm_name: "Team chat", realm_url: "http://chat.test", email: to(i), deactivated: false },
		}));
		// Stored while the server refuses, so all are due again when both replicas sweep at once.
		smtp.refusing = true;
		await Promise.all(emails.map((e, i) => (i % 2 ? second : app.node.broker).call("notifications.sendEmail", e)));
		await Promise.all([sweep(undefined, second), sweep()]);
		smtp.refusing = false;
		// With no delay between attempts (this app's setting), the two sweeps may each have tried an
		// email again: every one starts the race below from one attempt, whatever happened here.
		const { config } = app.node;
		const conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "notifications");
		try {
			const keys = emails.map((e) => e.idempotency_key);
			await outboxEmailModel(conn).updateMany({ _id: { $in: keys } }, { $set: { state: "queued", attempts: 1, next_attempt_at: 0, claimed_by: null, claimed_at: null, failed_at: null } });
		} finally {
			await conn.close();
		}
		const results = await Promise.all([sweep("a"), sweep("b", second), sweep("c"), sweep("d", second)]);
		const sent = results.flatMap((r) => r.sent);
		expect(sent.sort()).toEqual(emails.map((e) => e.idempotency_key).sort());
		for (let i = 0; i < emails.length; i++) expect(smtp.received.filter((r) => r.to.includes(to(i)))).toHaveLength(1);
	} finally {
		smtp.refusing = false;
		await second.stop();
	}
});

test("a claim whose replica died is taken again after the claim timeout, and sent with the same Message-ID", async () => {
	const { config } = app.node;
	// The outbox as a replica that dies mid-send leaves it (written directly: no action crashes on purpose).
	const conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "notifications");
	try {
		const Outbox = outboxEmailModel(conn);
		const key = "test:orphaned";
		smtp.refusing = true;
		await app.node.broker.call("notifications.sendEmail", {
			template: "password_reset_no_account",
			to: "orphaned@example.com",
			idempotency_key: key,
			context: { realm_name: "Team chat", realm_url: "http://chat.test", email: "orphaned@example.com", deactivated: false },
		} satisfies EmailRequest);
		await sweep(); // waits for the first attempt, refused; the sweep's attempt is refused too
		smtp.refusing = false;
		expect(smtp.refused.filter((id) => id === smtp.refused.at(-1))).toHaveLength(2);
		const claimed = await Outbox.updateOne({ _id: key, state: "queued" }, { $set: { state: "sending", claimed_by: "dead-replica", claimed_at: clock.nowMs() }, $inc: { attempts: 1 } });
		expect(claimed.modifiedCount).toBe(1);

		// A live claim is never taken.
		expect(await sweep()).toEqual({ sent: [], retrying: [], dead: [] });
		clock.advance(CLAIM_TIMEOUT_MS + 1000);
		expect((await sweep()).sent).toEqual([key]);
		const [mail] = await smtp.waitFor("orphaned@example.com");
		expect(mail.mail.messageId).toBe(smtp.refused.at(-1));
		// The lost attempt counted; taking the claim back is one more.
		expect(await Outbox.findById(key).lean()).toMatchObject({ state: "sent", attempts: MAX_ATTEMPTS + 1, text: "", html: "" });
	} finally {
		smtp.refusing = false;
		await conn.close();
	}
});
