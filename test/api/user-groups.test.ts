// User groups: system groups that follow roles, creating and editing groups, members and
// subgroups with who may change them, deactivation, and the group-setting evaluator.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";
import { GroupGraph } from "../../shared/group-settings";

let app: TestApp;
let owner: Client;
let admin: Account;
let moderator: Account;
let member: Account;
let member2: Account;
let guest: Account;
const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	({ admin, moderator, member, member2, guest } = await app.createCast());
});
afterAll(() => app.stop());

async function groups(includeDeactivated = false): Promise<any[]> {
	return (await owner.get("/user_groups", { include_deactivated_groups: includeDeactivated })).body.user_groups;
}
const byName = async (name: string) => (await groups(true)).find((g) => g.name === name);

async function newGroup(c: Client, name: string, extra: Record<string, unknown> = {}): Promise<number> {
	const res = await c.post("/user_groups/create", { name, description: `${name} group`, members: [], ...extra });
	expectSuccess(res);
	return res.body.group_id;
}

describe("system groups", () => {
	test("every organization has them, with members following roles", async () => {
		const list = await groups();
		const sys = Object.fromEntries(list.filter((g) => g.is_system_group).map((g) => [g.name, g]));
		expect(Object.keys(sys).sort()).toEqual(
			["role:administrators", "role:everyone", "role:fullmembers", "role:internet", "role:members", "role:moderators", "role:nobody", "role:owners"].sort(),
		);
		expect(sys["role:owners"].members).toEqual([1]);
		expect(sys["role:administrators"]).toMatchObject({ members: [admin.user_id], direct_subgroup_ids: [sys["role:owners"].id] });
		expect(sys["role:moderators"].direct_subgroup_ids).toEqual([sys["role:administrators"].id]);
		expect(sys["role:everyone"].members).toEqual([guest.user_id]);
		expect(sys["role:nobody"]).toMatchObject({ members: [], direct_subgroup_ids: [] });
	});

	test("recursive membership: everyone includes every active user; members excludes guests", async () => {
		const everyone = await byName("role:everyone");
		const all = (await owner.get(`/user_groups/${everyone.id}/members`)).body.members;
		expect(all).toEqual(expect.arrayContaining([1, admin.user_id, moderator.user_id, member.user_id, guest.user_id]));
		const members = await byName("role:members");
		const notGuests = (await owner.get(`/user_groups/${members.id}/members`)).body.members;
		expect(notGuests).not.toContain(guest.user_id);
		expect(notGuests).toContain(1);
		const direct = (await owner.get(`/user_groups/${members.id}/members`, { direct_member_only: true })).body.members;
		expect(direct).not.toContain(1);
	});

	test("a role change moves the user between system groups at once", async () => {
		const u = await app.createUser({ role: 400 });
		const admins = await byName("role:administrators");
		const isIn = async () => (await owner.get(`/user_groups/${admins.id}/members/${u.user_id}`)).body.is_user_group_member;
		expect(await isIn()).toBe(false);
		expectSuccess(await owner.patch(`/users/${u.user_id}`, { role: 200 }));
		expect(await isIn()).toBe(true);
		expectSuccess(await owner.delete(`/users/${u.user_id}`));
		expect(await isIn()).toBe(false);
	});

	test("system groups cannot be edited, given members, or deactivated", async () => {
		const admins = await byName("role:administrators");
		expectError(await owner.patch(`/user_groups/${admins.id}`, { name: "Admins" }), 400, "BAD_REQUEST", "Insufficient permission");
		expectError(await owner.post(`/user_groups/${admins.id}/members`, { add: [member.user_id] }), 400, "BAD_REQUEST", "Insufficient permission");
		expectError(await owner.post(`/user_groups/${admins.id}/deactivate`), 400, "BAD_REQUEST", "Insufficient permission");
		expect((await byName("role:administrators")).members).toEqual([admin.user_id]);
	});
});

