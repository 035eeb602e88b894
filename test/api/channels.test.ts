// Channels and subscriptions: creating and subscribing, the access model (public, private
// subscribed or not, archived) for every role, GET /streams and its filters, unsubscribing with
// the three rules for removing others, and archiving.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let admin: Account;
let moderator: Account;
let member: Account;
let member2: Account;
let guest: Account;
let bot: Account;
const as = (a: Account) => client(app.baseUrl, a);
const ids: Record<string, number> = {};

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	({ admin, moderator, member, member2, guest } = await app.createCast());
	bot = await app.createUser({ is_bot: true, bot_owner_id: member.user_id });
});
afterAll(() => app.stop());

async function idOf(name: string): Promise<number> {
	return (await owner.get("/get_stream_id", { stream: name })).body.stream_id;
}
async function subscribers(name: string): Promise<number[]> {
	return (await owner.get(`/streams/${await idOf(name)}/members`)).body.subscribers;
}
async function streamNames(c: Client, filters: Record<string, unknown> = {}): Promise<string[]> {
	const res = await c.get("/streams", filters);
	expectSuccess(res);
	return res.body.streams.map((s: { name: string }) => s.name).sort();
}

describe("creating and subscribing", () => {
	test("subscribing to a new name creates a public channel the creator administers", async () => {
		const res = await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general", description: "Everyone's *channel*" }] });
		expectSuccess(res);
		expect(res.body).toEqual({ result: "success", msg: "", subscribed: { "1": ["general"] }, already_subscribed: {} });
		ids.general = await idOf("general");
		const stream = (await as(member).get(`/streams/${ids.general}`)).body.stream;
		const groups = Object.fromEntries((await owner.get("/user_groups")).body.user_groups.map((g: { name: string; id: number }) => [g.name, g.id]));
		expect(stream).toEqual({
			stream_id: ids.general,
			name: "general",
			is_archived: false,
			description: "Everyone's *channel*",
			rendered_description: "<p>Everyone's <em>channel</em></p>",
			date_created: expect.any(Number),
			creator_id: 1,
			invite_only: false,
			is_web_public: false,
			stream_post_policy: 1,
			is_announcement_only: false,
			message_retention_days: null,
			history_public_to_subscribers: true,
			topics_policy: "inherit",
			// Notification Bot's "channel events" notice of the creation.
			first_message_id: expect.any(Number),
			folder_id: null,
			is_recently_active: true,
			stream_weekly_traffic: null,
			can_add_subscribers_group: groups["role:nobody"],
			can_remove_subscribers_group: groups["role:administrators"],
			can_administer_channel_group: { direct_members: [1], direct_subgroups: [] },
			can_delete_any_message_group: groups["role:nobody"],
			can_delete_own_message_group: groups["role:everyone"],
			can_move_messages_out_of_channel_group: groups["role:nobody"],
			can_move_messages_within_channel_group: groups["role:nobody"],
			can_send_message_group: groups["role:everyone"],
		});
	});

	test("subscribing again reports already_subscribed; names match without regard to case", async () => {
		const res = await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "GENERAL" }] });
		expect(res.body).toMatchObject({ subscribed: {}, already_subscribed: { "1": ["general"] } });
	});

	test("members create private channels; the subscription carries its own settings", async () => {
		expectSuccess(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], invite_only: true }));
		ids.secret = await idOf("secret");
		ids.hidden = await idOf("hidden");
		const subs = (await as(member).get("/users/me/subscriptions")).body.subscriptions;
		const secret = subs.find((s: { name: string }) => s.name === "secret");
		// Zulip removed the channel's email address from subscription objects.
		expect(secret).not.toHaveProperty("email_address");
		expect(secret).toMatchObject({
			stream_id: ids.secret,
			invite_only: true,
			history_public_to_subscribers: false,
			color: expect.stringMatching(/^#[0-9a-f]{6}$/),
			is_muted: false,
			in_home_view: true,
			pin_to_top: false,
			desktop_notifications: null,
			email_notifications: null,
		});
		expect(secret).not.toHaveProperty("subscribers");
		const withSubs = (await as(member).get("/users/me/subscriptions", { include_subscribers: true })).body.subscriptions;
		expect(withSubs.find((s: { name: string }) => s.name === "secret").subscribers).toEqual([member.user_id]);
	});

	test("guests may not create channels, and nothing is created", async () => {
		// Zulip's require_non_guest_user: before any parameter is read.
		for (const params of [{ invite_only: false }, { invite_only: true }, { invite_only: "maybe" }, { principals: "[" }]) {
			expectError(await as(guest).post("/users/me/subscriptions", { subscriptions: [{ name: "guest-made" }], ...params }), 400, "BAD_REQUEST", "Not allowed for guest users");
		}
		expectError(await as(guest).post("/users/me/subscriptions", {}), 400, "BAD_REQUEST", "Not allowed for guest users");
		expect(await streamNames(owner, { include_all: true })).not.toContain("guest-made");
	});

	test.each([
		[{ subscriptions: [{ name: "" }] }, "Channel name can't be empty."],
		[{ subscriptions: [{ name: "n".repeat(61) }] }, "Channel name too long (limit: 60 characters)."],
		[{ subscriptions: [{ name: "bad\u0007name" }] }, "Invalid character in channel name, at position 4."],
		[{ subscriptions: [{ name: "long-desc", description: "d".repeat(1025) }] }, "description is too long (limit: 1024 characters)"],
		[{ subscriptions: [{ name: "webby" }], is_web_public: true }, "Web-public channels are not enabled."],
		[{ subscriptions: [{ name: "history" }], history_public_to_subscribers: false }, "Invalid parameters"],
		[{ subscriptions: [{ name: "kept" }], message_retention_days: "forever" }, "Bad value for 'message_retention_days'"],
		[{ subscriptions: [{ name: "kept-json" }], message_retention_days: '"forever"' }, "Bad value for 'message_retention_days'"],
		[{ subscriptions: [{ name: "policy" }], topics_policy: "sometimes" }, "Invalid topics_policy"],
		[{ subscriptions: [{ name: "perm" }], can_send_message_group: 999999 }, "Invalid user group ID: 999999"],
		[{ subscriptions: [{ name: "perm2" }], can_send_message_group: { direct_members: [999999], direct_subgroups: [] } }, "Invalid user ID: 999999"],
		[{ subscriptions: [{ name: "private-default" }], invite_only: true, is_default_stream: true }, "A default channel cannot be private."],
	])("%j is refused: %s", async (params, msg) => {
		expectError(await owner.post("/users/me/subscriptions", params), 400, "BAD_REQUEST", msg);
		expect(await streamNames(owner, { include_all: true })).toEqual(["general", "hidden", "secret"]);
	});

	test("bad parameter types and shapes are named", async () => {
		expectError(await owner.post("/users/me/subscriptions", {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'subscriptions' argument");
		expectError(await owner.post("/users/me/subscriptions", { subscriptions: "general" }), 400, "BAD_REQUEST", 'Argument "subscriptions" is not valid JSON.');
		expectError(await owner.post("/users/me/subscriptions", { subscriptions: [] }), 400, "BAD_REQUEST");
		expectError(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "x" }], invite_only: "yes" }), 400, "BAD_REQUEST", "invite_only is not a boolean");
		expectError(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "x" }], principals: [1.5] }), 400, "BAD_REQUEST");
	});

	test("message retention is for owners; its three forms are stored", async () => {
		expectError(await as(admin).post("/users/me/subscriptions", { subscriptions: [{ name: "kept-admin" }], message_retention_days: 30 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		// Plain, or JSON-encoded as Zulip's web app sends it ("unlimited" here).
		for (const [name, value, stored] of [["kept-30", 30, 30], ["kept-forever", '"unlimited"', -1], ["kept-default", "realm_default", null]] as const) {
			expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], message_retention_days: value }));
			expect((await owner.get(`/streams/${await idOf(name)}`)).body.stream.message_retention_days).toBe(stored);
		}
	});

	test("default channels are made by administrators", async () => {
		expectError(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "welcome" }], is_default_stream: true }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: [{ name: "welcome" }], is_default_stream: true }));
		expect(await streamNames(as(member2), { include_public: false, include_subscribed: false, include_default: true })).toEqual(["welcome"]);
	});
});

