// A private channel whose last subscriber leaves, or is removed, stays as it was: since Zulip
// 10.0 ("Removing the last subscriber from a channel no longer automatically archives it",
// zulip/zulip#33696, before this server's feature level 370) bulk_remove_subscriptions no longer
// archives newly vacant private channels; administrators archive them with DELETE
// /streams/{stream_id} if they wish. The events are those of any unsubscription. Unarchiving a
// private channel needs a subscriber (Zulip's do_unarchive_stream).
import { startTestApp, type Account, type TestApp } from "../support/app";
import { eventQueues, type QueueReader } from "../support/events";
import { client, expectSuccess, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let snap: Snapshotter;
let admin: Account;
let alice: Account;
let bob: Account;
const as = (a: Account): Client => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	snap = await snapshotter(app);
	admin = await app.createUser({ full_name: "Admin", role: 200 });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

/**
 * A private channel `creator` makes (and so administers: its can_administer_channel_group, which
 * keeps sight of it unsubscribed) with `others` subscribed too, and its ID.
 */
async function privateChannel(creator: Account, name: string, others: Account[] = []): Promise<number> {
	expectSuccess(await as(creator).post("/users/me/subscriptions", { subscriptions: [{ name }], invite_only: true, principals: [creator, ...others].map((u) => u.user_id) }));
	return (await as(creator).get("/get_stream_id", { stream: name })).body.stream_id;
}

/** The channel as an administrator sees it: archived or not, private, its subscribers, listed. */
async function state(id: number) {
	const stream = (await as(admin).get(`/streams/${id}`)).body.stream;
	const members = (await as(admin).get(`/streams/${id}/members`)).body.subscribers;
	const listed = (await as(admin).get("/streams", { include_all: true })).body.streams.some((s: { stream_id: number }) => s.stream_id === id);
	return { is_archived: stream.is_archived, invite_only: stream.invite_only, members, listed };
}

const queues = (users: Account[]): Promise<QueueReader> =>
	eventQueues(as, users, { register: { event_types: JSON.stringify(["stream", "subscription", "message"]), client_capabilities: JSON.stringify({ archived_channels: true }) } });
const removal = (id: number, name: string) => ({ type: "subscription", op: "remove", subscriptions: [{ stream_id: id, name }] });
const peerRemove = (id: number, users: Account[]) => ({ type: "subscription", op: "peer_remove", stream_ids: [id], user_ids: users.map((u) => u.user_id) });
const lost = (id: number) => ({ type: "stream", op: "delete", stream_ids: [id], streams: [expect.objectContaining({ stream_id: id, is_archived: false })] });

describe("a private channel left without subscribers", () => {
	test("its last subscriber leaves: removed, the channel stays unarchived; no archiving event or notice", async () => {
		const id = await privateChannel(bob, "vacant one", [alice]);
		expectSuccess(await as(bob).delete("/users/me/subscriptions", { subscriptions: ["vacant one"] }));
		const read = await queues([alice, admin, bob]);
		const res = await as(alice).delete("/users/me/subscriptions", { subscriptions: ["vacant one"] });
		expectSuccess(res);
		expect(res.body).toEqual({ result: "success", msg: "", removed: ["vacant one"], not_removed: [] });
		// Alice loses sight of it, as of any private channel she leaves.
		expect(await read(alice)).toEqual([removal(id, "vacant one"), lost(id)]);
		// Those who still see it (its creator, who administers it; an organization administrator)
		// hear of the leave only: nothing is archived.
		expect(await read(bob)).toEqual([peerRemove(id, [alice])]);
		expect(await read(admin)).toEqual([peerRemove(id, [alice])]);
		expect(await state(id)).toEqual({ is_archived: false, invite_only: true, members: [], listed: true });
	});

	test("an administrator removes the last subscribers of two private channels at once: both stay", async () => {
		const one = await privateChannel(alice, "vacant two");
		const two = await privateChannel(bob, "vacant three", [alice]);
		const read = await queues([alice, bob, admin]);
		const res = await as(admin).delete("/users/me/subscriptions", { subscriptions: ["vacant two", "vacant three"], principals: [alice.user_id, bob.user_id] });
		expectSuccess(res);
		expect(res.body).toEqual({ result: "success", msg: "", removed: ["vacant two", "vacant three", "vacant three"], not_removed: ["vacant two"] });
		// Each keeps sight of the channel they administer and loses the other.
		const aliceEvents = await read(alice);
		expect(aliceEvents).toEqual(expect.arrayContaining([lost(two)]));
		expect(aliceEvents.filter((e) => e.type === "stream")).toEqual([lost(two)]);
		const bobEvents = await read(bob);
		expect(bobEvents.filter((e) => e.type === "stream")).toEqual([]);
		for (const events of [aliceEvents, bobEvents, await read(admin)]) {
			expect(events.some((e) => e.type === "message" || (e.type === "stream" && e.op === "update"))).toBe(false);
		}
		for (const id of [one, two]) expect(await state(id)).toEqual({ is_archived: false, invite_only: true, members: [], listed: true });
		// An administrator may still archive one; but not unarchive it while it has no subscriber
		// (Zulip's do_unarchive_stream), and the refusal changes nothing.
		expectSuccess(await as(admin).delete(`/streams/${one}`));
		expect((await state(one)).is_archived).toBe(true);
		await snap.refused(() => as(admin).patch(`/streams/${one}`, { is_archived: false }), 400, "BAD_REQUEST", "Channel is private and have no subscribers");
		await snap.refused(() => as(alice).patch(`/streams/${one}`, { is_archived: "no" }), 400, "BAD_REQUEST", /is_archived/);
		// (GET /streams leaves archived channels out.)
		expect(await state(one)).toEqual({ is_archived: true, invite_only: true, members: [], listed: false });
	});

	test("unarchiving: a private channel with a subscriber (deactivated users count) or a public one without", async () => {
		const kept = await privateChannel(alice, "vacant five", [bob]);
		expectSuccess(await as(alice).delete("/users/me/subscriptions", { subscriptions: ["vacant five"] }));
		expectSuccess(await as(admin).delete(`/streams/${kept}`));
		const carol = await app.createUser({ full_name: "Carol" });
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: [{ name: "vacant six" }], invite_only: true, principals: [carol.user_id] }));
		const withDeactivated = (await as(admin).get("/get_stream_id", { stream: "vacant six" })).body.stream_id;
		expectSuccess(await as(admin).delete("/users/me/subscriptions", { subscriptions: ["vacant six"] }));
		expectSuccess(await as(admin).delete(`/streams/${withDeactivated}`));
		expectSuccess(await as(admin).delete(`/users/${carol.user_id}`));
		expectSuccess(await as(admin).post("/users/me/subscriptions", { subscriptions: [{ name: "vacant public" }] }));
		const open = (await as(admin).get("/get_stream_id", { stream: "vacant public" })).body.stream_id;
		expectSuccess(await as(admin).delete("/users/me/subscriptions", { subscriptions: ["vacant public"] }));
		expectSuccess(await as(admin).delete(`/streams/${open}`));
		for (const id of [kept, withDeactivated, open]) {
			expectSuccess(await as(admin).patch(`/streams/${id}`, { is_archived: false }));
			expect((await state(id)).is_archived).toBe(false);
		}
	});

	test("leaving again, or a channel the caller can no longer see, changes nothing", async () => {
		await privateChannel(bob, "vacant four", [alice]);
		expectSuccess(await as(bob).delete("/users/me/subscriptions", { subscriptions: ["vacant four"] }));
		expectSuccess(await as(alice).delete("/users/me/subscriptions", { subscriptions: ["vacant four"] }));
		// Alice no longer sees the private channel: for her it does not exist.
		await snap.refused(() => as(alice).delete("/users/me/subscriptions", { subscriptions: ["vacant four"] }), 400, "STREAM_DOES_NOT_EXIST", "Channel 'vacant four' does not exist");
		await snap.refused(() => as(admin).delete("/users/me/subscriptions", { subscriptions: ["vacant four"], principals: [999_999] }), 400, "BAD_REQUEST", "No such user");
		await snap.refused(() => as(admin).delete("/users/me/subscriptions", { subscriptions: [] }), 400, "BAD_REQUEST", /subscriptions/);
		// Those who see it and are not subscribed: not_removed, and nothing changes.
		await snap.unchanged(async () => {
			for (const who of [admin, bob]) {
				const res = await as(who).delete("/users/me/subscriptions", { subscriptions: ["vacant four"] });
				expect(res.body).toEqual({ result: "success", msg: "", removed: [], not_removed: ["vacant four"] });
			}
		});
	});
});
