// Promotion to role:fullmembers by the passing of time (Zulip's daily promote_new_full_members):
// with a waiting period, a member who passes it joins the group and clients get one user_group
// add_members event, from the users service's node-cron job (FULL_MEMBERS_CRON, here every second,
// with the shared test clock moved forward), once per member however many runs race.
import { clock } from "../../shared/clock";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";

type Ev = Record<string, any>;
const DAY_MS = 86_400_000;

afterEach(() => clock.reset());

/** Sets a waiting period of `days`; role:fullmembers' ID, a reader of its user_group events, and its members. */
async function setUp(app: TestApp, days: number) {
	const owner = client(app.baseUrl, app.owner);
	expectSuccess(await owner.patch("/realm", { waiting_period_threshold: days }));
	const groups = (await owner.get("/user_groups")).body.user_groups as Ev[];
	const fullMembers = groups.find((g) => g.name === "role:fullmembers")!.id as number;
	const watcher = await app.createUser({ role: 200, full_name: "Watcher" });
	const w: Client = client(app.baseUrl, watcher);
	const r = await w.post("/register", { event_types: JSON.stringify(["user_group"]) });
	expectSuccess(r);
	let last = -1;
	const read = async (): Promise<Ev[]> => {
		const res = await w.get("/events", { queue_id: r.body.queue_id, last_event_id: last, dont_block: true });
		expectSuccess(res);
		const events = res.body.events as Ev[];
		if (events.length) last = events[events.length - 1].id;
		// Creations and role changes move users between the other system groups too.
		return events.filter((e) => e.type === "user_group" && e.group_id === fullMembers).map(({ id: _id, ...e }) => e);
	};
	const members = async () => ((await owner.get("/user_groups")).body.user_groups as Ev[]).find((g) => g.id === fullMembers)!.members as number[];
	return { fullMembers, read, members };
}

/** Reads until an event comes or `ms` pass. */
async function next(read: () => Promise<Ev[]>, ms: number): Promise<Ev[]> {
	const until = Date.now() + ms;
	for (;;) {
		const events = await read();
		if (events.length || Date.now() > until) return events;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

describe("the node-cron job", () => {
	let app: TestApp;
	beforeAll(async () => {
		app = await startTestApp({ fullMembersCron: "* * * * * *" });
	});
	afterAll(() => app.stop());

	test("a member past the waiting period joins role:fullmembers, announced once", async () => {
		const { fullMembers, read, members } = await setUp(app, 3);
		const early: Account = await app.createUser({ full_name: "Early" });
		clock.advance(DAY_MS);
		const later: Account = await app.createUser({ full_name: "Later" });
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(await read()).toEqual([]);
		expect(await members()).not.toContain(early.user_id);

		// Three days after the first joined: only that one.
		clock.advance(2 * DAY_MS + 1000);
		expect(await next(read, 30_000)).toEqual([{ type: "user_group", op: "add_members", group_id: fullMembers, user_ids: [early.user_id] }]);
		expect(await members()).toContain(early.user_id);
		expect(await members()).not.toContain(later.user_id);
		// Further runs announce nothing more.
		await new Promise((resolve) => setTimeout(resolve, 2500));
		expect(await read()).toEqual([]);

		clock.advance(DAY_MS);
		expect(await next(read, 30_000)).toEqual([{ type: "user_group", op: "add_members", group_id: fullMembers, user_ids: [later.user_id] }]);
		expect(await members()).toContain(later.user_id);
	});
});

describe("runs racing each other, and the other ways into role:fullmembers", () => {
	let app: TestApp;
	beforeAll(async () => {
		app = await startTestApp({ fullMembersCron: "off" });
	});
	afterAll(() => app.stop());
	const promote = () => app.node.broker.call<{ user_ids: number[] }>("users.promoteFullMembers");

	test("concurrent runs: each member is claimed by one run and announced once", async () => {
		const { read } = await setUp(app, 2);
		const users = [await app.createUser({}), await app.createUser({}), await app.createUser({})];
		clock.advance(2 * DAY_MS + 1000);
		const results = await Promise.all([promote(), promote(), promote(), promote()]);
		const claimed = results.flatMap((r) => r.user_ids);
		const ids = users.map((u) => u.user_id);
		expect(claimed.filter((id) => ids.includes(id)).sort((a, b) => a - b)).toEqual(ids);
		expect(new Set(claimed).size).toBe(claimed.length);
		const events = await read();
		expect(events.every((e) => e.op === "add_members")).toBe(true);
		expect(events.flatMap((e) => e.user_ids).filter((id: number) => ids.includes(id)).sort((a: number, b: number) => a - b)).toEqual(ids);
		expect((await promote()).user_ids).toEqual([]);
		expect(await read()).toEqual([]);
	});

	test("a member whose promotion is not announced yet: a role change or a new waiting period tells clients exactly once", async () => {
		const { fullMembers, read } = await setUp(app, 2);
		const owner = client(app.baseUrl, app.owner);
		const [ann, ben] = [await app.createUser({ full_name: "Ann" }), await app.createUser({ full_name: "Ben" })];
		clock.advance(2 * DAY_MS + 1000);
		// Ann, past the period but not announced, becomes a moderator: she leaves no group clients saw her in.
		expectSuccess(await owner.patch(`/users/${ann.user_id}`, { role: 300 }));
		expect(await read()).toEqual([]);
		// A shorter period announces Ben now; the job then has nothing left for him.
		expectSuccess(await owner.patch("/realm", { waiting_period_threshold: 1 }));
		expect(await read()).toEqual([{ type: "user_group", op: "add_members", group_id: fullMembers, user_ids: expect.arrayContaining([ben.user_id]) }]);
		expect((await promote()).user_ids).not.toContain(ben.user_id);
		expect(await read()).toEqual([]);
	});
});
