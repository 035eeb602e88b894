// Weekly digest emails (Zulip's zerver/lib/digest.py), to a real SMTP server in the test process:
// set up through the API (accounts, channels, messages, presence, the organization's settings),
// then a digest pass run by hand at a chosen time (the timer is off). An inactive member with
// digests on gets one digest with the hot conversation and the new channels (bots' messages not
// counted; for a guest, no channel that is not web-public; channels muted or joined in the period
// left out); an active member, one with the setting off, and everyone while the organization's digests are off or on another
// weekday get none; a second pass in the period sends nothing, and neither does a pass 11 hours
// later on another digest day; two replicas racing send one digest; nothing to say, no digest; the
// unsubscribe link turns enable_digest_emails off without logging in. PATCH /realm refuses bad
// digest settings and changes nothing.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { startSmtp, type Received, type TestSmtp } from "../support/smtp";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { clock } from "../../shared/clock";
import { notificationsService } from "../../services/notifications/notifications.service";
import { zulipWeekday, type DigestPassResult } from "../../services/notifications/digest/digest-pass";

jest.setTimeout(120_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let smtp: TestSmtp;
let app: TestApp;
let snaps: Snapshotter;
let owner: Client;
const as = (a: Account) => client(app.baseUrl, a);
const origin = () => app.baseUrl.replace(/\/api\/v1$/, "");
const unsubscribeHeader = (r: Received) => /^List-Unsubscribe:\s*<(\S+)>\r?$/im.exec(r.raw.split("\r\n\r\n")[0].replace(/\r\n[ \t]+/g, " "))?.[1];
/** A digest pass at `now`, then a sweep, which waits for the first attempts at the emails it stored. */
async function runDigests(now: number, service = "notifications"): Promise<DigestPassResult> {
	const pass = await app.node.broker.call<DigestPassResult, { now: number }>(`${service}.runDigests`, { now });
	await app.node.broker.call(`${service}.sweep`, {});
	return pass;
}
const digestsTo = (a: Account) => smtp.received.filter((r) => r.to.includes(a.email) && r.mail.subject?.startsWith("Zulip digest"));
const digestSetting = async (a: Account) => (await as(a).post("/register", { fetch_event_types: '["user_settings"]' })).body.user_settings.enable_digest_emails;

/** An account made through the API (POST /users), with its API key from POST /fetch_api_key. */
async function signUp(name: string): Promise<Account> {
	const email = `${name.toLowerCase().replace(/\W+/g, "-")}@example.com`;
	const made = await owner.post("/users", { email, password: "digest-password", full_name: name });
	expectSuccess(made);
	const key = await client(app.baseUrl).post("/fetch_api_key", { username: email, password: "digest-password" });
	expectSuccess(key);
	return { user_id: made.body.user_id, email, api_key: key.body.api_key };
}

let reader: Account;
let active: Account;
let settingOff: Account;
let lateReader: Account;
let alice: Account;
let bob: Account;
let carol: Account;
/** A guest (new channels: web-public ones only), one who joined #design in the period, one who muted it. */
let guest: Account;
let newcomer: Account;
let muter: Account;
/** When the period's messages are sent: 14:00 UTC, six days after the subscriptions. */
let sentAt: number;
/** The first digest pass: an hour later, on the organization's digest weekday. */
let passAt: number;

beforeAll(async () => {
	smtp = await startSmtp();
	app = await startTestApp({ smtpUrl: smtp.url, noreplyEmail: "noreply@mail.chat.test", emailSweepSeconds: 0, digestIntervalSeconds: 0 });
	snaps = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	await app.grant(app.owner, "can_create_users");
	[reader, active, settingOff, lateReader, alice, bob, carol, guest, newcomer, muter] = await Promise.all(
		["Digest Reader", "Active Member", "Setting Off", "Late Reader", "Alice Digest", "Bob Digest", "Carol Digest", "Guest Reader", "New Comer", "Design Muter"].map(signUp),
	);
	const bot = await owner.post("/bots", { full_name: "Digest Bot", short_name: "digest" });
	expectSuccess(bot);
	const digestBot: Account = { user_id: bot.body.user_id, email: "digest-bot@chat.test", api_key: bot.body.api_key };
	const everyone = [reader, active, settingOff, lateReader, alice, bob, carol, guest, muter, digestBot].map((a) => a.user_id);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "design" }, { name: "random" }], principals: everyone }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "random" }], principals: [newcomer.user_id] }));
	expectSuccess(await owner.patch(`/users/${guest.user_id}`, { role: 600 }));
	const design = (await owner.get("/get_stream_id", { stream: "design" })).body.stream_id;
	expectSuccess(await as(muter).post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: design, property: "is_muted", value: true }] }));
	expectSuccess(await as(settingOff).patch("/settings", { enable_digest_emails: false }));
	expectSuccess(await as(lateReader).patch("/settings", { enable_digest_emails: false }));

	// Six days on (the subscriptions are older than the period, as Zulip requires), at 14:00 UTC.
	const day = Math.floor(clock.nowMs() / DAY) * DAY;
	sentAt = day + 6 * DAY + 14 * HOUR;
	clock.advance(sentAt - clock.nowMs());
	passAt = sentAt + HOUR;
	const say = (a: Account, to: string, topic: string, content: string) => sendMessage(as(a), { type: "stream", to, topic, content });
	await say(alice, "design", "lunch plans", "Shall we try the **new** place?");
	await say(bob, "design", "lunch plans", "Yes, at noon: [menu](/user_uploads/2/ab/menu.pdf)");
	await say(alice, "design", "lunch plans", "Booked for six");
	await say(bob, "design", "lunch plans", "Great");
	await say(carol, "design", "lunch plans", "Count me in");
	// A bot's message counts for nothing (Zulip counts human messages and senders).
	await say(digestBot, "design", "lunch plans", "Reminder: lunch at noon");
	await say(alice, "random", "weather", "Sunny today");
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "design" }], principals: [newcomer.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "fresh-public" }] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "fresh-secret" }], invite_only: true }));
	expectSuccess(await as(active).post("/users/me/presence", { status: "active" }));
	expectSuccess(await owner.patch("/realm", { digest_emails_enabled: true, digest_weekday: zulipWeekday(passAt) }));
});

