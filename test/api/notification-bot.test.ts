// Notification Bot's messages about channels, as Zulip sends them: the direct message to users
// someone else subscribed, the new channel announcement and the creation notice, and the
// "channel events" notices of renames, descriptions, access, retention, the topics policy, who
// may post, archiving and unarchiving. Each with its exact Markdown, topic and sender, the users
// who get it and whether it is unread for them; nothing on a refused request. And the
// organization's new channel announcements channel in PATCH /realm and POST /register.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, NOTIFICATION_BOT_EMAIL, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let snaps: Snapshotter;
let owner: Client;
let admin: Account;
let member: Account;
let bob: Account;
let carol: Account;
let guest: Account;
let bot: Account;
let groups: Record<string, number>;
const as = (a: Account) => client(app.baseUrl, a);
/** Silent mentions, as Zulip writes them in its notices. */
let ownerMention: string;
let memberMention: string;

interface Message {
	id: number;
	sender_email: string;
	sender_full_name: string;
	type: string;
	subject: string;
	content: string;
	flags: string[];
	display_recipient: unknown;
	stream_id?: number;
}

/** The caller's messages matching a narrow, oldest first, with their Markdown. */
async function messages(c: Client, narrow: unknown[] = []): Promise<Message[]> {
	const res = await c.get("/messages", { anchor: "newest", num_before: 200, num_after: 0, narrow, apply_markdown: false });
	expectSuccess(res);
	return res.body.messages;
}
const fromBot = (list: Message[]) => list.filter((m) => m.sender_email === NOTIFICATION_BOT_EMAIL);
/** Notification Bot's direct messages to a user. */
const dmsTo = async (a: Account) => fromBot(await messages(as(a), [["is", "dm"]]));
/** Notification Bot's messages in a channel, as a subscriber sees them. */
const noticesIn = async (c: Client, channel: number | string) => fromBot(await messages(c, [{ operator: "channel", operand: channel }]));

async function createChannel(c: Client, name: string, extra: Record<string, unknown> = {}, description?: string): Promise<number> {
	expectSuccess(await c.post("/users/me/subscriptions", { subscriptions: [{ name, description }], ...extra }));
	return (await owner.get("/get_stream_id", { stream: name })).body.stream_id;
}

