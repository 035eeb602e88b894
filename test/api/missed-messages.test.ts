// Missed-message emails, as Zulip decides and batches them, through HTTP and a real SMTP server in
// the test process: a mention of an idle member arrives once, after their batching period (the
// tests move the clock and sweep by hand), one email per conversation; nothing for a member
// active on presence, with enable_offline_email_notifications off, for a message read or deleted
// before the batch, or from a muted topic; direct messages, group DMs and a channel's email
// setting trigger too; two notifications replicas send each batch once; the unsubscribe link
// turns the setting off; the batching period's bad values are refused as Zulip refuses them. An
// edit that newly mentions an idle member notifies them once (Zulip's process_message_update_event);
// a channel topic's email quotes the topic's earlier messages as context.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { startSmtp, type Received, type TestSmtp } from "../support/smtp";
import { clock } from "../../shared/clock";
import { startNode } from "../../services";
import { eventually } from "../support/eventually";

jest.setTimeout(120_000);

let smtp: TestSmtp;
let app: TestApp;
let owner: Client;
const CHANNEL = "missed";
const PERIOD_MS = 120_000;

interface Person extends Account {
	full_name: string;
	c: Client;
}

let sender: Person;
let n = 0;

async function person(name?: string): Promise<Person> {
	const full_name = name ?? `Away Person ${++n}`;
	const a = await app.createUser({ full_name });
	const c = client(app.baseUrl, a);
	expectSuccess(await c.post("/users/me/subscriptions", { subscriptions: [{ name: CHANNEL }] }));
	return { ...a, full_name, c };
}

type Swept = { stored: string[]; empty: string[] };
const missedSweep = (replica?: string, broker = app.node.broker) => broker.call<Swept, { replica?: string }>("notifications.missedSweep", replica ? { replica } : {});
/** Past everyone's batch time, then a sweep. */
async function afterPeriod(ms = PERIOD_MS + 1000): Promise<Swept> {
	await missedSweep(); // the notices of the last request are stored before time moves
	clock.advance(ms);
	return missedSweep();
}
const mailTo = (p: { email: string }) => smtp.received.filter((r) => r.to.includes(p.email));
const mention = (p: Person, topic = "news", text = "have a look") => sendMessage(sender.c, { type: "stream", to: CHANNEL, topic, content: `@**${p.full_name}** ${text}` });
const header = (r: Received, name: string) => new RegExp(`^${name}:\\s*(.+?)\\r?$`, "im").exec(r.raw.split("\r\n\r\n")[0].replace(/\r\n[ \t]+/g, " "))?.[1];
const origin = () => app.baseUrl.replace(/\/api\/v1$/, "");
const onGateway = (link: string) => `${origin()}${new URL(link).pathname}`;
const setting = async (p: Person, name: string) => (await p.c.post("/register", { fetch_event_types: ["user_settings"] })).body.user_settings[name];

beforeAll(async () => {
	smtp = await startSmtp();
	app = await startTestApp({ smtpUrl: smtp.url, noreplyEmail: "noreply@mail.chat.test", emailRetrySeconds: 0, emailSweepSeconds: 0, transporter: "Fake" });
	owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: CHANNEL }] }));
	sender = await person("Busy Sender");
});

afterAll(async () => {
	clock.reset();
	await app?.stop();
	await smtp?.stop();
});

