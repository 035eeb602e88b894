// Organization settings over the API (PATCH /realm): who may change what, Zulip's errors for every
// bad value (nothing changes), POST /register and `realm` events reflecting each change at once,
// and the change taking effect in the other services at once (edit time limits, the topics
// policy, organization-level group settings). The management CLI's path is the same.
import { startTestApp, type TestApp, type Account, type Cast } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues } from "../support/events";
import { clock } from "../../shared/clock";

let app: TestApp;
let snaps: Snapshotter;
let owner: Client;
let cast: Cast;
let groups: Record<string, number>;
let general: number;
let privateChannel: number;
const as = (a: Account) => client(app.baseUrl, a);

async function realmState(c: Client = owner) {
	const res = await c.post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
	expectSuccess(res);
	return res.body as Record<string, any>;
}

const patchAs = (c: Client, params: Record<string, unknown>) => () => c.patch("/realm", params);

beforeAll(async () => {
	app = await startTestApp();
	snaps = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	cast = await app.createCast();
	const listed = await owner.get("/user_groups");
	groups = Object.fromEntries(listed.body.user_groups.map((g: any) => [g.name, g.id]));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [cast.member.user_id, cast.admin.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "mods" }], invite_only: true }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	privateChannel = (await owner.get("/get_stream_id", { stream: "mods" })).body.stream_id;
});

afterAll(async () => {
	clock.reset();
	await snaps?.close();
	await app?.stop();
});