describe("subscribing others", () => {
	test("a member adds another user to a public channel, by ID or by email", async () => {
		const res = await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [member2.user_id] });
		expectSuccess(res);
		expect(res.body.subscribed).toEqual({ [member2.user_id]: ["general"] });
		const byEmail = await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [member.email] });
		expect(byEmail.body.subscribed).toEqual({ [member.user_id]: ["general"] });
		expectError(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [member2.user_id, member.email] }), 400, "BAD_REQUEST");
		expect(await subscribers("general")).toEqual([1, member.user_id, member2.user_id].sort((a, b) => a - b));
	});

	test("unknown or deactivated principals are 'No such user' and nobody is subscribed", async () => {
		const gone = await app.createUser({});
		expectSuccess(await owner.delete(`/users/${gone.user_id}`));
		const before = await subscribers("general");
		for (const principals of [[999999], ["ghost@chat.test"], [gone.user_id], [guest.user_id, 999999]]) {
			expectError(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals }), 400, "BAD_REQUEST", "No such user");
		}
		expect(await subscribers("general")).toEqual(before);
	});

	test("guests subscribe nobody, not even themselves to a channel they are in; others subscribe them", async () => {
		const refused = async (params: Record<string, unknown>) => {
			const before = await subscribers("general");
			expectError(await as(guest).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], ...params }), 400, "BAD_REQUEST", "Not allowed for guest users");
			expect(await subscribers("general")).toEqual(before);
		};
		await refused({});
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [guest.user_id] }));
		await refused({});
		await refused({ principals: [guest.user_id] });
		await refused({ principals: [member2.user_id] });
	});

	test("a private channel: outsiders cannot join; subscribers may add others", async () => {
		expectError(await as(member2).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }] }), 400, "BAD_REQUEST", "Unable to access channel (secret).");
		const soft = await as(member2).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }, { name: "general" }], authorization_errors_fatal: false });
		expect(soft.body).toMatchObject({ subscribed: {}, already_subscribed: { [member2.user_id]: ["general"] }, unauthorized: ["secret"] });
		expect(await subscribers("secret")).toEqual([member.user_id]);
		expectSuccess(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], principals: [member2.user_id] }));
		expect(await subscribers("secret")).toEqual([member.user_id, member2.user_id].sort((a, b) => a - b));
		// Adding subscribers needs content access: an administrator who is not subscribed cannot.
		expectError(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], principals: [moderator.user_id] }), 400, "BAD_REQUEST", "Unable to access channel (secret).");
	});
});

