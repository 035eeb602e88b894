// Archived channels as Zulip 10.0 (feature level 315) shows them: to clients that declare the
// `archived_channels` capability in POST /register they stay known (register state, `stream`
// update is_archived), to the others they are gone (`stream` delete on archiving, create on
// unarchiving). Also GET /streams' exclude_archived and GET /users/me/subscriptions.
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let guest: Account;
const clients = new Map<number, Client>();
const as = (u: Account) => clients.get(u.user_id)!;

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ role: 600, full_name: "Guest" });
	for (const u of [alice, bob, guest]) clients.set(u.user_id, client(app.baseUrl, u));
});
afterAll(() => app.stop());

type Ev = Record<string, any>;
const CAPABLE = { client_capabilities: JSON.stringify({ archived_channels: true }) };

/** A queue registered with `params`: its register state, and a reader of the events since the last read. */
async function register(u: Account, params: Record<string, unknown> = {}) {
	const r = await as(u).post("/register", { event_types: JSON.stringify(["stream", "subscription"]), ...params });
	expectSuccess(r);
	let last = -1;
	const read = async (): Promise<Ev[]> => {
		const res = await as(u).get("/events", { queue_id: r.body.queue_id, last_event_id: last, dont_block: true });
		expectSuccess(res);
		const events = (res.body.events as Ev[]).filter((e) => e.type !== "heartbeat");
		if (events.length) last = events[events.length - 1].id;
		return events.map(({ id: _id, ...e }) => e);
	};
	return { state: r.body as Ev, read };
}

const ids = (list: Ev[]) => list.map((s) => s.stream_id as number);

async function createChannel(name: string, subscribers: Account[], extra: Record<string, unknown> = {}): Promise<number> {
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(subscribers.map((u) => u.user_id)), ...extra }));
	return (await owner.get("/get_stream_id", { stream: name })).body.stream_id as number;
}

describe("archiving and unarchiving", () => {
	test("capable queues get is_archived updates; the others, as before, delete and create", async () => {
		const id = await createChannel("arch-one", [alice]);
		const [aliceNew, aliceOld, bobNew, bobOld, guestNew] = await Promise.all([
			register(alice, CAPABLE),
			register(alice),
			register(bob, CAPABLE),
			register(bob),
			register(guest, CAPABLE),
		]);
		expectSuccess(await owner.delete(`/streams/${id}`));
		const archived = { type: "stream", op: "update", stream_id: id, name: "arch-one", property: "is_archived", value: true };
		// Zulip's do_deactivate_stream: is_archived to everyone who may see the channel, then delete
		// to the clients that do not know archived channels. Subscriptions stay: no subscription event.
		for (const q of [aliceNew, bobNew]) expect(await q.read()).toEqual([archived]);
		for (const q of [aliceOld, bobOld]) {
			expect(await q.read()).toEqual([archived, { type: "stream", op: "delete", stream_ids: [id], streams: [expect.objectContaining({ stream_id: id, is_archived: true })] }]);
		}
		expect(await guestNew.read()).toEqual([]);

		expectSuccess(await owner.patch(`/streams/${id}`, { is_archived: false }));
		const unarchived = { ...archived, value: false };
		for (const q of [aliceNew, bobNew]) expect(await q.read()).toEqual([unarchived]);
		for (const q of [aliceOld, bobOld]) {
			expect(await q.read()).toEqual([unarchived, { type: "stream", op: "create", streams: [expect.objectContaining({ stream_id: id, name: "arch-one", is_archived: false })] }]);
		}
		expect(await guestNew.read()).toEqual([]);
	});

	test("an archived channel's privacy change reaches only queues that know archived channels", async () => {
		const id = await createChannel("arch-two", [alice]);
		expectSuccess(await owner.delete(`/streams/${id}`));
		const [aliceNew, aliceOld, bobNew, bobOld] = await Promise.all([register(alice, CAPABLE), register(alice), register(bob, CAPABLE), register(bob)]);
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true }));
		expect(await aliceNew.read()).toEqual([
			{ type: "stream", op: "update", stream_id: id, name: "arch-two", property: "invite_only", value: true, history_public_to_subscribers: false, is_web_public: false },
			{ type: "stream", op: "update", stream_id: id, name: "arch-two", property: "history_public_to_subscribers", value: false },
		]);
		// Bob, not subscribed, loses sight of it.
		expect(await bobNew.read()).toEqual([{ type: "stream", op: "delete", stream_ids: [id], streams: [expect.objectContaining({ stream_id: id, invite_only: false })] }]);
		expect(await aliceOld.read()).toEqual([]);
		expect(await bobOld.read()).toEqual([]);
	});
});