describe("permissions", () => {
	test("members, moderators and guests are refused; nothing changes", async () => {
		for (const u of [cast.member, cast.moderator, cast.guest]) {
			await snaps.refused(patchAs(as(u), { name: "Mine" }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		}
		await snaps.refused(() => client(app.baseUrl).patch("/realm", { name: "Mine" }), 401, "UNAUTHORIZED", /./);
	});

	test("a non-administrator hears about the permission before any parameter error, as in Zulip", async () => {
		await snaps.refused(patchAs(as(cast.member), { waiting_period_threshold: "soon" }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		const playground = await as(cast.member).post("/realm/playgrounds", { name: 5 });
		expect([playground.status, playground.body.code]).toEqual([400, "UNAUTHORIZED_PRINCIPAL"]);
		const linkifier = await as(cast.member).patch("/realm/filters/999999", { url_template: 7 });
		expect([linkifier.status, linkifier.body.code]).toEqual([400, "UNAUTHORIZED_PRINCIPAL"]);
	});

	test("owner-only settings refuse administrators", async () => {
		const admin = as(cast.admin);
		await snaps.refused(patchAs(admin, { waiting_period_threshold: 3 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		for (const name of ["can_create_groups", "can_invite_users_group", "can_manage_all_groups", "create_multiuse_invite_group"]) {
			await snaps.refused(patchAs(admin, { [name]: JSON.stringify({ new: groups["role:administrators"] }) }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
		}
		// Together with settings an administrator may change, nothing is written either.
		await snaps.refused(patchAs(admin, { name: "X", waiting_period_threshold: 3 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
	});
});

describe("values", () => {
	test("name and description: answered as updated, in POST /register and realm events at once", async () => {
		const queue = await as(cast.member).post("/register", { event_types: JSON.stringify(["realm"]) });
		const res = await as(cast.admin).patch("/realm", { name: "Acme", description: "We **build**" });
		expectSuccess(res);
		expect(res.body).toMatchObject({ name: "updated", description: "updated" });
		const state = await realmState(as(cast.member));
		expect(state).toMatchObject({ realm_name: "Acme", realm_description: "We **build**" });
		const events = await as(cast.member).get("/events", { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true });
		expect(events.body.events.map(({ id: _id, ...e }: any) => e)).toEqual([
			{ type: "realm", op: "update", property: "name", value: "Acme" },
			{ type: "realm", op: "update", property: "description", value: "We **build**" },
		]);
		expect((await owner.get("/server_settings")).body.realm_name).toBe("Acme");
		// The same values again change nothing and announce nothing.
		const again = await as(cast.admin).patch("/realm", { name: "Acme" });
		expectSuccess(again);
		expect(again.body.name).toBeUndefined();
	});

	test("name and description lengths", async () => {
		await snaps.refused(patchAs(owner, { name: "n".repeat(41) }), 400, "BAD_REQUEST", "name is too long (limit: 40 characters)");
		await snaps.refused(patchAs(owner, { description: "d".repeat(1001) }), 400, "BAD_REQUEST", "description is too long (limit: 1000 characters)");
		expectSuccess(await owner.patch("/realm", { name: "n".repeat(40), description: "d".repeat(1000) }));
	});

	test("time limits: seconds or unlimited; anything else is Zulip's Bad value", async () => {
		for (const name of ["message_content_edit_limit_seconds", "message_content_delete_limit_seconds", "move_messages_within_stream_limit_seconds", "move_messages_between_streams_limit_seconds"]) {
			for (const bad of [0, -5, "forever"]) await snaps.refused(patchAs(owner, { [name]: bad }), 400, "BAD_REQUEST", `Bad value for '${name}': ${bad}`);
			await snaps.refused(patchAs(owner, { [name]: JSON.stringify([1]) }), 400, "BAD_REQUEST", /./);
			const res = await owner.patch("/realm", { [name]: "unlimited" });
			expectSuccess(res);
			expect(res.body[name]).toBeNull();
			expect((await realmState())[`realm_${name}`]).toBeNull();
			expectSuccess(await owner.patch("/realm", { [name]: 3600 }));
			expect((await realmState())[`realm_${name}`]).toBe(3600);
		}
	});

	test("booleans and choices", async () => {
		await snaps.refused(patchAs(owner, { allow_message_editing: "maybe" }), 400, "BAD_REQUEST", "allow_message_editing is not a boolean");
		await snaps.refused(patchAs(owner, { enable_spectator_access: 3 }), 400, "BAD_REQUEST", "enable_spectator_access is not a boolean");
		await snaps.refused(patchAs(owner, { message_edit_history_visibility_policy: "some" }), 400, "BAD_REQUEST", "Invalid message_edit_history_visibility_policy");
		await snaps.refused(patchAs(owner, { topics_policy: "empty_topic_only" }), 400, "BAD_REQUEST", "Invalid topics_policy");
		await snaps.refused(patchAs(owner, { waiting_period_threshold: -1 }), 400, "BAD_REQUEST", /waiting_period_threshold/);
		await snaps.refused(patchAs(owner, { waiting_period_threshold: "soon" }), 400, "BAD_REQUEST", "waiting_period_threshold is not an integer");
		expectSuccess(await owner.patch("/realm", { allow_message_editing: false, enable_spectator_access: true, message_edit_history_visibility_policy: "moves", waiting_period_threshold: 7 }));
		expect(await realmState()).toMatchObject({
			realm_allow_message_editing: false,
			realm_enable_spectator_access: true,
			realm_message_edit_history_visibility_policy: "moves",
			realm_waiting_period_threshold: 7,
		});
		expectSuccess(await owner.patch("/realm", { allow_message_editing: true, message_edit_history_visibility_policy: "all", waiting_period_threshold: 0 }));
	});

	test("moderation_request_channel_id: a private channel, or -1", async () => {
		await snaps.refused(patchAs(owner, { moderation_request_channel_id: 99_999 }), 400, "BAD_REQUEST", "Invalid channel ID");
		await snaps.refused(patchAs(owner, { moderation_request_channel_id: general }), 400, "BAD_REQUEST", "Moderation request channel must be private.");
		await snaps.refused(patchAs(owner, { moderation_request_channel_id: "x" }), 400, "BAD_REQUEST", "moderation_request_channel_id is not an integer");
		const queue = await as(cast.member).post("/register", { event_types: JSON.stringify(["realm"]) });
		expectSuccess(await as(cast.admin).patch("/realm", { moderation_request_channel_id: privateChannel }));
		expect((await realmState()).realm_moderation_request_channel_id).toBe(privateChannel);
		expectSuccess(await owner.patch("/realm", { moderation_request_channel_id: -1 }));
		expect((await realmState()).realm_moderation_request_channel_id).toBe(-1);
		const events = await as(cast.member).get("/events", { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true });
		expect(events.body.events.map((e: any) => [e.op, e.property, e.value])).toEqual([
			["update", "moderation_request_channel_id", privateChannel],
			["update", "moderation_request_channel_id", -1],
		]);
		// An archived channel cannot be chosen.
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "old-mods" }], invite_only: true }));
		const archived = (await owner.get("/get_stream_id", { stream: "old-mods" })).body.stream_id;
		expectSuccess(await owner.delete(`/streams/${archived}`));
		await snaps.refused(patchAs(owner, { moderation_request_channel_id: archived }), 400, "BAD_REQUEST", "Invalid channel ID");
	});
});

describe("archiving a channel", () => {
	test("clears the settings naming it: POST /register shows -1 and every user gets one realm update_dict", async () => {
		const create = async (name: string, invite_only: boolean) => {
			expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], invite_only }));
			return (await owner.get("/get_stream_id", { stream: name })).body.stream_id as number;
		};
		const going = await create("going", true);
		const staying = await create("staying", false);
		const unnamed = await create("unnamed", false);
		expectSuccess(
			await owner.patch("/realm", {
				moderation_request_channel_id: going,
				new_stream_announcements_stream_id: going,
				signup_announcements_stream_id: staying,
				zulip_update_announcements_stream_id: going,
			}),
		);
		const read = await eventQueues(as, [cast.member, cast.guest], { register: { event_types: JSON.stringify(["realm"]) } });

		expectSuccess(await owner.delete(`/streams/${going}`));
		expect(await realmState(as(cast.member))).toMatchObject({
			realm_moderation_request_channel_id: -1,
			realm_new_stream_announcements_stream_id: -1,
			realm_signup_announcements_stream_id: staying,
			realm_zulip_update_announcements_stream_id: -1,
		});
		const cleared = { moderation_request_channel_id: -1, new_stream_announcements_stream_id: -1, zulip_update_announcements_stream_id: -1 };
		for (const u of [cast.member, cast.guest]) expect(await read(u)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: cleared }]);

		// A channel no setting names: nothing changes, nothing is announced.
		expectSuccess(await owner.delete(`/streams/${unnamed}`));
		expect((await realmState()).realm_signup_announcements_stream_id).toBe(staying);
		expect(await read(cast.member)).toEqual([]);
		expectSuccess(await owner.delete(`/streams/${staying}`));
		expect((await realmState()).realm_signup_announcements_stream_id).toBe(-1);
		expect(await read(cast.member)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: { signup_announcements_stream_id: -1 } }]);
	});
});