describe("a mention of an idle member", () => {
	test("arrives once, after the batching period, one email per conversation, from the organization with Zulip's wording", async () => {
		const away = await person();
		await mention(away, "news", "first");
		await mention(away, "news", "second");
		await mention(away, "other topic");
		// Not yet: the batch waits for the period.
		expect((await missedSweep()).stored).toEqual([]);
		clock.advance(PERIOD_MS / 2);
		expect((await missedSweep()).stored).toEqual([]);
		clock.advance(PERIOD_MS / 2 + 1000);
		expect((await missedSweep()).stored).toHaveLength(2);
		const mails = await smtp.waitFor(away.email, 2);
		const news = mails.find((m) => m.mail.subject === `#${CHANNEL} > news`)!;
		expect(news).toBeDefined();
		expect(mails.map((m) => m.mail.subject).sort()).toEqual([`#${CHANNEL} > news`, `#${CHANNEL} > other topic`]);
		expect(news.mail.from?.value).toEqual([{ name: "Team chat notifications", address: "noreply@mail.chat.test" }]);
		expect(header(news, "Reply-To")).toBe("noreply@mail.chat.test");
		expect(news.mail.text).toContain(`Busy Sender:\n> @**${away.full_name}** first\n> @**${away.full_name}** second`);
		expect(news.mail.text).toContain("You are receiving this because you were personally mentioned.");
		expect(news.mail.text).toMatch(new RegExp(`http://chat\\.test/#narrow/channel/\\d+-${CHANNEL}/topic/news/near/\\d+`));
		expect(news.mail.html).toContain("first");
		expect(header(news, "List-Unsubscribe")).toMatch(/^<http:\/\/chat\.test\/accounts\/unsubscribe\/missed_messages\/\w{32}>$/);
		// Nothing more, however often swept.
		await afterPeriod();
		expect(mailTo(away)).toHaveLength(2);
	});

	test("a group mention names the group, unless the user was also mentioned by name", async () => {
		const [inGroup, both] = [await person(), await person()];
		expectSuccess(await owner.post("/user_groups/create", { name: "oncall", description: "on call", members: JSON.stringify([inGroup.user_id, both.user_id]) }));
		await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "pager", content: "@*oncall* the pager went off" });
		await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "pager", content: `@**${both.full_name}** you especially` });
		await afterPeriod();
		const [group] = await smtp.waitFor(inGroup.email);
		expect(group.mail.text).toContain("You are receiving this because @oncall was mentioned.");
		const [named] = await smtp.waitFor(both.email);
		expect(named.mail.text).toContain("You are receiving this because you were personally mentioned.");
	});

	test("the batch time is the first notice's; the user's period sets it", async () => {
		const away = await person();
		expectSuccess(await away.c.patch("/settings", { email_notifications_batching_period_seconds: 600 }));
		await mention(away, "slow", "one");
		await missedSweep();
		clock.advance(300_000);
		await mention(away, "slow", "two");
		expect((await afterPeriod(PERIOD_MS + 1000)).stored).toEqual([]);
		// 600 s after the first: both in one email.
		clock.advance(180_000);
		expect((await missedSweep()).stored).toHaveLength(1);
		const [mail] = await smtp.waitFor(away.email);
		expect(mail.mail.text).toContain(`> @**${away.full_name}** one\n> @**${away.full_name}** two`);
	});

	test("hides content when the user or the organization says so, and names the organization where the user asks", async () => {
		const away = await person();
		expectSuccess(await away.c.patch("/settings", { message_content_in_email_notifications: false, realm_name_in_email_notifications_policy: 2 }));
		await mention(away, "secret", "the code is 1234");
		await afterPeriod();
		const [mail] = await smtp.waitFor(away.email);
		expect(mail.mail.subject).toBe("New messages [Team chat]");
		expect(mail.mail.text).not.toContain("1234");
		expect(mail.mail.text).toContain("because you have chosen to hide message content");
	});
});