beforeAll(async () => {
	app = await startTestApp();
	snaps = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	admin = await app.createUser({ role: 200, full_name: "Ada Admin" });
	member = await app.createUser({ full_name: "Mia Member" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol" });
	guest = await app.createUser({ role: 600, full_name: "Gus Guest" });
	bot = await app.createUser({ is_bot: true, bot_owner_id: member.user_id, full_name: "Helper Bot" });
	groups = Object.fromEntries((await owner.get("/user_groups")).body.user_groups.map((g: { name: string; id: number }) => [g.name, g.id]));
	const ownerName = (await owner.get("/users/me")).body.full_name;
	ownerMention = `@_**${ownerName}|${app.owner.user_id}**`;
	memberMention = `@_**Mia Member|${member.user_id}**`;
});
afterAll(async () => {
	await snaps?.close();
	await app?.stop();
});

describe("subscribing others", () => {
	let alpha: number;
	let beta: number;
	beforeAll(async () => {
		alpha = await createChannel(owner, "alpha", { principals: [app.owner.user_id, carol.user_id] });
		beta = await createChannel(owner, "beta");
	});

	test("each user subscribed to existing channels by someone else gets a direct message listing them", async () => {
		const res = await as(member).post("/users/me/subscriptions", {
			subscriptions: [{ name: "beta" }, { name: "alpha" }],
			principals: [member.user_id, bob.user_id, carol.user_id, bot.user_id],
		});
		expectSuccess(res);
		// Zulip's answer at feature level 370: no new_subscription_messages_sent.
		expect(res.body).toEqual({
			result: "success",
			msg: "",
			subscribed: { [member.user_id]: ["beta", "alpha"], [bob.user_id]: ["beta", "alpha"], [carol.user_id]: ["beta"], [bot.user_id]: ["beta", "alpha"] },
			already_subscribed: { [carol.user_id]: ["alpha"] },
		});
		const [toBob] = await dmsTo(bob);
		// The channels sorted by name, as Python's sorted().
		expect(toBob).toMatchObject({
			type: "private",
			sender_full_name: "Notification Bot",
			content: `${memberMention} subscribed you to the following channels:\n\n* #**alpha**\n* #**beta**\n`,
			flags: [],
		});
		expect((toBob.display_recipient as Array<{ email: string }>).map((r) => r.email).sort()).toEqual([NOTIFICATION_BOT_EMAIL, bob.email].sort());
		// Carol was already in alpha: beta alone, in Zulip's one-channel sentence.
		expect((await dmsTo(carol)).map((m) => m.content)).toEqual([`${memberMention} subscribed you to #**beta**.`]);
		// Not the one who subscribed them, not a bot.
		expect(await dmsTo(member)).toEqual([]);
		expect(await dmsTo(bot)).toEqual([]);
		// Rendered, the channels are links and the mention is silent.
		const html = (await as(bob).get(`/messages/${toBob.id}`)).body.message.content;
		expect(html).toContain(`<span class="user-mention silent" data-user-id="${member.user_id}">Mia Member</span>`);
		expect(html).toContain(`data-stream-id="${alpha}"`);
		expect(html).toContain(`data-stream-id="${beta}"`);
	});

	test("subscribing oneself, or someone already subscribed, sends nothing", async () => {
		const before = await dmsTo(bob);
		expectSuccess(await as(bob).post("/users/me/subscriptions", { subscriptions: [{ name: "alpha" }] }));
		expectSuccess(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "alpha" }], principals: [bob.user_id] }));
		expect(await dmsTo(bob)).toEqual(before);
	});

	test("a user subscribed again after leaving is told again", async () => {
		expectSuccess(await as(carol).delete("/users/me/subscriptions", { subscriptions: ["beta"] }));
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "beta" }], principals: [carol.user_id] }));
		expect((await dmsTo(carol)).map((m) => m.content).at(-1)).toBe(`${ownerMention} subscribed you to #**beta**.`);
	});

	test("a refused request sends nothing", async () => {
		await createChannel(as(admin), "closed", { invite_only: true });
		await snaps.refused(() => as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "alpha" }, { name: "closed" }], principals: [guest.user_id] }), 400, "BAD_REQUEST", "Unable to access channel (closed).");
	});

	test("send_new_subscription_messages (feature level 397) is not taken: the messages are sent", async () => {
		const dave = await app.createUser({ full_name: "Dave" });
		const res = await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "alpha" }], principals: [dave.user_id], send_new_subscription_messages: false });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported).toEqual(["send_new_subscription_messages"]);
		expect((await dmsTo(dave)).map((m) => m.content)).toEqual([`${ownerMention} subscribed you to #**alpha**.`]);
	});
});

