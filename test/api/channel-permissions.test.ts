// The channel permission matrix: owner, administrator, moderator, member, guest and bot, against
// public, private (subscribed or not), web-public and archived channels, for every channel action.
// The expected outcome of each case comes from the rules below, written from the API description
// independently of the server's code; each case also checks the state left behind.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, type Client, type Response } from "../support/http";

type Kind = "public" | "private-subscribed" | "private-unsubscribed" | "web-public" | "archived";
type Role = "owner" | "administrator" | "moderator" | "member" | "guest" | "bot";

const KINDS: Kind[] = ["public", "private-subscribed", "private-unsubscribed", "web-public", "archived"];
const ROLES: Role[] = ["owner", "administrator", "moderator", "member", "guest", "bot"];

let app: TestApp;
let owner: Client;
let other: Account;
const actors = {} as Record<Role, Account>;

beforeAll(async () => {
	app = await startTestApp({ webPublicStreams: true });
	await app.node.broker.call("users.setRealmSetting", { name: "realm_enable_spectator_access", value: true });
	owner = client(app.baseUrl, app.owner);
	actors.owner = { ...app.owner };
	actors.administrator = await app.createUser({ role: 200 });
	actors.moderator = await app.createUser({ role: 300 });
	actors.member = await app.createUser({ role: 400 });
	actors.guest = await app.createUser({ role: 600 });
	actors.bot = await app.createUser({ is_bot: true, bot_owner_id: actors.member.user_id });
	other = await app.createUser({ role: 400 });
});
afterAll(() => app.stop());

// ---- The rules (from the API description) ----
const isAdmin = (r: Role) => r === "owner" || r === "administrator";
const isGuest = (r: Role) => r === "guest";

/** The owner creates every channel (and stays subscribed); others start in private-subscribed ones. */
const subscribedAtStart = (r: Role, k: Kind) => k === "private-subscribed" || r === "owner";
/** Content access: subscribed, web-public, or public for non-guests; never a private channel one is not in. */
function content(r: Role, k: Kind): boolean {
	if (subscribedAtStart(r, k) || k === "web-public") return true;
	if (k === "private-unsubscribed") return false;
	return !isGuest(r);
}
/** Metadata access: content access, or administering every channel as an organization administrator. */
const metadata = (r: Role, k: Kind) => content(r, k) || isAdmin(r);
/** The channels are created by the owner, so only organization administrators administer them. */
const channelAdmin = (r: Role) => isAdmin(r);

let n = 0;
async function makeChannel(k: Kind, actor: Role): Promise<{ id: number; name: string }> {
	const name = `m${++n}-${k}`;
	const principals = [app.owner.user_id, other.user_id, ...(k === "private-subscribed" && actor !== "owner" ? [actors[actor].user_id] : [])];
	const res = await owner.post("/users/me/subscriptions", {
		subscriptions: [{ name }],
		principals,
		invite_only: k.startsWith("private"),
		is_web_public: k === "web-public",
	});
	if (res.body.result !== "success") throw new Error(`setup failed: ${JSON.stringify(res.body)}`);
	const id = (await owner.get("/get_stream_id", { stream: name })).body.stream_id;
	if (k === "archived") await owner.delete(`/streams/${id}`);
	return { id, name };
}

async function subscribersOf(id: number): Promise<number[]> {
	return (await owner.get(`/streams/${id}/members`)).body.subscribers;
}
async function channelOf(id: number): Promise<any> {
	return (await owner.get(`/streams/${id}`)).body.stream;
}

type Outcome = { ok: true } | { ok: false; code: string };
const OK: Outcome = { ok: true };
const err = (code = "BAD_REQUEST"): Outcome => ({ ok: false, code });
function expectOutcome(res: Response, want: Outcome) {
	if (want.ok) expect({ status: res.status, result: res.body.result }).toEqual({ status: 200, result: "success" });
	else expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: want.code });
}

const cases: Array<[Role, Kind]> = [];
for (const r of ROLES) for (const k of KINDS) cases.push([r, k]);

