// PATCH /streams/{stream_id}: every parameter with good and bad values, who may change what
// (administrators, channel administrators, the private-channel rule), and nothing changed on error.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let admin: Account;
let moderator: Account;
let member: Account;
let member2: Account;
let guest: Account;
const as = (a: Account) => client(app.baseUrl, a);
const groups: Record<string, number> = {};

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	({ admin, moderator, member, member2, guest } = await app.createCast());
	for (const g of (await owner.get("/user_groups")).body.user_groups) groups[g.name] = g.id;
});
afterAll(() => app.stop());

let counter = 0;
/** A fresh channel created (and so administered) by `creator`. */
async function channel(creator: Account | "owner", extra: Record<string, unknown> = {}): Promise<number> {
	const name = `edit-${++counter}`;
	const c = creator === "owner" ? owner : as(creator);
	expectSuccess(await c.post("/users/me/subscriptions", { subscriptions: [{ name }], ...extra }));
	return (await owner.get("/get_stream_id", { stream: name })).body.stream_id;
}
async function stream(id: number): Promise<any> {
	const res = await owner.get(`/streams/${id}`);
	return res.body.stream;
}

describe("name and description", () => {
	test("the channel's administrator renames it and edits its description", async () => {
		const id = await channel(member);
		expectSuccess(await as(member).patch(`/streams/${id}`, { new_name: "Renamed here", description: "About <things>" }));
		expect(await stream(id)).toMatchObject({ name: "Renamed here", description: "About <things>", rendered_description: "<p>About &lt;things&gt;</p>" });
	});

	test("others may not, except organization administrators", async () => {
		const id = await channel(member);
		const before = await stream(id);
		for (const who of [member2, moderator, guest]) {
			const res = await as(who).patch(`/streams/${id}`, { description: "mine now" });
			expect(res.body.result).toBe("error");
		}
		expect(await stream(id)).toEqual(before);
		expectSuccess(await as(admin).patch(`/streams/${id}`, { description: "fixed by admin" }));
		expect((await stream(id)).description).toBe("fixed by admin");
	});

	test.each([
		[{ new_name: "" }, "Channel name can't be empty."],
		[{ new_name: "x".repeat(61) }, "Channel name too long (limit: 60 characters)."],
		[{ new_name: "bad\u0001" }, "Invalid character in channel name, at position 4."],
		[{ description: "d".repeat(1025) }, "description is too long (limit: 1024 characters)"],
	])("%j is refused and nothing changes", async (change, msg) => {
		const id = await channel("owner");
		const before = await stream(id);
		expectError(await owner.patch(`/streams/${id}`, change), 400, "BAD_REQUEST", msg);
		expect(await stream(id)).toEqual(before);
	});

	test("renaming to the current name is refused, as Zulip does; a change of case is a rename", async () => {
		const id = await channel("owner");
		const before = await stream(id);
		for (const same of [before.name, `  ${before.name} `]) {
			expectError(await owner.patch(`/streams/${id}`, { new_name: same }), 400, "BAD_REQUEST", "Channel already has that name.");
		}
		// Refused whole: nothing else in the request is applied either.
		expectError(await owner.patch(`/streams/${id}`, { new_name: before.name, description: "not applied" }), 400, "BAD_REQUEST", "Channel already has that name.");
		expect(await stream(id)).toEqual(before);
		expectSuccess(await owner.patch(`/streams/${id}`, { new_name: before.name.toUpperCase() }));
		expect((await stream(id)).name).toBe(before.name.toUpperCase());
		// Only the channel's administrators may try, and they get the same answer.
		expectError(await as(member2).patch(`/streams/${id}`, { new_name: before.name.toUpperCase() }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		expectError(await owner.patch(`/streams/${id}`, { new_name: 5 }, { json: true }), 400, "BAD_REQUEST", "new_name is not a string");
		expect((await stream(id)).name).toBe(before.name.toUpperCase());
	});

	test("a name already in use (in any case) is refused", async () => {
		const a = await channel("owner");
		const b = await channel("owner");
		const nameA = (await stream(a)).name;
		expectError(await owner.patch(`/streams/${b}`, { new_name: nameA.toUpperCase() }), 400, "BAD_REQUEST", `Channel '${nameA.toUpperCase()}' already exists`);
	});

	test("unknown channels, hidden channels and wrong types", async () => {
		expectError(await owner.patch("/streams/999999", { description: "x" }), 400, "BAD_REQUEST", "Invalid channel ID");
		const hidden = await channel(admin, { invite_only: true });
		expectError(await as(member).patch(`/streams/${hidden}`, { description: "x" }), 400, "BAD_REQUEST", "Invalid channel ID");
		const id = await channel("owner");
		expectError(await owner.patch(`/streams/${id}`, { is_private: "maybe" }), 400, "BAD_REQUEST", "is_private is not a boolean");
		expectError(await owner.patch(`/streams/${id}`, { can_send_message_group: "{" }), 400, "BAD_REQUEST", 'Argument "can_send_message_group" is not valid JSON.');
	});

	test("removed parameters are reported as unsupported", async () => {
		const id = await channel("owner");
		const res = await owner.patch(`/streams/${id}`, { stream_post_policy: 2, is_announcement_only: true, description: "d" });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported.sort()).toEqual(["is_announcement_only", "stream_post_policy"]);
		expect((await stream(id)).stream_post_policy).toBe(1);
	});
});

describe("privacy and history", () => {
	test("public to private and back; history follows the rules", async () => {
		const id = await channel("owner");
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true, history_public_to_subscribers: false }));
		expect(await stream(id)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: false }));
		expect(await stream(id)).toMatchObject({ invite_only: false, history_public_to_subscribers: true });
	});

	test("is_private alone sets the history as Zulip does: protected when private, public when not", async () => {
		const id = await channel("owner");
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true }));
		expect(await stream(id)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
		expectSuccess(await owner.patch(`/streams/${id}`, { history_public_to_subscribers: true }));
		expect(await stream(id)).toMatchObject({ invite_only: true, history_public_to_subscribers: true });
		// Given again, is_private sets the history again, even on a private channel.
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true }));
		expect(await stream(id)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: false }));
		expect(await stream(id)).toMatchObject({ invite_only: false, history_public_to_subscribers: true });
		// Both given: the history as asked.
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true, history_public_to_subscribers: true }));
		expect(await stream(id)).toMatchObject({ invite_only: true, history_public_to_subscribers: true });
	});

	test("bad privacy values change nothing", async () => {
		const id = await channel("owner");
		const before = await stream(id);
		expectError(await owner.patch(`/streams/${id}`, { is_private: true, history_public_to_subscribers: "no" }), 400, "BAD_REQUEST", "history_public_to_subscribers is not a boolean");
		expectError(await owner.patch(`/streams/${id}`, { history_public_to_subscribers: false, is_private: false }), 400, "BAD_REQUEST", "Invalid parameters");
		expectError(await as(member2).patch(`/streams/${id}`, { is_private: true }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		expectError(await owner.patch("/streams/999999", { is_private: true }), 400, "BAD_REQUEST", "Invalid channel ID");
		expect(await stream(id)).toEqual(before);
	});

	test("history_public_to_subscribers false is refused for a public channel", async () => {
		const id = await channel("owner");
		expectError(await owner.patch(`/streams/${id}`, { history_public_to_subscribers: false }), 400, "BAD_REQUEST", "Invalid parameters");
		expectError(await owner.patch(`/streams/${id}`, { is_private: false, history_public_to_subscribers: false }), 400, "BAD_REQUEST", "Invalid parameters");
		expect((await stream(id)).history_public_to_subscribers).toBe(true);
	});

	test("is_web_public needs the server setting, which is off", async () => {
		const id = await channel("owner");
		expectError(await owner.patch(`/streams/${id}`, { is_web_public: true }), 400, "BAD_REQUEST", "Web-public channels are not enabled.");
		expect((await stream(id)).is_web_public).toBe(false);
	});

	test("a private channel's permissions change only with content access, even for administrators", async () => {
		const id = await channel(member, { invite_only: true, can_administer_channel_group: groups["role:administrators"] });
		expectError(await as(admin).patch(`/streams/${id}`, { is_private: false }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		expectError(await as(admin).patch(`/streams/${id}`, { can_send_message_group: { new: groups["role:administrators"] } }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		// Metadata access is enough for these two.
		expectSuccess(await as(admin).patch(`/streams/${id}`, { can_remove_subscribers_group: { new: groups["role:moderators"] } }));
		expect((await stream(id)).can_remove_subscribers_group).toBe(groups["role:moderators"]);
		// Subscribed, the administrator may.
		expectSuccess(await as(member).post("/users/me/subscriptions", { subscriptions: [{ name: (await stream(id)).name }], principals: [admin.user_id] }));
		expectSuccess(await as(admin).patch(`/streams/${id}`, { is_private: false }));
		expect((await stream(id)).invite_only).toBe(false);
	});

	test("guests may not change privacy", async () => {
		const id = await channel("owner", { principals: [guest.user_id, 1] });
		expectError(await as(guest).patch(`/streams/${id}`, { is_private: true }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
	});
});

describe("default, retention, archive, folder, topics policy", () => {
	test("is_default_stream: administrators only; never for a private channel", async () => {
		const id = await channel(member);
		expectError(await as(member).patch(`/streams/${id}`, { is_default_stream: true }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectSuccess(await as(admin).patch(`/streams/${id}`, { is_default_stream: true }));
		expectError(await as(admin).patch(`/streams/${id}`, { is_private: true }), 400, "BAD_REQUEST", "A default channel cannot be private.");
		expectSuccess(await as(admin).patch(`/streams/${id}`, { is_default_stream: false }));
		const priv = await channel("owner", { invite_only: true });
		expectError(await owner.patch(`/streams/${priv}`, { is_default_stream: true }), 400, "BAD_REQUEST", "A default channel cannot be private.");
	});

	test("message_retention_days: owners only, in its three forms", async () => {
		const id = await channel(member);
		expectError(await as(admin).patch(`/streams/${id}`, { message_retention_days: 10 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		for (const [value, stored] of [[10, 10], ["unlimited", -1], ["realm_default", null], ["7", 7]] as const) {
			expectSuccess(await owner.patch(`/streams/${id}`, { message_retention_days: value }));
			expect((await stream(id)).message_retention_days).toBe(stored);
		}
		for (const bad of [0, -5, "forever", "1.5"]) {
			expectError(await owner.patch(`/streams/${id}`, { message_retention_days: bad }), 400, "BAD_REQUEST");
		}
		expect((await stream(id)).message_retention_days).toBe(7);
	});

	test("message_retention_days JSON-encoded, as Zulip's web app sends it", async () => {
		const id = await channel(member);
		for (const [value, stored] of [['"unlimited"', -1], ['"realm_default"', null], ["30", 30], ['"unlimited"', -1]] as const) {
			expectSuccess(await owner.patch(`/streams/${id}`, { message_retention_days: value }));
			expect((await stream(id)).message_retention_days).toBe(stored);
		}
		for (const bad of ['"forever"', '"-3"', "0", '""', '"unlimited']) {
			expectError(await owner.patch(`/streams/${id}`, { message_retention_days: bad }), 400, "BAD_REQUEST", "Bad value for 'message_retention_days'");
		}
		expectError(await as(admin).patch(`/streams/${id}`, { message_retention_days: '"unlimited"' }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		expect((await stream(id)).message_retention_days).toBe(-1);
	});

	test("is_archived only unarchives; archived channels take no other edits", async () => {
		const id = await channel(member);
		expectError(await as(member).patch(`/streams/${id}`, { is_archived: true }), 400, "BAD_REQUEST", /only unarchives/);
		expectSuccess(await as(member).delete(`/streams/${id}`));
		expectError(await as(member).patch(`/streams/${id}`, { description: "x" }), 400, "BAD_REQUEST", /unarchive the channel first/);
		expectError(await as(member2).patch(`/streams/${id}`, { is_archived: false }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		expectSuccess(await as(member).patch(`/streams/${id}`, { is_archived: false }));
		expect((await stream(id)).is_archived).toBe(false);
	});

	test("an archived channel's privacy can be changed", async () => {
		const id = await channel("owner");
		expectSuccess(await owner.delete(`/streams/${id}`));
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true }));
		expect(await stream(id)).toMatchObject({ is_archived: true, invite_only: true });
	});

	test("folder_id: an existing folder, or null to leave it", async () => {
		const id = await channel("owner");
		expectError(await owner.patch(`/streams/${id}`, { folder_id: 999999 }), 400, "BAD_REQUEST", "Invalid channel folder ID");
		const folder = (await owner.post("/channel_folders/create", { name: "Engineering", description: "Builds things" })).body.channel_folder_id;
		expectSuccess(await owner.patch(`/streams/${id}`, { folder_id: folder }));
		expect((await stream(id)).folder_id).toBe(folder);
		expectSuccess(await owner.patch(`/streams/${id}`, { folder_id: null }));
		expect((await stream(id)).folder_id).toBeNull();
		expectSuccess(await owner.patch(`/channel_folders/${folder}`, { is_archived: true }));
		expectError(await owner.patch(`/streams/${id}`, { folder_id: folder }), 400, "BAD_REQUEST", "Invalid channel folder ID");
	});

	test("topics_policy: the four values; empty_topic_only only while every message is in the empty topic", async () => {
		// Created so, the channel has its creation notice in the empty topic, as in Zulip.
		const id = await channel("owner", { topics_policy: "empty_topic_only" });
		expect((await stream(id)).topics_policy).toBe("empty_topic_only");
		for (const policy of ["empty_topic_only", "allow_empty_topic", "disable_empty_topic", "inherit"]) {
			expectSuccess(await owner.patch(`/streams/${id}`, { topics_policy: policy }));
			expect((await stream(id)).topics_policy).toBe(policy);
		}
		expectError(await owner.patch(`/streams/${id}`, { topics_policy: "never" }), 400, "BAD_REQUEST", "Invalid topics_policy");
		// The notices of those changes are in "channel events", a named topic (the messages
		// service's message.sent says so).
		expectError(await owner.patch(`/streams/${id}`, { topics_policy: "empty_topic_only" }), 400, "BAD_REQUEST", /must be in the general chat topic/);
		expect(await stream(id)).toMatchObject({ topics_policy: "inherit", first_message_id: expect.any(Number), is_recently_active: true });
	});
});

describe("group settings as {new, old}", () => {
	test("every group setting changes with {new}; a stale old changes nothing", async () => {
		const id = await channel("owner");
		const settings = [
			"can_add_subscribers_group",
			"can_remove_subscribers_group",
			"can_administer_channel_group",
			"can_delete_any_message_group",
			"can_delete_own_message_group",
			"can_move_messages_out_of_channel_group",
			"can_move_messages_within_channel_group",
			"can_send_message_group",
		];
		for (const key of settings) {
			const current = (await stream(id))[key];
			expectError(await owner.patch(`/streams/${id}`, { [key]: { new: groups["role:moderators"], old: groups["role:internet"] } }), 400, "BAD_REQUEST", `'old' value for ${key} does not match expected value.`);
			expect((await stream(id))[key]).toEqual(current);
			expectSuccess(await owner.patch(`/streams/${id}`, { [key]: { new: groups["role:moderators"], old: current } }));
			expect((await stream(id))[key]).toBe(groups["role:moderators"]);
		}
		expectSuccess(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: { direct_members: [member.user_id], direct_subgroups: [groups["role:administrators"]] } } }));
		expect((await stream(id)).can_send_message_group).toEqual({ direct_members: [member.user_id], direct_subgroups: [groups["role:administrators"]] });
	});

	test("the deprecated stream_post_policy follows can_send_message_group", async () => {
		const id = await channel("owner");
		expectSuccess(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups["role:administrators"] } }));
		expect(await stream(id)).toMatchObject({ stream_post_policy: 2, is_announcement_only: true });
		expectSuccess(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups["role:moderators"] } }));
		expect(await stream(id)).toMatchObject({ stream_post_policy: 4, is_announcement_only: false });
	});

	test.each([
		[{ new: 999999 }, "Invalid user group ID: 999999"],
		[{ new: { direct_members: [999999], direct_subgroups: [] } }, "Invalid user ID: 999999"],
		[{ new: "everyone" }, "Invalid can_send_message_group"],
		[7, "Invalid can_send_message_group"],
	])("%j is refused", async (value, msg) => {
		const id = await channel("owner");
		const before = (await stream(id)).can_send_message_group;
		expectError(await owner.patch(`/streams/${id}`, { can_send_message_group: value }), 400, "BAD_REQUEST", msg);
		expect((await stream(id)).can_send_message_group).toEqual(before);
	});

	test("a member named in can_administer_channel_group administers the channel", async () => {
		const id = await channel("owner");
		expectError(await as(member2).patch(`/streams/${id}`, { description: "x" }), 400, "BAD_REQUEST", "You do not have permission to administer this channel.");
		expectSuccess(await owner.patch(`/streams/${id}`, { can_administer_channel_group: { new: { direct_members: [member2.user_id], direct_subgroups: [] } } }));
		expectSuccess(await as(member2).patch(`/streams/${id}`, { description: "now mine to edit" }));
	});
});