describe("no email", () => {
	test("for a member active on presence", async () => {
		const here = await person();
		expectSuccess(await here.c.post("/users/me/presence", { status: "active" }));
		await mention(here);
		await afterPeriod();
		expect(mailTo(here)).toEqual([]);
	});

	test("with enable_offline_email_notifications off", async () => {
		const off = await person();
		expectSuccess(await off.c.patch("/settings", { enable_offline_email_notifications: false }));
		await mention(off);
		await sendMessage(sender.c, { type: "private", to: JSON.stringify([off.user_id]), content: "psst" });
		await afterPeriod();
		expect(mailTo(off)).toEqual([]);
	});

	test("for a message read, or deleted, before the batch goes", async () => {
		const reader = await person();
		const read = await mention(reader, "read it");
		const deleted = await mention(reader, "deleted");
		expectSuccess(await reader.c.post("/messages/flags", { messages: JSON.stringify([read]), op: "add", flag: "read" }));
		expectSuccess(await owner.delete(`/messages/${deleted}`));
		const swept = await afterPeriod();
		expect(swept.empty).toEqual([expect.stringMatching(new RegExp(`^missed-message:${reader.user_id}:`))]);
		expect(mailTo(reader)).toEqual([]);
	});

	test("for the member who read a message, while another mentioned with them gets it in the same sweep", async () => {
		const reader = await person();
		const other = await person();
		const both = await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "shared", content: `@**${reader.full_name}** @**${other.full_name}** both of you` });
		expectSuccess(await reader.c.post("/messages/flags", { messages: JSON.stringify([both]), op: "add", flag: "read" }));
		const swept = await afterPeriod();
		expect(swept.empty).toContainEqual(expect.stringMatching(new RegExp(`^missed-message:${reader.user_id}:`)));
		expect(swept.stored.filter((k) => k.startsWith(`missed-message:${other.user_id}:`))).toHaveLength(1);
		expect(mailTo(reader)).toEqual([]);
		const [mail] = await smtp.waitFor(other.email, 1);
		expect(mail.raw).toContain("both of you");
	});

	test("for the sender, a bot, a muted sender, a muted topic, or a wildcard mention with wildcard_mentions_notify off", async () => {
		const muter = await person();
		expectSuccess(await muter.c.post(`/users/me/muted_users/${sender.user_id}`));
		const topicMuter = await person();
		expectSuccess(await topicMuter.c.post("/user_topics", { stream_id: await channelId(), topic: "muted here", visibility_policy: 1 }));
		expectSuccess(await topicMuter.c.post("/users/me/subscriptions/properties", { subscription_data: JSON.stringify([{ stream_id: await channelId(), property: "email_notifications", value: true }]) }));
		const noWildcards = await person();
		expectSuccess(await noWildcards.c.patch("/settings", { wildcard_mentions_notify: false }));
		const control = await person();
		const bot = await app.createUser({ is_bot: true, bot_owner_id: sender.user_id, full_name: "Quiet Bot" });
		await sendMessage(sender.c, { type: "private", to: JSON.stringify([bot.user_id]), content: "bots hear nothing by email" });
		await mention(muter, "muted here");
		await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "muted here", content: "@**all** and nothing for the topic muter" });
		await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "muted here", content: `@**${sender.full_name}** talking to myself` });
		await afterPeriod();
		for (const p of [muter, topicMuter, noWildcards, sender, bot]) expect(mailTo(p)).toEqual([]);
		// The wildcard mention reaches one who has nothing muted.
		const [wildcard] = await smtp.waitFor(control.email);
		expect(wildcard.mail.text).toContain(`You are receiving this because everyone was mentioned in #${CHANNEL}.`);
	});
});

let channel: number | undefined;
async function channelId(): Promise<number> {
	channel ??= (await owner.get("/get_stream_id", { stream: CHANNEL })).body.stream_id as number;
	return channel!;
}

describe("other triggers", () => {
	test("a direct message and a group direct message, with Zulip's subjects", async () => {
		const [a, b] = [await person("Dee Recipient"), await person("Gee Recipient")];
		await sendMessage(sender.c, { type: "private", to: JSON.stringify([a.user_id]), content: "just you" });
		await sendMessage(sender.c, { type: "private", to: JSON.stringify([a.user_id, b.user_id]), content: "the three of us" });
		await afterPeriod();
		const mails = await smtp.waitFor(a.email, 2);
		expect(mails.map((m) => m.mail.subject).sort()).toEqual(["DMs with Busy Sender", "Group DMs with Busy Sender and Gee Recipient"]);
		const [group] = await smtp.waitFor(b.email);
		expect(group.mail.subject).toBe("Group DMs with Busy Sender and Dee Recipient");
		expect(group.mail.text).toContain("> the three of us");
	});

	test("a channel with email notifications on, unless the topic is muted; a followed topic", async () => {
		const watcher = await person();
		const follower = await person();
		expectSuccess(await watcher.c.post("/users/me/subscriptions/properties", { subscription_data: JSON.stringify([{ stream_id: await channelId(), property: "email_notifications", value: true }]) }));
		expectSuccess(await watcher.c.post("/user_topics", { stream_id: await channelId(), topic: "noise", visibility_policy: 1 }));
		expectSuccess(await follower.c.post("/user_topics", { stream_id: await channelId(), topic: "followed", visibility_policy: 3 }));
		await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "noise", content: "muted for the watcher" });
		await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "followed", content: "no mention at all" });
		await afterPeriod();
		const [toWatcher] = await smtp.waitFor(watcher.email);
		expect(toWatcher.mail.subject).toBe(`#${CHANNEL} > followed`);
		expect(toWatcher.mail.text).toContain(`You are receiving this because you have email notifications enabled for #${CHANNEL}.`);
		const [toFollower] = await smtp.waitFor(follower.email);
		expect(toFollower.mail.text).toContain("You are receiving this because you have email notifications enabled for topics you follow.");
		expect(mailTo(watcher)).toHaveLength(1);
		expect(mailTo(follower)).toHaveLength(1);
	});
});