describe("group settings", () => {
	const setting = "can_create_public_channel_group";

	test("{new, old} values; Zulip's limits on which groups a setting may name", async () => {
		const members = groups["role:members"];
		await snaps.refused(patchAs(owner, { [setting]: JSON.stringify(groups["role:moderators"]) }), 400, "BAD_REQUEST", `Invalid ${setting}`);
		await snaps.refused(patchAs(owner, { [setting]: "{" }), 400, "BAD_REQUEST", /not valid JSON/);
		await snaps.refused(patchAs(owner, { [setting]: JSON.stringify({ new: 99_999 }) }), 400, "BAD_REQUEST", "Invalid user group ID: 99999");
		await snaps.refused(patchAs(owner, { [setting]: JSON.stringify({ new: { direct_members: [99_999], direct_subgroups: [] } }) }), 400, "BAD_REQUEST", "Invalid user ID: 99999");
		await snaps.refused(patchAs(owner, { [setting]: JSON.stringify({ new: "admins" }) }), 400, "BAD_REQUEST", `Invalid ${setting}`);
		await snaps.refused(patchAs(owner, { [setting]: JSON.stringify({ new: groups["role:moderators"], old: groups["role:owners"] }) }), 400, "BAD_REQUEST", `'old' value for ${setting} does not match expected value.`);
		await snaps.refused(patchAs(owner, { [setting]: JSON.stringify({ new: groups["role:everyone"] }) }), 400, "BAD_REQUEST", `'${setting}' setting cannot be set to 'role:everyone' group.`);
		await snaps.refused(patchAs(owner, { [setting]: JSON.stringify({ new: groups["role:internet"] }) }), 400, "BAD_REQUEST", `'${setting}' setting cannot be set to 'role:internet' group.`);
		await snaps.refused(patchAs(owner, { can_manage_all_groups: JSON.stringify({ new: groups["role:nobody"] }) }), 400, "BAD_REQUEST", "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.");
		await snaps.refused(patchAs(owner, { create_multiuse_invite_group: JSON.stringify({ new: groups["role:everyone"] }) }), 400, "BAD_REQUEST", "'create_multiuse_invite_group' setting cannot be set to 'role:everyone' group.");
		await snaps.refused(
			patchAs(owner, { can_create_web_public_channel_group: JSON.stringify({ new: groups["role:members"] }) }),
			400,
			"BAD_REQUEST",
			"'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.",
		);
		await snaps.refused(
			patchAs(owner, { can_create_web_public_channel_group: JSON.stringify({ new: { direct_members: [cast.admin.user_id], direct_subgroups: [] } }) }),
			400,
			"BAD_REQUEST",
			"'can_create_web_public_channel_group' must be a system user group.",
		);

		const queue = await as(cast.member).post("/register", { event_types: JSON.stringify(["realm"]) });
		const res = await as(cast.admin).patch("/realm", { [setting]: JSON.stringify({ new: groups["role:nobody"], old: members }) });
		expectSuccess(res);
		expect(res.body[setting]).toBe(groups["role:nobody"]);
		const state = await realmState(as(cast.member));
		expect(state[`realm_${setting}`]).toBe(groups["role:nobody"]);
		const events = await as(cast.member).get("/events", { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true });
		expect(events.body.events.map(({ id: _id, ...e }: any) => e)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: { [setting]: groups["role:nobody"] } }]);
	});

	test("the channels service applies the change at once", async () => {
		await snaps.refused(() => as(cast.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "new-public" }] }), 400, "BAD_REQUEST", "Insufficient permission");
		const anonymous = { direct_members: [cast.member.user_id], direct_subgroups: [groups["role:administrators"]] };
		expectSuccess(await owner.patch("/realm", { [setting]: JSON.stringify({ new: anonymous }) }));
		expect((await realmState())[`realm_${setting}`]).toEqual(anonymous);
		expectSuccess(await as(cast.member).post("/users/me/subscriptions", { subscriptions: [{ name: "new-public" }] }));
		await snaps.refused(() => as(cast.member2).post("/users/me/subscriptions", { subscriptions: [{ name: "other-public" }] }), 400, "BAD_REQUEST", "Insufficient permission");
		// `old` as an anonymous group, members in another order.
		const reordered = { direct_members: [cast.member.user_id], direct_subgroups: [groups["role:administrators"]] };
		expectSuccess(await owner.patch("/realm", { [setting]: JSON.stringify({ new: groups["role:members"], old: reordered }) }));
	});

	test("owners change owner-only settings", async () => {
		expectSuccess(await owner.patch("/realm", { can_manage_all_groups: JSON.stringify({ new: groups["role:administrators"] }), can_invite_users_group: JSON.stringify({ new: groups["role:nobody"] }) }));
		expect(await realmState()).toMatchObject({ realm_can_manage_all_groups: groups["role:administrators"], realm_can_invite_users_group: groups["role:nobody"] });
	});
});