describe.each(cases)("%s × %s channel", (role, kind) => {
	const c = () => client(app.baseUrl, actors[role]);

	test("view it (GET /streams/{id}, its members, get_stream_id)", async () => {
		const ch = await makeChannel(kind, role);
		const want = metadata(role, kind) ? OK : err();
		expectOutcome(await c().get(`/streams/${ch.id}`), want);
		expectOutcome(await c().get(`/streams/${ch.id}/members`), want);
		expectOutcome(await c().get("/get_stream_id", { stream: ch.name }), want);
	});

	test("subscribe oneself", async () => {
		const ch = await makeChannel(kind, role);
		// Guests subscribe nobody, not even themselves (Zulip's require_non_guest_user).
		const want = content(role, kind) && kind !== "archived" && !isGuest(role) ? OK : err();
		expectOutcome(await c().post("/users/me/subscriptions", { subscriptions: [{ name: ch.name }] }), want);
		expect((await subscribersOf(ch.id)).includes(actors[role].user_id)).toBe(want.ok || subscribedAtStart(role, kind));
	});

	test("subscribe someone else", async () => {
		const ch = await makeChannel(kind, role);
		const target = await app.createUser({});
		const want = content(role, kind) && kind !== "archived" && !isGuest(role) ? OK : err();
		expectOutcome(await c().post("/users/me/subscriptions", { subscriptions: [{ name: ch.name }], principals: [target.user_id] }), want);
		expect((await subscribersOf(ch.id)).includes(target.user_id)).toBe(want.ok);
	});

	test("unsubscribe oneself", async () => {
		const ch = await makeChannel(kind, role);
		const res = await c().delete("/users/me/subscriptions", { subscriptions: [ch.name] });
		if (!metadata(role, kind)) expectOutcome(res, err("STREAM_DOES_NOT_EXIST"));
		else {
			expectOutcome(res, OK);
			expect(res.body.removed.length > 0).toBe(subscribedAtStart(role, kind));
		}
		expect((await subscribersOf(ch.id)).includes(actors[role].user_id)).toBe(false);
	});

	test("unsubscribe someone else", async () => {
		const ch = await makeChannel(kind, role);
		const res = await c().delete("/users/me/subscriptions", { subscriptions: [ch.name], principals: [other.user_id] });
		const want = !metadata(role, kind) ? err("STREAM_DOES_NOT_EXIST") : isAdmin(role) ? OK : err();
		expectOutcome(res, want);
		expect((await subscribersOf(ch.id)).includes(other.user_id)).toBe(!want.ok);
	});

	test("edit its description", async () => {
		const ch = await makeChannel(kind, role);
		const want = !metadata(role, kind) ? err() : channelAdmin(role) && kind !== "archived" ? OK : err();
		expectOutcome(await c().patch(`/streams/${ch.id}`, { description: "edited" }), want);
		expect((await channelOf(ch.id)).description).toBe(want.ok ? "edited" : "");
	});

	test("change who may post (needs content access on a private channel)", async () => {
		const ch = await makeChannel(kind, role);
		const before = (await channelOf(ch.id)).can_send_message_group;
		const admins = (await owner.get("/user_groups")).body.user_groups.find((g: { name: string }) => g.name === "role:administrators").id;
		const want = channelAdmin(role) && content(role, kind) && kind !== "archived" ? OK : err();
		expectOutcome(await c().patch(`/streams/${ch.id}`, { can_send_message_group: { new: admins, old: before } }), want);
		expect((await channelOf(ch.id)).can_send_message_group).toBe(want.ok ? admins : before);
	});

	test("archive it", async () => {
		const ch = await makeChannel(kind, role);
		const want = channelAdmin(role) && kind !== "archived" ? OK : err();
		expectOutcome(await c().delete(`/streams/${ch.id}`), want);
		expect((await channelOf(ch.id)).is_archived).toBe(kind === "archived" || want.ok);
	});

	test("mute a topic in it", async () => {
		const ch = await makeChannel(kind, role);
		const want = content(role, kind) ? OK : err();
		expectOutcome(await c().post("/user_topics", { stream_id: ch.id, topic: "noise", visibility_policy: 1 }), want);
		const topics = (await c().post("/register", { fetch_event_types: ["user_topic"] })).body.user_topics;
		expect(topics.some((t: { stream_id: number }) => t.stream_id === ch.id)).toBe(want.ok);
	});
});

describe("GET /streams by role", () => {
	test("each role sees exactly the channels it may know about", async () => {
		const made: Record<Kind, { id: number; name: string }> = {} as never;
		for (const k of KINDS) made[k] = await makeChannel(k, "member");
		for (const role of ROLES) {
			const names = (await client(app.baseUrl, actors[role]).get("/streams", { include_all: true, exclude_archived: false })).body.streams.map((s: { name: string }) => s.name);
			for (const k of KINDS) {
				// The private-subscribed channel here has the member (and the owner) in it, no one else.
				const visible = k === "private-subscribed" ? role === "member" || isAdmin(role) : metadata(role, k);
				expect([role, k, names.includes(made[k].name)]).toEqual([role, k, visible]);
			}
		}
	});
});

describe("making a channel web-public", () => {
	test("needs can_create_web_public_channel_group (owners) and administering the channel", async () => {
		const ch = await makeChannel("public", "member");
		for (const role of ["administrator", "moderator", "member"] as Role[]) {
			const res = await client(app.baseUrl, actors[role]).patch(`/streams/${ch.id}`, { is_web_public: true });
			expect(res.body.result).toBe("error");
		}
		expect((await channelOf(ch.id)).is_web_public).toBe(false);
		expect((await owner.patch(`/streams/${ch.id}`, { is_web_public: true })).body.result).toBe("success");
		expect((await channelOf(ch.id)).is_web_public).toBe(true);
		// A guest can now see it.
		expect((await client(app.baseUrl, actors.guest).get(`/streams/${ch.id}`)).status).toBe(200);
		// As Zulip: a web-public channel is made private only with is_web_public false too, and
		// a web-public channel's history is public.
		for (const change of [{ is_private: true }, { history_public_to_subscribers: false }, { is_private: true, history_public_to_subscribers: true }]) {
			expect((await owner.patch(`/streams/${ch.id}`, change)).body).toMatchObject({ result: "error", code: "BAD_REQUEST", msg: "Invalid parameters" });
		}
		expect(await channelOf(ch.id)).toMatchObject({ invite_only: false, is_web_public: true, history_public_to_subscribers: true });
		expect((await owner.patch(`/streams/${ch.id}`, { is_private: true, is_web_public: false })).body).toMatchObject({ result: "success" });
		expect(await channelOf(ch.id)).toMatchObject({ invite_only: true, is_web_public: false, history_public_to_subscribers: false });
		// Private and web-public at once is refused too.
		expect((await owner.patch(`/streams/${ch.id}`, { is_web_public: true })).body).toMatchObject({ result: "error", msg: "Invalid parameters" });
		expect((await owner.patch(`/streams/${ch.id}`, { is_private: false, is_web_public: true })).body).toMatchObject({ result: "success" });
		expect(await channelOf(ch.id)).toMatchObject({ invite_only: false, is_web_public: true, history_public_to_subscribers: true });
	});
});