test("two notifications replicas store each notice once and send each batch once", async () => {
	// A second replica on its own node, joined through the Fake transporter: it hears every message.sent too.
	const second = await startNode({ ...app.node.config, services: ["notifications"] }, "notifications-2");
	try {
		await eventually(async () => app.node.broker.registry.getServiceList({ onlyAvailable: true }).filter((s: { name: string }) => s.name === "notifications").length === 2 || undefined, "the second replica");
		const people = await Promise.all(Array.from({ length: 6 }, () => person()));
		for (const p of people) await mention(p, "race");
		await Promise.all([missedSweep(), missedSweep(undefined, second.broker)]);
		clock.advance(PERIOD_MS + 1000);
		const results = await Promise.all([missedSweep("a"), missedSweep("b", second.broker), missedSweep("c"), missedSweep("d", second.broker)]);
		// Only these people's batches (others in the channel asked for every message by email).
		const theirs = results.flatMap((r) => r.stored).filter((key) => people.some((p) => key.startsWith(`missed-message:${p.user_id}:`)));
		expect(theirs).toHaveLength(people.length);
		for (const p of people) expect(mailTo(p)).toHaveLength(1);
	} finally {
		await second.stop();
	}
});

test("the unsubscribe link turns enable_offline_email_notifications off without logging in", async () => {
	const away = await person();
	await mention(away, "unsubscribe");
	await afterPeriod();
	const [mail] = await smtp.waitFor(away.email);
	const link = /<(\S+)>/.exec(header(mail, "List-Unsubscribe")!)![1];
	expect(mail.mail.text).toContain(link);
	expect(await setting(away, "enable_offline_email_notifications")).toBe(true);
	const page = await fetch(onGateway(link));
	expect(page.status).toBe(200);
	expect(await page.text()).toContain("unsubscribed from missed message emails");
	expect(await setting(away, "enable_offline_email_notifications")).toBe(false);
	// The key opens only its own type.
	const key = link.split("/").at(-1)!;
	expect((await fetch(`${origin()}/accounts/unsubscribe/login/${key}`)).status).toBe(404);
	// Off now: the next mention sends nothing.
	await mention(away, "unsubscribe");
	await afterPeriod();
	expect(mailTo(away)).toHaveLength(1);
});

describe("an edit that adds a mention", () => {
	test("notifies an idle member once, as for a new message; nothing for one mentioned before, an active member, or a re-edit", async () => {
		const [added, kept, here, member] = [await person(), await person(), await person(), await person()];
		expectSuccess(await owner.post("/user_groups/create", { name: "editors", description: "", members: JSON.stringify([member.user_id]) }));
		const id = await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "edited", content: `@**${kept.full_name}** first draft` });
		await afterPeriod();
		await smtp.waitFor(kept.email);
		expectSuccess(await here.c.post("/users/me/presence", { status: "active" }));
		const mentions = `@**${kept.full_name}** @**${added.full_name}** @**${here.full_name}** @*editors*`;
		expectSuccess(await sender.c.patch(`/messages/${id}`, { content: `${mentions} second draft` }));
		// Not before the period, as for a new message.
		expect((await missedSweep()).stored).toEqual([]);
		const swept = await afterPeriod();
		expect(swept.stored.filter((k) => [added, member].some((p) => k.startsWith(`missed-message:${p.user_id}:`)))).toHaveLength(2);
		const [mail] = await smtp.waitFor(added.email);
		expect(mail.mail.subject).toBe(`#${CHANNEL} > edited`);
		expect(mail.mail.text).toContain("second draft");
		expect(mail.mail.text).toContain("You are receiving this because you were personally mentioned.");
		// A mention through a group added by an edit reads as a personal one (Zulip names no group for edits).
		const [toMember] = await smtp.waitFor(member.email);
		expect(toMember.mail.text).toContain("You are receiving this because you were personally mentioned.");
		expect(mailTo(kept)).toHaveLength(1);
		expect(mailTo(here)).toEqual([]);
		// Edited again, the mentions kept: nobody is newly mentioned.
		expectSuccess(await sender.c.patch(`/messages/${id}`, { content: `${mentions} third draft` }));
		await afterPeriod();
		for (const p of [added, member, kept]) expect(mailTo(p)).toHaveLength(1);
		expect(mailTo(here)).toEqual([]);
	});
	test("a topic wildcard mention added by an edit reaches the topic's idle participants, as Zulip's rules allow", async () => {
		const [talker, quiet, optedOut] = [await person(), await person(), await person()];
		expectSuccess(await optedOut.c.patch("/settings", { wildcard_mentions_notify: false }));
		// Not following the topic they start (Zulip's default would have them follow it, and a followed topic notified them of the original).
		for (const p of [talker, optedOut]) expectSuccess(await p.c.patch("/settings", { automatically_follow_topics_policy: 4 }));
		await sendMessage(talker.c, { type: "stream", to: CHANNEL, topic: "wild edit", content: "I was here" });
		await sendMessage(optedOut.c, { type: "stream", to: CHANNEL, topic: "wild edit", content: "me too" });
		const id = await sendMessage(sender.c, { type: "stream", to: CHANNEL, topic: "wild edit", content: "hello" });
		await afterPeriod();
		expect(mailTo(talker)).toEqual([]);
		expectSuccess(await sender.c.patch(`/messages/${id}`, { content: "hello @**topic**" }));
		await afterPeriod();
		const [mail] = await smtp.waitFor(talker.email);
		expect(mail.mail.text).toContain(`You are receiving this because all topic participants were mentioned in #${CHANNEL} > wild edit.`);
		expect(mailTo(quiet)).toEqual([]);
		expect(mailTo(optedOut)).toEqual([]);
	});
});