describe("register state, GET /streams and GET /users/me/subscriptions", () => {
	let subscribed: number;
	let unsubscribed: number;
	let never: number;
	let active: number;
	beforeAll(async () => {
		subscribed = await createChannel("st-subscribed", [alice]);
		unsubscribed = await createChannel("st-unsubscribed", [alice]);
		expectSuccess(await as(alice).delete("/users/me/subscriptions", { subscriptions: JSON.stringify(["st-unsubscribed"]) }));
		never = await createChannel("st-never", [bob]);
		active = await createChannel("st-active", [alice]);
		for (const id of [subscribed, unsubscribed, never]) expectSuccess(await owner.delete(`/streams/${id}`));
	});

	test("with archived_channels: archived channels where Zulip puts them, is_archived true", async () => {
		const { state } = await register(alice, { ...CAPABLE, event_types: undefined, fetch_event_types: JSON.stringify(["subscription", "stream"]) });
		expect(state.subscriptions.find((s: Ev) => s.stream_id === subscribed)).toMatchObject({ name: "st-subscribed", is_archived: true, color: expect.any(String) });
		expect(ids(state.subscriptions)).toContain(active);
		expect(state.unsubscribed.find((s: Ev) => s.stream_id === unsubscribed)).toMatchObject({ is_archived: true });
		// In never_subscribed since feature level 362.
		expect(state.never_subscribed.find((s: Ev) => s.stream_id === never)).toMatchObject({ name: "st-never", is_archived: true });
		expect(ids(state.streams)).toEqual(expect.arrayContaining([subscribed, unsubscribed, never, active]));
		expect(state.streams.find((s: Ev) => s.stream_id === never).is_archived).toBe(true);
	});

	test("without it: no archived channel anywhere", async () => {
		for (const params of [{}, { client_capabilities: JSON.stringify({ archived_channels: false }) }]) {
			const { state } = await register(alice, { ...params, event_types: undefined, fetch_event_types: JSON.stringify(["subscription", "stream"]) });
			const all = [...state.subscriptions, ...state.unsubscribed, ...state.never_subscribed, ...state.streams];
			expect(all.filter((s: Ev) => s.is_archived)).toEqual([]);
			expect(ids(state.subscriptions)).toContain(active);
		}
	});

	test("GET /streams leaves archived channels out unless exclude_archived is false", async () => {
		const listed = async (params: Record<string, unknown>) => ids((await as(alice).get("/streams", params)).body.streams);
		expect(await listed({})).not.toContain(subscribed);
		expect(await listed({ exclude_archived: true })).not.toContain(subscribed);
		expect(await listed({ exclude_archived: false })).toEqual(expect.arrayContaining([subscribed, never, active]));
		expect((await as(alice).get(`/streams/${subscribed}`)).body.stream).toMatchObject({ stream_id: subscribed, is_archived: true });
	});

	test("GET /users/me/subscriptions leaves archived channels out, as Zulip", async () => {
		const subs = ids((await as(alice).get("/users/me/subscriptions")).body.subscriptions);
		expect(subs).toContain(active);
		expect(subs).not.toContain(subscribed);
	});
});