describe("creating channels", () => {
	let announce: number;
	beforeAll(async () => {
		announce = await createChannel(owner, "announce", { principals: [app.owner.user_id, member.user_id, carol.user_id] });
		expectSuccess(await owner.patch("/realm", { new_stream_announcements_stream_id: announce }));
	});

	test("with announce: the announcement, then the new channel's notice; read for the creator, unread for the others", async () => {
		const id = await createChannel(as(member), "brand new", { announce: true, principals: [member.user_id, bob.user_id] });
		const announced = (await noticesIn(as(member), announce)).at(-1)!;
		expect(announced).toMatchObject({ subject: "new channels", content: `${memberMention} created a new channel #**brand new**.`, flags: ["read"] });
		expect((await noticesIn(as(carol), announce)).at(-1)).toMatchObject({ id: announced.id, flags: [] });
		const [created] = await noticesIn(as(member), id);
		expect(created).toMatchObject({
			type: "stream",
			stream_id: id,
			subject: "channel events",
			sender_full_name: "Notification Bot",
			content: `**Public** channel created by ${memberMention}. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
			flags: ["read"],
		});
		expect(created.id).toBeGreaterThan(announced.id);
		expect((await noticesIn(as(bob), id)).map((m) => [m.id, m.flags])).toEqual([[created.id, []]]);
		// Bob was subscribed to a channel created for him: no direct message.
		expect((await dmsTo(bob)).map((m) => m.content).join()).not.toContain("brand new");
		expect((await owner.get(`/streams/${id}`)).body.stream.first_message_id).toBe(created.id);
		const html = (await as(bob).get(`/messages/${created.id}`)).body.message.content;
		expect(html).toContain(`<span class="user-mention silent" data-user-id="${member.user_id}">Mia Member</span>`);
		expect(html).toContain("<blockquote>");
	});

	test("several channels in one announcement; each its own notice, with its description and access", async () => {
		expectSuccess(
			await owner.post("/users/me/subscriptions", {
				subscriptions: [
					{ name: "red", description: "All **red** things" },
					{ name: "blue", description: "" },
				],
				invite_only: true,
				history_public_to_subscribers: true,
				announce: true,
			}),
		);
		expect((await noticesIn(owner, announce)).at(-1)!.content).toBe(`${ownerMention} created the following channels: #**red**, #**blue**.`);
		const shared = "**Private, shared history** channel created by";
		expect((await noticesIn(owner, "red")).map((m) => m.content)).toEqual([`${shared} ${ownerMention}. **Description:**\n\`\`\`\` quote\nAll **red** things\n\`\`\`\``]);
		expect((await noticesIn(owner, "blue")).map((m) => m.content)).toEqual([`${shared} ${ownerMention}. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``]);
		await createChannel(owner, "vault", { invite_only: true });
		expect((await noticesIn(owner, "vault"))[0].content).toMatch(/^\*\*Private, protected history\*\* channel created by /);
	});

	test("without announce, or without an announcements channel, only the channel's own notice", async () => {
		const before = (await noticesIn(owner, announce)).length;
		await createChannel(owner, "quiet");
		expect(await noticesIn(owner, "quiet")).toHaveLength(1);
		expectSuccess(await owner.patch("/realm", { new_stream_announcements_stream_id: -1 }));
		await createChannel(owner, "unannounced", { announce: true });
		expect(await noticesIn(owner, "unannounced")).toHaveLength(1);
		expect(await noticesIn(owner, announce)).toHaveLength(before);
		expectSuccess(await owner.patch("/realm", { new_stream_announcements_stream_id: announce }));
	});

	test("event queues get the notice after the channel and the subscription", async () => {
		const queueOf = async (a: Account) => (await as(a).post("/register", { event_types: JSON.stringify(["stream", "subscription", "message"]) })).body.queue_id as string;
		const queues = new Map([member, bob].map((a) => [a, ""]));
		for (const a of queues.keys()) queues.set(a, await queueOf(a));
		await createChannel(as(member), "evented", { principals: [member.user_id, bob.user_id] });
		for (const [a, flags] of [[member, ["read"]], [bob, []]] as const) {
			const events = (await as(a).get("/events", { queue_id: queues.get(a), last_event_id: -1, dont_block: true })).body.events;
			expect(events.map((e: { type: string; op?: string }) => `${e.type}/${e.op ?? ""}`)).toEqual(["stream/create", "subscription/add", "message/"]);
			expect(events[2]).toMatchObject({ flags, message: { subject: "channel events", sender_email: NOTIFICATION_BOT_EMAIL } });
		}
	});

	test("a channel allowing only the empty topic gets its notice there", async () => {
		const id = await createChannel(owner, "flat", { topics_policy: "empty_topic_only" });
		const [notice] = await noticesIn(owner, id);
		expect(notice.subject).toBe("general chat");
	});

	test("a refused creation sends nothing", async () => {
		await snaps.refused(() => as(guest).post("/users/me/subscriptions", { subscriptions: [{ name: "guests-only" }], announce: true }), 400, "BAD_REQUEST", "Not allowed for guest users");
		await snaps.refused(
			() => as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "not-mine" }], message_retention_days: 5, announce: true }),
			400,
			"UNAUTHORIZED_PRINCIPAL",
			"Must be an organization owner",
		);
	});
});

describe("channel changes in the channel events topic", () => {
	let id: number;
	beforeAll(async () => {
		id = await createChannel(owner, "changing", { principals: [app.owner.user_id, bob.user_id] }, "First");
	});
	const latest = async (c: Client = owner) => (await noticesIn(c, id)).at(-1)!;

	test("a rename, unread for every subscriber, the one who renamed included", async () => {
		expectSuccess(await owner.patch(`/streams/${id}`, { new_name: "changed" }));
		const notice = await latest();
		expect(notice).toMatchObject({ subject: "channel events", content: `${ownerMention} renamed channel **changing** to **changed**.`, flags: [] });
		expect((await latest(as(bob))).id).toBe(notice.id);
		// Not to those who are not subscribed.
		expect((await messages(as(carol))).map((m) => m.id)).not.toContain(notice.id);
	});

	test("the description, old and new quoted", async () => {
		expectSuccess(await owner.patch(`/streams/${id}`, { description: "Second *one*" }));
		expect((await latest()).content).toBe(
			`${ownerMention} changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\nFirst\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\nSecond *one*\n\`\`\`\``,
		);
		expectSuccess(await owner.patch(`/streams/${id}`, { description: "" }));
		expect((await latest()).content).toContain("* **New description:**\n```` quote\n*No description.*\n````");
	});

	test("access permissions, announced whenever given, as Zulip's do_change_stream_permission", async () => {
		const link = "[access permissions](/help/channel-permissions)";
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true }));
		expect((await latest()).content).toBe(`${ownerMention} changed the ${link} for this channel from **Public** to **Private, protected history**.`);
		expectSuccess(await owner.patch(`/streams/${id}`, { history_public_to_subscribers: true }));
		expect((await latest()).content).toBe(`${ownerMention} changed the ${link} for this channel from **Private, protected history** to **Private, shared history**.`);
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: false }));
		expect((await latest()).content).toBe(`${ownerMention} changed the ${link} for this channel from **Private, shared history** to **Public**.`);
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: false }));
		expect((await latest()).content).toBe(`${ownerMention} changed the ${link} for this channel from **Public** to **Public**.`);
	});

	test("message retention: days, forever, and the organization's default", async () => {
		const head = `${ownerMention} has changed the [message retention period](/help/message-retention-policy) for this channel:\n`;
		expectSuccess(await owner.patch(`/streams/${id}`, { message_retention_days: 30 }));
		expect((await latest()).content).toBe(
			`${head}* **Old retention period**: Forever\n* **New retention period**: 30 days\n\nMessages in this channel will now be automatically deleted 30 days after they are sent.`,
		);
		expectSuccess(await owner.patch(`/streams/${id}`, { message_retention_days: 7 }));
		expect((await latest()).content).toBe(
			`${head}* **Old retention period**: 30 days\n* **New retention period**: 7 days\n\nMessages in this channel will now be automatically deleted 7 days after they are sent.`,
		);
		expectSuccess(await owner.patch(`/streams/${id}`, { message_retention_days: "realm_default" }));
		expect((await latest()).content).toBe(`${head}* **Old retention period**: 7 days\n* **New retention period**: Forever\n\nMessages in this channel will now be retained forever.`);
	});

	test("the topics policy, only when it changes", async () => {
		expectSuccess(await owner.patch(`/streams/${id}`, { topics_policy: "disable_empty_topic" }));
		const notice = await latest();
		expect(notice.content).toBe(`${ownerMention} changed the "Allow posting to the *general chat* topic?" setting from **Automatic** to **No *general chat* topic**.`);
		expectSuccess(await owner.patch(`/streams/${id}`, { topics_policy: "disable_empty_topic" }));
		expectSuccess(await owner.patch(`/streams/${id}`, { topics_policy: "allow_empty_topic" }));
		const next = await latest();
		expect(next.content).toBe(`${ownerMention} changed the "Allow posting to the *general chat* topic?" setting from **No *general chat* topic** to ***general chat* topic allowed**.`);
		expect((await noticesIn(owner, id)).filter((m) => m.id > notice.id)).toEqual([next]);
	});

	test("who may post: groups and users mentioned silently, only when it changes", async () => {
		const head = `${ownerMention} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n`;
		expectSuccess(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups["role:administrators"] } }));
		expect((await latest()).content).toBe(`${head}* **Old**: @_*role:everyone*\n* **New**: @_*role:administrators*\n`);
		const anonymous = { direct_members: [carol.user_id, bob.user_id], direct_subgroups: [groups["role:moderators"]] };
		expectSuccess(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: anonymous } }));
		expect((await latest()).content).toBe(`${head}* **Old**: @_*role:administrators*\n* **New**: @_*role:moderators*, @_**Bob|${bob.user_id}**, @_**Carol|${carol.user_id}**\n`);
		const count = (await noticesIn(owner, id)).length;
		expectSuccess(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: anonymous } }));
		expectSuccess(await owner.patch(`/streams/${id}`, { can_remove_subscribers_group: { new: groups["role:moderators"] }, folder_id: null, is_default_stream: true }));
		expect(await noticesIn(owner, id)).toHaveLength(count);
		expectSuccess(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups["role:everyone"] }, is_default_stream: false }));
	});

	test("several changes in one request: Zulip's order", async () => {
		const before = (await latest()).id;
		expectSuccess(await owner.patch(`/streams/${id}`, { new_name: "again", description: "Third", topics_policy: "inherit", message_retention_days: 3, is_private: false }));
		const contents = (await noticesIn(owner, id)).filter((m) => m.id > before).map((m) => m.content.replace(`${ownerMention} `, "").split(" ").slice(0, 3).join(" "));
		expect(contents).toEqual(["changed the [access", "has changed the", "changed the \"Allow", "changed the description", "renamed channel **changed**"]);
	});

	test("a refused change sends nothing", async () => {
		await snaps.refused(() => as(bob).patch(`/streams/${id}`, { new_name: "mine" }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		await snaps.refused(() => owner.patch(`/streams/${id}`, { description: "Fourth", is_private: false, history_public_to_subscribers: false }), 400, "BAD_REQUEST", "Invalid parameters");
	});

	test("archiving: the notice is read for everyone; unarchiving: unread", async () => {
		expectSuccess(await owner.delete(`/streams/${id}`));
		const archived = await latest();
		expect(archived).toMatchObject({ subject: "channel events", content: "Channel #**again** has been archived.", flags: ["read"] });
		expect((await latest(as(bob))).flags).toEqual(["read"]);
		await snaps.refused(() => owner.delete(`/streams/${id}`), 400, "BAD_REQUEST", "Channel is already archived");
		expectSuccess(await owner.patch(`/streams/${id}`, { is_archived: false }));
		const back = await latest();
		expect(back).toMatchObject({ content: "Channel #**again** has been unarchived.", flags: [] });
		expect((await latest(as(bob))).id).toBe(back.id);
	});
});