describe("seeing channels", () => {
	test("GET /streams defaults: public channels and the caller's subscriptions", async () => {
		expect(await streamNames(as(member2))).toEqual(["general", "kept-30", "kept-default", "kept-forever", "secret", "welcome"]);
		expect(await streamNames(as(member2))).not.toContain("hidden");
	});

	test("guests see only their subscriptions (include_public does not apply)", async () => {
		expect(await streamNames(as(guest))).toEqual(["general"]);
		expect(await streamNames(as(guest), { include_all: true })).toEqual(["general"]);
	});

	test("include_all: every channel for administrators, metadata access for others", async () => {
		expect(await streamNames(as(admin), { include_all: true })).toContain("hidden");
		expect(await streamNames(owner, { include_all: true })).toContain("secret");
		expect(await streamNames(as(member2), { include_all: true })).not.toContain("hidden");
	});

	test("include_all_active is the deprecated alias, for administrators only", async () => {
		expect(await streamNames(as(admin), { include_all_active: true })).toContain("hidden");
		expectError(await as(member).get("/streams", { include_all_active: true }), 400, "BAD_REQUEST", "User not authorized for this query");
	});

	test("include_subscribed and include_public off, include_can_access_content on", async () => {
		expect(await streamNames(as(member2), { include_public: false })).toEqual(["general", "secret"]);
		expect(await streamNames(as(member2), { include_public: false, include_subscribed: false })).toEqual([]);
		expect(await streamNames(as(member2), { include_public: false, include_subscribed: false, include_can_access_content: true })).toEqual([
			"general",
			"kept-30",
			"kept-default",
			"kept-forever",
			"secret",
			"welcome",
		]);
		expect(await streamNames(as(member2), { include_public: false, include_subscribed: false, include_web_public: true })).toEqual([]);
	});

	test("include_owner_subscribed: a bot sees its owner's channels", async () => {
		const b = as(bot);
		expect(await streamNames(b, { include_public: false })).toEqual([]);
		expect(await streamNames(b, { include_public: false, include_owner_subscribed: true })).toEqual(["general", "secret"]);
	});

	test("bad filter values are named", async () => {
		expectError(await as(member).get("/streams", { include_public: "sure" }), 400, "BAD_REQUEST", "include_public is not a boolean");
	});

	test("GET /streams/{id}, get_stream_id and members hide what the caller may not know", async () => {
		for (const path of [`/streams/${ids.hidden}`, `/streams/${ids.hidden}/members`, "/streams/999999", "/streams/999999/members"]) {
			expectError(await as(member).get(path), 400, "BAD_REQUEST", "Invalid channel ID");
		}
		expectError(await as(member).get("/get_stream_id", { stream: "hidden" }), 400, "BAD_REQUEST", "Invalid channel name 'hidden'");
		expectError(await as(member).get("/get_stream_id", { stream: "nowhere" }), 400, "BAD_REQUEST", "Invalid channel name 'nowhere'");
		expectError(await as(member).get("/get_stream_id"), 400, "REQUEST_VARIABLE_MISSING", "Missing 'stream' argument");
		expect((await as(admin).get(`/streams/${ids.hidden}`)).body.stream.name).toBe("hidden");
		expect((await as(member).get("/get_stream_id", { stream: "SECRET" })).body.stream_id).toBe(ids.secret);
		expectError(await as(guest).get(`/streams/${ids.secret}`), 400, "BAD_REQUEST", "Invalid channel ID");
	});

	test("deactivated users are not listed as subscribers", async () => {
		const u = await app.createUser({});
		expectSuccess(await as(u).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
		expect(await subscribers("general")).toContain(u.user_id);
		expectSuccess(await owner.delete(`/users/${u.user_id}`));
		expect(await subscribers("general")).not.toContain(u.user_id);
	});
});

describe("unsubscribing", () => {
	test("removing oneself, then again: removed, then not_removed", async () => {
		expectSuccess(await as(member2).post("/users/me/subscriptions", { subscriptions: [{ name: "welcome" }] }));
		const first = await as(member2).delete("/users/me/subscriptions", { subscriptions: ["welcome"] });
		expect(first.body).toMatchObject({ result: "success", removed: ["welcome"], not_removed: [] });
		const again = await as(member2).delete("/users/me/subscriptions", { subscriptions: ["welcome"] });
		expect(again.body).toMatchObject({ removed: [], not_removed: ["welcome"] });
	});

	test("an unknown channel, or one the caller may not know, is STREAM_DOES_NOT_EXIST naming it", async () => {
		const res = await as(member).delete("/users/me/subscriptions", { subscriptions: ["general", "nowhere"] });
		expectError(res, 400, "STREAM_DOES_NOT_EXIST", "Channel 'nowhere' does not exist");
		expect(res.body.stream).toBe("nowhere");
		expect(await subscribers("general")).toContain(member.user_id);
		const hidden = await as(member).delete("/users/me/subscriptions", { subscriptions: ["hidden"] });
		expectError(hidden, 400, "STREAM_DOES_NOT_EXIST");
		expect(hidden.body.stream).toBe("hidden");
	});

	test("removing others: administrators may; members may not, except their own bots", async () => {
		expectSuccess(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [bot.user_id] }));
		expectError(await as(member2).delete("/users/me/subscriptions", { subscriptions: ["general"], principals: [member.user_id] }), 400, "BAD_REQUEST", "Insufficient permission");
		expectError(await as(member2).delete("/users/me/subscriptions", { subscriptions: ["general"], principals: [bot.user_id] }), 400, "BAD_REQUEST", "Insufficient permission");
		expect(await subscribers("general")).toEqual(expect.arrayContaining([member.user_id, bot.user_id]));
		const own = await as(member).delete("/users/me/subscriptions", { subscriptions: ["general"], principals: [bot.user_id] });
		expect(own.body.removed).toEqual(["general"]);
		const byAdmin = await as(admin).delete("/users/me/subscriptions", { subscriptions: ["general"], principals: [member2.user_id] });
		expect(byAdmin.body.removed).toEqual(["general"]);
		expect(await subscribers("general")).not.toContain(member2.user_id);
	});

	test("a channel's can_remove_subscribers_group lets its members remove others", async () => {
		const moderators = (await owner.get("/user_groups")).body.user_groups.find((g: { name: string }) => g.name === "role:moderators").id;
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "modded" }], principals: [1, member.user_id], can_remove_subscribers_group: moderators }));
		expectError(await as(member2).delete("/users/me/subscriptions", { subscriptions: ["modded"], principals: [member.user_id] }), 400, "BAD_REQUEST", "Insufficient permission");
		const res = await as(moderator).delete("/users/me/subscriptions", { subscriptions: ["modded"], principals: [member.user_id] });
		expect(res.body.removed).toEqual(["modded"]);
	});

	test("unknown or deactivated principals are a 400 'No such user'", async () => {
		expectError(await owner.delete("/users/me/subscriptions", { subscriptions: ["general"], principals: [999999] }), 400, "BAD_REQUEST", "No such user");
		expectError(await owner.delete("/users/me/subscriptions", { subscriptions: ["general"], principals: ["nobody@chat.test"] }), 400, "BAD_REQUEST", "No such user");
	});

	test("missing subscriptions is named", async () => {
		expectError(await owner.delete("/users/me/subscriptions", {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'subscriptions' argument");
	});
});

describe("archiving", () => {
	test("only channel administrators archive; archived channels leave the default lists", async () => {
		expectSuccess(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: "old-news" }] }));
		const id = await idOf("old-news");
		expectError(await as(member2).delete(`/streams/${id}`), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		expectSuccess(await as(member).delete(`/streams/${id}`));
		expectError(await as(member).delete(`/streams/${id}`), 400, "BAD_REQUEST", "Channel is already archived");
		expect(await streamNames(as(member))).not.toContain("old-news");
		expect(await streamNames(as(member), { exclude_archived: false })).toContain("old-news");
		expect((await as(member).get(`/streams/${id}`)).body.stream.is_archived).toBe(true);
		expectError(await as(member2).post("/users/me/subscriptions", { subscriptions: [{ name: "old-news" }] }), 400, "BAD_REQUEST", "Unable to access channel (old-news).");
		expectError(await as(member).delete("/streams/999999"), 400, "BAD_REQUEST", "Invalid channel ID");
	});
});

