// Avatars through HTTP: POST /users/me/avatar (multipart, one image, made into Zulip's 100×100 and
// 500×500 PNGs, the original kept), DELETE /users/me/avatar (back to the gravatar), avatar_url and
// avatar_version in user objects and POST /register, Zulip's `realm_user` update events,
// GET /avatar/{user_id_or_email}[/medium] redirecting to the avatar, and every refusal (not an
// image, too large, two files, avatar changes disabled) changing nothing.
import sharp from "sharp";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues } from "../support/events";
import { basicAuth, sendMultipart, type FilePart } from "../support/images";

let app: TestApp;
let owner: Client;
let admin: Account;
let alice: Account;
let bob: Account;
let snap: Snapshotter;
let site: string;

const as = (a: Account) => client(app.baseUrl, a);
const basic = basicAuth;

/** POST /users/me/avatar with `files` as multipart parts, as Zulip's clients send it. */
const uploadAvatar = (a: Account, files: FilePart[]) => sendMultipart(app, a, "POST", "/users/me/avatar", { files });

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 10, g: 160, b: 90 } } }).png().toBuffer();
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${site}${path}`, { headers, redirect: "manual" });
const me = async (a: Account) => (await as(a).get("/users/me")).body;
const userOf = async (viewer: Account, id: number) => (await as(viewer).get(`/users/${id}`, { client_gravatar: "false" })).body.user;

async function imageMeta(path: string) {
	const res = await get(path);
	expect(res.status).toBe(200);
	return sharp(Buffer.from(await res.arrayBuffer())).metadata();
}

beforeAll(async () => {
	app = await startTestApp();
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	owner = client(app.baseUrl, app.owner);
	admin = await app.createUser({ role: 200, full_name: "Admin" });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap?.close();
	await app.stop();
});

test("a new user has a gravatar of version 1; GET /avatar redirects to it", async () => {
	const a = await me(alice);
	expect(a.avatar_version).toBe(1);
	expect(a.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
	const res = await get(`/avatar/${alice.user_id}`, { Authorization: basic(bob) });
	expect(res.status).toBe(302);
	expect(res.headers.get("location")).toBe(a.avatar_url);
	const medium = await get(`/avatar/${alice.user_id}/medium?foo=1`, { Authorization: basic(bob) });
	expect(medium.headers.get("location")).toBe(a.avatar_url.replace("identicon&", "identicon&s=500&") + "&foo=1");
});

test("an upload: Zulip's answer, 100×100 and 500×500 PNGs and the original served, avatar fields in user objects, a realm_user update for everyone", async () => {
	const queues = await eventQueues(as, [bob], { register: { client_gravatar: "true" }, keep: (e) => e.type === "realm_user" });
	const original = await sharp({ create: { width: 640, height: 360, channels: 3, background: { r: 200, g: 100, b: 0 } } }).jpeg().toBuffer();
	const res = await uploadAvatar(alice, [{ name: "me.jpg", bytes: original, type: "image/jpeg" }]);
	expect(res.status).toBe(200);
	expect(res.body).toEqual({ result: "success", msg: "", avatar_url: expect.stringMatching(/^\/user_avatars\/\d+\/[0-9a-f]+\.png\?version=2$/) });
	const url: string = res.body.avatar_url;
	const medium = url.replace(".png?", "-medium.png?");

	const small = await imageMeta(url);
	expect([small.format, small.width, small.height]).toEqual(["png", 100, 100]);
	const big = await imageMeta(medium);
	expect([big.format, big.width, big.height]).toEqual(["png", 500, 500]);
	const kept = await get(url.replace(/\.png\?.*$/, ".original"));
	expect(Buffer.from(await kept.arrayBuffer()).equals(original)).toBe(true);

	expect(await queues(bob)).toEqual([
		{ type: "realm_user", op: "update", person: { user_id: alice.user_id, avatar_source: "U", avatar_url: url, avatar_url_medium: medium, avatar_version: 2 } },
	]);
	expect(await userOf(bob, alice.user_id)).toMatchObject({ avatar_url: url, avatar_version: 2 });
	// An uploaded avatar is no gravatar: client_gravatar clients get its URL too.
	expect((await as(bob).get(`/users/${alice.user_id}`, { client_gravatar: "true" })).body.user.avatar_url).toBe(url);
	const state = (await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm_user"]) })).body;
	expect([state.avatar_source, state.avatar_url, state.avatar_url_medium]).toEqual(["U", url, medium]);
	expect(state.realm_users.find((u: any) => u.user_id === alice.user_id).avatar_url).toBe(url);

	// Messages show the sender's avatar.
	expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "avatars" }]) }));
	const id = await sendMessage(as(alice), { type: "stream", to: "avatars", topic: "t", content: "hi" });
	expect((await as(alice).get(`/messages/${id}`)).body.message.avatar_url).toBe(url);

	// GET /avatar by ID or by email redirects there.
	expect((await get(`/avatar/${alice.user_id}`, { Authorization: basic(bob) })).headers.get("location")).toBe(url);
	expect((await get(`/avatar/${encodeURIComponent(alice.email)}/medium`, { Authorization: basic(alice) })).headers.get("location")).toBe(medium);
});

test("a second upload replaces the first, whose images go", async () => {
	const before: string = (await me(alice)).avatar_url;
	const res = await uploadAvatar(alice, [{ name: "tall.png", bytes: await png(30, 90), type: "image/png" }]);
	expectSuccess(res);
	expect(res.body.avatar_url).toMatch(/\?version=3$/);
	expect((await get(before)).status).toBe(404);
	const meta = await imageMeta(res.body.avatar_url);
	expect([meta.width, meta.height]).toEqual([100, 100]);
});

test("not an image, a type that is no image, too large, two files, no file: Zulip's errors, nothing changed", async () => {
	const one = await png(20, 20);
	const refused = (files: FilePart[], status: number, code: string, msg: string) => snap.refused(() => uploadAvatar(bob, files), status, code, msg);
	await refused([{ name: "x.png", bytes: Buffer.from("plain text, not a picture"), type: "image/png" }], 400, "BAD_IMAGE", "Could not decode image; did you upload an image file?");
	await refused([{ name: "x.pdf", bytes: one, type: "application/pdf" }], 400, "BAD_IMAGE", "Invalid image format");
	await refused([{ name: "big.png", bytes: Buffer.alloc(5 * 1024 * 1024 + 1, 1), type: "image/png" }], 400, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB");
	await refused([{ name: "a.png", bytes: one, type: "image/png" }, { name: "b.png", bytes: one, type: "image/png" }], 400, "BAD_REQUEST", "You must upload exactly one avatar.");
	await refused([], 400, "BAD_REQUEST", "You must upload exactly one avatar.");
	expect(await me(bob)).toMatchObject({ avatar_version: 1 });
});

test("with avatar changes disabled, members may neither upload nor delete; administrators may", async () => {
	expectSuccess(await owner.patch("/realm", { avatar_changes_disabled: "true" }));
	try {
		const image = [{ name: "a.png", bytes: await png(16, 16), type: "image/png" }];
		await snap.refused(() => uploadAvatar(bob, image), 400, "BAD_REQUEST", "Avatar changes are disabled in this organization.");
		await snap.refused(() => as(alice).delete("/users/me/avatar"), 400, "BAD_REQUEST", "Avatar changes are disabled in this organization.");
		expectSuccess(await uploadAvatar(admin, image));
	} finally {
		expectSuccess(await owner.patch("/realm", { avatar_changes_disabled: "false" }));
	}
});

test("DELETE /users/me/avatar: back to the gravatar at the next version, the uploaded images gone, an event", async () => {
	const uploaded: string = (await me(alice)).avatar_url;
	const queues = await eventQueues(as, [bob], { keep: (e) => e.type === "realm_user" });
	const res = await as(alice).delete("/users/me/avatar");
	expectSuccess(res);
	expect(res.body.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=4$/);
	expect((await get(uploaded)).status).toBe(404);
	const [event] = await queues(bob);
	expect(event).toEqual({
		type: "realm_user",
		op: "update",
		person: { user_id: alice.user_id, avatar_source: "G", avatar_url: res.body.avatar_url, avatar_url_medium: res.body.avatar_url.replace("identicon&", "identicon&s=500&"), avatar_version: 4 },
	});
	expect(await userOf(bob, alice.user_id)).toMatchObject({ avatar_url: res.body.avatar_url, avatar_version: 4 });
});

test("GET /avatar: an unknown user is a gravatar of what was asked; no credentials, no redirect", async () => {
	const res = await get("/avatar/nobody@example.com", { Authorization: basic(bob) });
	expect(res.status).toBe(302);
	expect(res.headers.get("location")).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
	const anonymous = await get(`/avatar/${alice.user_id}`);
	expect(anonymous.status).toBe(401);
	expectError({ status: anonymous.status, body: await anonymous.json(), headers: anonymous.headers }, 401, "UNAUTHORIZED");
	expect((await get("/avatar/", { Authorization: basic(bob) })).status).toBe(404);
	expect((await get(`/avatar/${alice.user_id}/small`, { Authorization: basic(bob) })).status).toBe(404);
});
