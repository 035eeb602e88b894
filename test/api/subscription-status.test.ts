// GET /users/{user_id}/subscriptions/{stream_id}: whether a user is subscribed to a channel, with
// Zulip's errors for users and channels the caller may not read.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let snap: Snapshotter;
let owner: Client;
let alice: Account;
let bob: Account;
let guest: Account;
let general: number;
let vault: number;
const as = (a: Account) => client(app.baseUrl, a);
const status = (c: Client, userId: number | string, streamId: number | string) => c.get(`/users/${userId}/subscriptions/${streamId}`);

beforeAll(async () => {
	app = await startTestApp();
	snap = await snapshotter(app);
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ full_name: "Guest", role: 600 });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true, principals: [bob.user_id] }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	vault = (await owner.get("/get_stream_id", { stream: "vault" })).body.stream_id;
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

describe("GET /users/{user_id}/subscriptions/{stream_id}", () => {
	test("answers whether the user is subscribed, for any user the caller names", async () => {
		const yes = await status(as(bob), alice.user_id, general);
		expectSuccess(yes);
		expect(yes.body).toEqual({ result: "success", msg: "", is_subscribed: true });
		expect((await status(as(alice), bob.user_id, general)).body.is_subscribed).toBe(false);
		expect((await status(as(alice), alice.user_id, general)).body.is_subscribed).toBe(true);
		// A private channel: its subscribers and organization administrators may ask.
		expect((await status(as(bob), bob.user_id, vault)).body.is_subscribed).toBe(true);
		expect((await status(owner, alice.user_id, vault)).body.is_subscribed).toBe(false);
	});

	test("an unsubscribed user reads as not subscribed", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "lounge" }], principals: [alice.user_id] }));
		const lounge = (await owner.get("/get_stream_id", { stream: "lounge" })).body.stream_id;
		expect((await status(owner, alice.user_id, lounge)).body.is_subscribed).toBe(true);
		expectSuccess(await owner.delete("/users/me/subscriptions", { subscriptions: ["lounge"], principals: [alice.user_id] }));
		expect((await status(owner, alice.user_id, lounge)).body.is_subscribed).toBe(false);
	});

	test("unknown users and bots are 'No such user', deactivated ones 'User is deactivated'", async () => {
		await snap.refused(() => status(as(alice), 999_999, general), 400, "BAD_REQUEST", "No such user");
		const bot = await app.createUser({ full_name: "Helper", is_bot: true, bot_owner_id: alice.user_id });
		await snap.refused(() => status(as(alice), bot.user_id, general), 400, "BAD_REQUEST", "No such user");
		const gone = await app.createUser({ full_name: "Gone" });
		expectSuccess(await owner.delete(`/users/${gone.user_id}`));
		await snap.refused(() => status(as(alice), gone.user_id, general), 400, "BAD_REQUEST", "User is deactivated");
		// The user is checked before the channel, as in Zulip.
		await snap.refused(() => status(as(alice), 999_999, 999_999), 400, "BAD_REQUEST", "No such user");
	});

	test("unknown, unreadable and archived channels are 'Invalid channel ID'", async () => {
		await snap.refused(() => status(as(alice), alice.user_id, 999_999), 400, "BAD_REQUEST", "Invalid channel ID");
		// A private channel the caller is not in, even about a subscriber.
		await snap.refused(() => status(as(alice), bob.user_id, vault), 400, "BAD_REQUEST", "Invalid channel ID");
		// A guest sees only the channels it is subscribed to.
		await snap.refused(() => status(as(guest), alice.user_id, general), 400, "BAD_REQUEST", "Invalid channel ID");
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "old times" }], principals: [alice.user_id] }));
		const old = (await owner.get("/get_stream_id", { stream: "old times" })).body.stream_id;
		expectSuccess(await owner.delete(`/streams/${old}`));
		await snap.refused(() => status(as(alice), alice.user_id, old), 400, "BAD_REQUEST", "Invalid channel ID");
	});

	test("IDs that are not numbers match no route", async () => {
		await snap.unchanged(async () => {
			expect((await status(as(alice), "alice", general)).status).toBe(404);
			expect((await status(as(alice), alice.user_id, "general")).status).toBe(404);
		});
	});
});