describe("context (Zulip's get_context_for_message)", () => {
	test("a channel topic's email quotes the topic's earlier messages of the last quarter hour, in order, once", async () => {
		const away = await person();
		const colleague = await person("Chatty Colleague");
		const say = (who: Person, content: string, topic = "context") => sendMessage(who.c, { type: "stream", to: CHANNEL, topic, content });
		await say(colleague, "too old to quote");
		clock.advance(16 * 60_000);
		await say(sender, "first of three");
		await say(colleague, "second of three");
		await say(sender, "third of three");
		await say(colleague, "another topic altogether", "elsewhere");
		await mention(away, "context", "what do you think?");
		await mention(away, "context", "and now?");
		await afterPeriod();
		const [mail] = await smtp.waitFor(away.email);
		expect(mail.mail.subject).toBe(`#${CHANNEL} > context`);
		const text = mail.mail.text!;
		const order = ["Busy Sender:\n> first of three", "Chatty Colleague:\n> second of three", `Busy Sender:\n> third of three\n> @**${away.full_name}** what do you think?\n> @**${away.full_name}** and now?`];
		const at = order.map((part) => text.indexOf(part));
		expect(at.every((i) => i >= 0)).toBe(true);
		expect([...at].sort((a, b) => a - b)).toEqual(at);
		expect(text.match(/first of three/g)).toHaveLength(1);
		expect(text).not.toContain("too old to quote");
		expect(text).not.toContain("another topic altogether");
		expect(mail.mail.html).toContain("second of three");
		expect(text).toContain("You are receiving this because you were personally mentioned.");
		// The link is the first missed message's, not a context message's.
		const firstMissed = (await away.c.get("/messages", { anchor: "newest", num_before: 2, num_after: 0, narrow: JSON.stringify([{ operator: "topic", operand: "context" }]) })).body.messages[0].id;
		expect(text).toContain(`/near/${firstMissed}`);
	});
});

describe("email_notifications_batching_period_seconds", () => {
	test("takes Zulip's range, more than zero and at most a week", async () => {
		const p = await person();
		for (const good of [1, 604_800, 300]) {
			expectSuccess(await p.c.patch("/settings", { email_notifications_batching_period_seconds: good }));
			expect(await setting(p, "email_notifications_batching_period_seconds")).toBe(good);
		}
		for (const bad of [0, -1, 604_801]) {
			expectError(await p.c.patch("/settings", { email_notifications_batching_period_seconds: bad }), 400, "BAD_REQUEST", `Invalid email batching period: ${bad} seconds`);
		}
		expectError(await p.c.patch("/settings", { email_notifications_batching_period_seconds: "soon" }), 400, "BAD_REQUEST", "email_notifications_batching_period_seconds is not an integer");
		expectError(await p.c.patch("/settings", { email_notifications_batching_period_seconds: "1.5" }), 400, "BAD_REQUEST", "email_notifications_batching_period_seconds is not an integer");
		expect(await setting(p, "email_notifications_batching_period_seconds")).toBe(300);
	});
});