afterAll(async () => {
	clock.reset();
	await snaps?.close();
	await app?.stop();
	await smtp?.stop();
});

test("an inactive member gets one digest with the hot conversation and the new channels; an active member and one with digests off get none", async () => {
	const pass = await runDigests(passAt);
	expect(pass.period).toBe(new Date(passAt).toISOString().slice(0, 10));
	expect(pass.sent).toContain(reader.user_id);
	expect(pass.sent).not.toContain(active.user_id);
	expect(pass.sent).not.toContain(settingOff.user_id);

	const [digest] = digestsTo(reader);
	expect(digestsTo(reader)).toHaveLength(1);
	expect(digest.mail.subject).toBe("Zulip digest for Team chat");
	expect(digest.mail.from?.value).toEqual([{ name: "Team chat digest", address: "noreply@mail.chat.test" }]);
	expect(digest.raw).toMatch(/Content-Type: multipart\/alternative/);
	const text = digest.mail.text!;
	// The most diverse topic first, its first two messages, then the rest counted with its human senders.
	expect(text).toContain("#design > lunch plans\nShall we try the **new** place?\nYes, at noon: [menu](/user_uploads/2/ab/menu.pdf)\n\n+ 3 more messages by Alice Digest, Bob Digest and Carol Digest.");
	expect(text.indexOf("#design > lunch plans")).toBeLessThan(text.indexOf("#random > weather"));
	expect(text).toContain("#random > weather\nSunny today");
	expect(text).toContain("** New channels **\n    fresh-public.");
	expect(text).not.toContain("fresh-secret");
	expect(text).toContain("http://chat.test/#settings/notifications");
	const html = digest.mail.html as string;
	expect(html).toContain("<strong>new</strong>");
	// Links in messages are made absolute (Zulip's relative_to_full_url).
	expect(html).toContain('href="http://chat.test/user_uploads/2/ab/menu.pdf"');
	expect(html).toMatch(/href="http:\/\/chat\.test\/#narrow\/channel\/\d+-design\/topic\/lunch%20plans"/);
	expect(html).toMatch(/<a href="http:\/\/chat\.test\/#narrow\/channel\/\d+-fresh-public">fresh-public<\/a>/);
	expect(unsubscribeHeader(digest)).toMatch(/^http:\/\/chat\.test\/accounts\/unsubscribe\/digest\/\w{32}$/);
	expect(text).toContain(unsubscribeHeader(digest));

	expect(digestsTo(active)).toHaveLength(0);
	expect(digestsTo(settingOff)).toHaveLength(0);

	// A guest hears of the conversations in their channels, not of new channels that are not web-public.
	const [forGuest] = digestsTo(guest);
	expect(forGuest.mail.text).toContain("#design > lunch plans");
	expect(forGuest.mail.text).not.toContain("New channels");
	// A channel joined in the period, or muted, is left out (Zulip's get_user_stream_map).
	for (const a of [newcomer, muter]) {
		const [mail] = digestsTo(a);
		expect(mail.mail.text).toContain("#random > weather");
		expect(mail.mail.text).not.toContain("lunch plans");
	}
});