describe("the new channel announcements channel", () => {
	test("PATCH /realm sets it (any channel not archived, or -1); POST /register and a realm event show it", async () => {
		const target = await createChannel(owner, "news-of-channels", { invite_only: true });
		const reg = await as(member).post("/register", { fetch_event_types: ["realm"] });
		expectSuccess(await owner.patch("/realm", { new_stream_announcements_stream_id: -1 }));
		const res = await owner.patch("/realm", { new_stream_announcements_stream_id: target, signup_announcements_stream_id: target, zulip_update_announcements_stream_id: target });
		expectSuccess(res);
		expect(res.body).toMatchObject({ new_stream_announcements_stream_id: target, signup_announcements_stream_id: target, zulip_update_announcements_stream_id: target });
		const state = (await as(member).post("/register", { fetch_event_types: ["realm"] })).body;
		expect(state).toMatchObject({ realm_new_stream_announcements_stream_id: target, realm_signup_announcements_stream_id: target, realm_zulip_update_announcements_stream_id: target });
		const events = (await as(member).get("/events", { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
		expect(events).toEqual(expect.arrayContaining([{ id: expect.any(Number), type: "realm", op: "update", property: "new_stream_announcements_stream_id", value: target }]));
	});

	test("unknown and archived channels are refused, and so are non-administrators; nothing changes", async () => {
		const gone = await createChannel(owner, "gone");
		expectSuccess(await owner.delete(`/streams/${gone}`));
		await snaps.refused(() => owner.patch("/realm", { new_stream_announcements_stream_id: 999_999 }), 400, "BAD_REQUEST", "Invalid channel ID");
		await snaps.refused(() => owner.patch("/realm", { signup_announcements_stream_id: gone }), 400, "BAD_REQUEST", "Invalid channel ID");
		await snaps.refused(() => owner.patch("/realm", { zulip_update_announcements_stream_id: "soon" }), 400, "BAD_REQUEST", /is not an integer/);
		await snaps.refused(() => as(member).patch("/realm", { new_stream_announcements_stream_id: -1 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	});
});