describe("in POST /register", () => {
	test("subscriptions, unsubscribed, never_subscribed, streams and default channels", async () => {
		const res = await as(member2).post("/register", { fetch_event_types: ["subscription", "stream", "default_streams"], include_subscribers: true });
		expectSuccess(res);
		const names = (list: Array<{ name: string }>) => list.map((s) => s.name).sort();
		expect(names(res.body.subscriptions)).toEqual(["secret"]);
		expect(names(res.body.unsubscribed)).toEqual(["general", "welcome"]);
		expect(names(res.body.never_subscribed)).toEqual(expect.arrayContaining(["kept-30", "modded"]));
		expect(names(res.body.never_subscribed)).not.toContain("hidden");
		expect(names(res.body.streams)).not.toContain("hidden");
		expect(names(res.body.realm_default_streams)).toEqual(["welcome"]);
		expect(res.body.subscriptions[0].subscribers).toEqual(expect.arrayContaining([member.user_id, member2.user_id]));
		const guestView = await as(guest).post("/register", { fetch_event_types: ["default_streams"] });
		expect(guestView.body.realm_default_streams).toEqual([]);
	});
});

// Last, since it adds a channel the listings above do not expect.
describe("concurrent requests", () => {
	test("the same subscription asked for several times at once: every request succeeds, one subscription", async () => {
		const results = await Promise.all(Array.from({ length: 6 }, () => as(member2).post("/users/me/subscriptions", { subscriptions: [{ name: "stampede" }] })));
		for (const res of results) expectSuccess(res);
		const subs = (await as(member2).get("/users/me/subscriptions")).body.subscriptions.filter((c: { name: string }) => c.name === "stampede");
		expect(subs).toHaveLength(1);
	});
});

describe("null where a string is expected", () => {
	test("a null channel name or description, in a JSON body, is a 400 and creates or changes nothing", async () => {
		const before = await streamNames(owner);
		expectError(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: null }] }, { json: true }), 400, "BAD_REQUEST", 'subscriptions[0]["name"] is not a string');
		expectError(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "nulls", description: null }] }, { json: true }), 400, "BAD_REQUEST", 'subscriptions[0]["description"] is not a string');
		expect(await streamNames(owner)).toEqual(before);
		await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "described", description: "kept" }] });
		const id = await idOf("described");
		expectError(await owner.patch(`/streams/${id}`, { description: null }, { json: true }), 400, "BAD_REQUEST", "description is not a string");
		expectError(await owner.post("/channel_folders/create", { name: null, description: "" }, { json: true }), 400, "BAD_REQUEST", "name is not a string");
		expect((await owner.get(`/streams/${id}`)).body.stream.description).toBe("kept");
	});
});