test("a second pass in the same period sends nothing; nor does one 11 hours later on a new digest day", async () => {
	const before = smtp.received.length;
	expect((await runDigests(passAt + 2 * HOUR)).sent).toEqual([]);
	// The organization moves its digest day to tomorrow: Zulip's 12-hour rule still holds.
	const tomorrow = passAt + 11 * HOUR;
	expectSuccess(await owner.patch("/realm", { digest_weekday: zulipWeekday(tomorrow) }));
	try {
		const early = await runDigests(tomorrow);
		expect(early.period).toBe(new Date(tomorrow).toISOString().slice(0, 10));
		expect(early.sent).toEqual([]);
	} finally {
		expectSuccess(await owner.patch("/realm", { digest_weekday: zulipWeekday(passAt) }));
	}
	expect(smtp.received.length).toBe(before);
});

test("no digest on another weekday or while the organization's digests are off", async () => {
	const before = smtp.received.length;
	expect(await runDigests(passAt + DAY)).toEqual({ period: null, sent: [] });
	expectSuccess(await as(lateReader).patch("/settings", { enable_digest_emails: true }));
	try {
		expectSuccess(await owner.patch("/realm", { digest_emails_enabled: false }));
		expect(await runDigests(passAt)).toEqual({ period: null, sent: [] });
	} finally {
		expectSuccess(await owner.patch("/realm", { digest_emails_enabled: true }));
	}
	expect(smtp.received.length).toBe(before);
});

test("two notifications replicas racing one pass send each digest once", async () => {
	// A second instance of the service on the same store and bus, with its own replica name.
	const second = app.node.broker.createService({ ...notificationsService(app.node.config), name: "notifications-second" });
	await app.node.broker.waitForServices("notifications-second");
	try {
		const passes = await Promise.all([runDigests(passAt), runDigests(passAt, "notifications-second"), runDigests(passAt), runDigests(passAt, "notifications-second")]);
		const sent = passes.flatMap((p) => p.sent);
		expect(sent.filter((id) => id === lateReader.user_id)).toHaveLength(1);
		expect(new Set(sent).size).toBe(sent.length);
		expect(digestsTo(lateReader)).toHaveLength(1);
		expect(digestsTo(reader)).toHaveLength(1);
	} finally {
		await app.node.broker.destroyService(second);
	}
});

test("the unsubscribe link turns digests off without logging in; a week later there is nothing to say", async () => {
	const [digest] = digestsTo(reader);
	const link = unsubscribeHeader(digest)!;
	expect(await digestSetting(reader)).toBe(true);
	const page = await fetch(`${origin()}${new URL(link).pathname}`);
	expect(page.status).toBe(200);
	expect(await page.text()).toContain("unsubscribed from digest emails");
	expect(await digestSetting(reader)).toBe(false);
	// The key opens only digests.
	const asLogin = await fetch(`${origin()}${new URL(link).pathname.replace("/digest/", "/login/")}`);
	expect(asLogin.status).toBe(404);

	// A week on, the organization's digest day again: the period's messages are older than the
	// cutoff and no channel is new, so nobody gets a digest.
	const before = smtp.received.length;
	const nextWeek = await runDigests(passAt + 7 * DAY);
	expect(nextWeek.period).not.toBeNull();
	expect(nextWeek.sent).toEqual([]);
	expect(smtp.received.length).toBe(before);
});

test("bad digest settings are refused and change nothing", async () => {
	const patch = (c: Client, params: Record<string, unknown>) => () => c.patch("/realm", params);
	for (const weekday of [7, -1]) await snaps.refused(patch(owner, { digest_weekday: weekday }), 400, "BAD_REQUEST", "Invalid digest_weekday");
	for (const weekday of ["monday", 1.5, "[1]", ""]) await snaps.refused(patch(owner, { digest_weekday: weekday }), 400, "BAD_REQUEST", "digest_weekday is not an integer");
	await snaps.refused(patch(owner, { digest_emails_enabled: "maybe" }), 400, "BAD_REQUEST", "digest_emails_enabled is not a boolean");
	await snaps.refused(patch(as(alice), { digest_emails_enabled: false }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	await snaps.refused(() => as(alice).patch("/settings", { enable_digest_emails: "sometimes" }), 400, "BAD_REQUEST", "enable_digest_emails is not a boolean");

	// A good change reaches POST /register.
	expectSuccess(await owner.patch("/realm", { digest_weekday: 4 }));
	const state = (await owner.post("/register", { fetch_event_types: '["realm"]' })).body;
	expect(state).toMatchObject({ realm_digest_weekday: 4, realm_digest_emails_enabled: true });
});