describe("creating", () => {
	test("a member creates a group and manages it; its creator and defaults are recorded", async () => {
		const id = await newGroup(as(member), "Backend", { members: [member.user_id, member2.user_id] });
		const g = await byName("Backend");
		expect(g).toMatchObject({
			id,
			description: "Backend group",
			members: [member.user_id, member2.user_id],
			direct_subgroup_ids: [],
			creator_id: member.user_id,
			is_system_group: false,
			deactivated: false,
			can_manage_group: { direct_members: [member.user_id], direct_subgroups: [] },
			can_mention_group: (await byName("role:everyone")).id,
		});
		expect(g.date_created).toEqual(expect.any(Number));
	});

	test("guests may not create groups", async () => {
		expectError(await as(guest).post("/user_groups/create", { name: "Guests' own", description: "", members: [] }), 400, "BAD_REQUEST", "Insufficient permission");
		expect(await byName("Guests' own")).toBeUndefined();
	});

	test.each([
		[{ name: "" }, "User group name cannot be empty."],
		[{ name: "role:mine" }, "User group name cannot start with 'role:'."],
		[{ name: "n".repeat(101) }, "User group name cannot exceed 100 characters."],
		[{ name: "Backend" }, "User group 'Backend' already exists."],
		[{ name: "Ghosts", members: [999999] }, "Invalid user ID: 999999"],
		[{ name: "Subs", subgroups: [999999] }, "Invalid user group ID: 999999"],
		[{ name: "Setting", can_mention_group: 999999 }, "Invalid user group ID: 999999"],
		[{ name: "Shape", can_mention_group: { members: [1] } }, "Invalid can_mention_group"],
		[{ name: "Long", description: "d".repeat(1025) }, "description is too long (limit: 1024 characters)"],
	])("%j is refused: %s", async (change, msg) => {
		const before = (await groups(true)).length;
		expectError(await owner.post("/user_groups/create", { description: "", members: [], ...change }), 400, "BAD_REQUEST", msg);
		expect((await groups(true)).length).toBe(before);
	});

	test("missing and mistyped parameters are named", async () => {
		expectError(await owner.post("/user_groups/create", { name: "X", description: "" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'members' argument");
		expectError(await owner.post("/user_groups/create", { name: "X", description: "", members: "1,2" }), 400, "BAD_REQUEST", 'Argument "members" is not valid JSON.');
		expectError(await owner.post("/user_groups/create", { name: "X", description: "", members: ["a"] }), 400, "BAD_REQUEST", "members[0] is not an integer");
	});
});

describe("editing", () => {
	test("the creator and administrators may rename; others may not", async () => {
		const id = (await byName("Backend")).id;
		expectSuccess(await as(member).patch(`/user_groups/${id}`, { name: "Backend team", description: "Servers" }));
		expect(await byName("Backend team")).toMatchObject({ id, description: "Servers" });
		expectSuccess(await as(admin).patch(`/user_groups/${id}`, { description: "Servers and APIs" }));
		for (const who of [member2, moderator, guest]) {
			expectError(await as(who).patch(`/user_groups/${id}`, { name: "Taken over" }), 400, "BAD_REQUEST", "Insufficient permission");
		}
		expect((await byName("Backend team")).description).toBe("Servers and APIs");
	});

	test("unknown groups, clashing names and empty changes are refused", async () => {
		const id = (await byName("Backend team")).id;
		await newGroup(owner, "Frontend");
		expectError(await owner.patch("/user_groups/999999", { name: "Z" }), 400, "BAD_REQUEST", "Invalid user group");
		expectError(await owner.patch(`/user_groups/${id}`, { name: "Frontend" }), 400, "BAD_REQUEST", "User group 'Frontend' already exists.");
		expectError(await owner.patch(`/user_groups/${id}`, {}), 400, "BAD_REQUEST", "No new data supplied");
	});

	test("a setting changes with {new, old}; a stale old changes nothing", async () => {
		const id = (await byName("Frontend")).id;
		const admins = (await byName("role:administrators")).id;
		const everyone = (await byName("role:everyone")).id;
		expectError(await owner.patch(`/user_groups/${id}`, { can_mention_group: { new: admins, old: admins } }), 400, "BAD_REQUEST", /does not match/);
		expect((await byName("Frontend")).can_mention_group).toBe(everyone);
		expectSuccess(await owner.patch(`/user_groups/${id}`, { can_mention_group: { new: admins, old: everyone } }));
		expect((await byName("Frontend")).can_mention_group).toBe(admins);
		expectSuccess(await owner.patch(`/user_groups/${id}`, { can_mention_group: { direct_members: [member.user_id], direct_subgroups: [admins] } }));
		expect((await byName("Frontend")).can_mention_group).toEqual({ direct_members: [member.user_id], direct_subgroups: [admins] });
	});

	test("can_manage_group lets a named group manage", async () => {
		const id = (await byName("Frontend")).id;
		const moderators = (await byName("role:moderators")).id;
		expectError(await as(moderator).patch(`/user_groups/${id}`, { description: "by mod" }), 400, "BAD_REQUEST", "Insufficient permission");
		expectSuccess(await owner.patch(`/user_groups/${id}`, { can_manage_group: moderators }));
		expectSuccess(await as(moderator).patch(`/user_groups/${id}`, { description: "by mod" }));
	});
});

describe("members and subgroups", () => {
	test("managers add and remove members; mistakes are named and change nothing", async () => {
		const id = (await byName("Backend team")).id;
		expectSuccess(await as(member).post(`/user_groups/${id}/members`, { add: [guest.user_id], delete: [member2.user_id] }));
		expect((await byName("Backend team")).members.sort()).toEqual([member.user_id, guest.user_id].sort());
		expectError(await as(member).post(`/user_groups/${id}/members`, { add: [guest.user_id] }), 400, "BAD_REQUEST", `User ${guest.user_id} is already a member of this group`);
		expectError(await as(member).post(`/user_groups/${id}/members`, { delete: [member2.user_id] }), 400, "BAD_REQUEST", `There is no member '${member2.user_id}' in this user group`);
		expectError(await as(member).post(`/user_groups/${id}/members`, { add: [999999] }), 400, "BAD_REQUEST", "Invalid user ID: 999999");
		expectError(await as(member2).post(`/user_groups/${id}/members`, { add: [member2.user_id] }), 400, "BAD_REQUEST", "Insufficient permission");
		expect((await byName("Backend team")).members.sort()).toEqual([member.user_id, guest.user_id].sort());
	});

	test("anyone may leave (can_leave_group is everyone); joining needs can_join_group", async () => {
		const id = (await byName("Backend team")).id;
		expectSuccess(await as(guest).post(`/user_groups/${id}/members`, { delete: [guest.user_id] }));
		expectError(await as(guest).post(`/user_groups/${id}/members`, { add: [guest.user_id] }), 400, "BAD_REQUEST", "Insufficient permission");
		const members = (await byName("role:members")).id;
		expectSuccess(await owner.patch(`/user_groups/${id}`, { can_join_group: members }));
		expectSuccess(await as(member2).post(`/user_groups/${id}/members`, { add: [member2.user_id] }));
		expect((await byName("Backend team")).members).toContain(member2.user_id);
	});

	test("subgroups: added, listed recursively, removed; cycles refused", async () => {
		const backend = (await byName("Backend team")).id;
		const frontend = (await byName("Frontend")).id;
		const web = await newGroup(owner, "Web", { subgroups: [frontend] });
		expectSuccess(await owner.post(`/user_groups/${frontend}/subgroups`, { add: [backend] }));
		expect((await owner.get(`/user_groups/${web}/subgroups`)).body.subgroups).toEqual([frontend, backend].sort((a, b) => a - b));
		expect((await owner.get(`/user_groups/${web}/subgroups`, { direct_subgroup_only: true })).body.subgroups).toEqual([frontend]);
		expect((await owner.get(`/user_groups/${web}/members`)).body.members).toContain(member.user_id);
		expect((await owner.get(`/user_groups/${web}/members/${member.user_id}`)).body.is_user_group_member).toBe(true);
		expect((await owner.get(`/user_groups/${web}/members/${member.user_id}`, { direct_member_only: true })).body.is_user_group_member).toBe(false);

		expectError(await owner.post(`/user_groups/${backend}/subgroups`, { add: [web] }), 400, "BAD_REQUEST", /subgroup of itself or of its subgroups/);
		expectError(await owner.post(`/user_groups/${web}/subgroups`, { add: [web] }), 400, "BAD_REQUEST", /subgroup of itself/);
		expectError(await owner.post(`/user_groups/${web}/subgroups`, { add: [frontend] }), 400, "BAD_REQUEST", `User group ${frontend} is already a subgroup of this group.`);
		expectError(await owner.post(`/user_groups/${web}/subgroups`, { delete: [backend] }), 400, "BAD_REQUEST", `User group ${backend} is not a subgroup of this group.`);
		expectSuccess(await owner.post(`/user_groups/${frontend}/subgroups`, { delete: [backend] }));
		expect((await owner.get(`/user_groups/${web}/subgroups`)).body.subgroups).toEqual([frontend]);
	});

	test("deactivated users are not members", async () => {
		const u = await app.createUser({});
		const id = await newGroup(owner, "Temporary", { members: [u.user_id, member.user_id] });
		expectSuccess(await owner.delete(`/users/${u.user_id}`));
		expect((await byName("Temporary")).members).toEqual([member.user_id]);
		expect((await owner.get(`/user_groups/${id}/members/${u.user_id}`)).body.is_user_group_member).toBe(false);
	});
});

describe("deactivation", () => {
	test("a group in use as a subgroup cannot be deactivated; otherwise it leaves the list", async () => {
		const frontend = (await byName("Frontend")).id;
		expectError(await owner.post(`/user_groups/${frontend}/deactivate`), 400, "BAD_REQUEST", "Cannot deactivate user group in use.");
		const lonely = await newGroup(as(member), "Lonely");
		expectError(await as(member2).post(`/user_groups/${lonely}/deactivate`), 400, "BAD_REQUEST", "Insufficient permission");
		expectSuccess(await as(member).post(`/user_groups/${lonely}/deactivate`));
		expect((await groups()).map((g) => g.id)).not.toContain(lonely);
		expect((await groups(true)).find((g) => g.id === lonely).deactivated).toBe(true);
		expectError(await as(member).patch(`/user_groups/${lonely}`, { name: "Back" }), 400, "BAD_REQUEST", "Insufficient permission");
	});
});

describe("in POST /register", () => {
	test("realm_user_groups lists the active groups", async () => {
		const res = await as(member).post("/register", { fetch_event_types: ["realm_user_groups"] });
		expect(res.body.realm_user_groups.map((g: { name: string }) => g.name)).toEqual(expect.arrayContaining(["role:everyone", "Backend team", "Web"]));
		expect(res.body.realm_user_groups.map((g: { name: string }) => g.name)).not.toContain("Lonely");
	});
});

describe("the group-setting evaluator", () => {
	const graph = new GroupGraph({
		groups: [
			{ id: 1, name: "a", members: [10], subgroups: [2], deactivated: false },
			{ id: 2, name: "b", members: [20, 99], subgroups: [1], deactivated: false },
			{ id: 3, name: "c", members: [30], subgroups: [], deactivated: false },
		],
		active_user_ids: [10, 20, 30],
		realm: {},
	});

	test("follows subgroups through cycles and skips inactive users", () => {
		expect([...graph.members(1)].sort()).toEqual([10, 20]);
		expect(graph.allows(1, 99)).toBe(false);
	});

	test("anonymous groups combine direct members and subgroups", () => {
		expect(graph.allows({ direct_members: [30], direct_subgroups: [] }, 30)).toBe(true);
		expect(graph.allows({ direct_members: [99], direct_subgroups: [] }, 99)).toBe(false);
		expect(graph.allows({ direct_members: [], direct_subgroups: [2] }, 10)).toBe(true);
		expect([...graph.settingMembers({ direct_members: [30], direct_subgroups: [1] })].sort()).toEqual([10, 20, 30]);
	});
});