describe("other services see each change at once", () => {
	test("message_content_edit_limit_seconds decides whether an edit is allowed", async () => {
		expectSuccess(await owner.patch("/realm", { message_content_edit_limit_seconds: 60 }));
		const id = await sendMessage(as(cast.member), { type: "stream", to: general, topic: "t", content: "first" });
		clock.advance(120_000);
		await snaps.refused(() => as(cast.member).patch(`/messages/${id}`, { content: "second" }), 400, "BAD_REQUEST", "The time limit for editing this message has passed");
		expectSuccess(await as(cast.admin).patch("/realm", { message_content_edit_limit_seconds: "unlimited" }));
		expectSuccess(await as(cast.member).patch(`/messages/${id}`, { content: "second" }));
	});

	test("topics_policy applies to channels that inherit it", async () => {
		expectSuccess(await owner.patch("/realm", { topics_policy: "disable_empty_topic" }));
		expect(await realmState()).toMatchObject({ realm_topics_policy: "disable_empty_topic", realm_mandatory_topics: true });
		await snaps.refused(
			() => as(cast.member).post("/messages", { type: "stream", to: general, topic: "", content: "hi" }),
			400,
			"BAD_REQUEST",
			"Sending messages to the general chat is not allowed in this channel.",
		);
		const queue = await as(cast.member).post("/register", { event_types: JSON.stringify(["realm"]) });
		expectSuccess(await owner.patch("/realm", { topics_policy: "allow_empty_topic" }));
		await sendMessage(as(cast.member), { type: "stream", to: general, topic: "", content: "hi" });
		const events = await as(cast.member).get("/events", { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true });
		expect(events.body.events.map(({ id: _id, ...e }: any) => e)).toEqual([
			{ type: "realm", op: "update_dict", property: "default", data: { topics_policy: "allow_empty_topic", mandatory_topics: false } },
		]);
	});

	test("the management CLI's realm-setting takes the same path", async () => {
		await app.node.broker.call("users.setRealmSetting", { name: "realm_message_content_edit_limit_seconds", value: 30 });
		expect((await realmState()).realm_message_content_edit_limit_seconds).toBe(30);
		await app.node.broker.call("users.setRealmSetting", { name: "realm_description", value: "From the CLI" });
		expect((await realmState()).realm_description).toBe("From the CLI");
	});
});
