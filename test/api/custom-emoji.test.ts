// Custom emoji through HTTP: POST /realm/emoji/{emoji_name} (multipart, one image, resized to
// 64×64 as Zulip's resize_emoji, the original kept, an animated GIF with a still version),
// GET /realm/emoji, DELETE /realm/emoji/{emoji_name} (deactivates), realm_emoji in POST /register
// and its update events, reactions with reaction_type realm_emoji, `:name:` rendered as Zulip's
// <img class="emoji">, the images served at /user_avatars without credentials, and every refusal
// (name rules, permissions, a name in use, not an image, too large, two files) changing nothing.
import sharp from "sharp";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues, type Ev } from "../support/events";
import { animatedGif, basicAuth, sendMultipart, type FilePart } from "../support/images";

let app: TestApp;
let owner: Client;
let admin: Account;
let alice: Account;
let bob: Account;
let guest: Account;
let snap: Snapshotter;
let site: string;
let adminsGroup: number;
let membersGroup: number;

const as = (a: Account) => client(app.baseUrl, a);
const basic = basicAuth;

/** POST /realm/emoji/{name} with `files` as multipart parts, as Zulip's web app sends them. */
const uploadEmoji = (a: Account, name: string, files: FilePart[]) => sendMultipart(app, a, "POST", `/realm/emoji/${name}`, { files, partName: (i) => `f${i + 1}` });

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
const jpeg = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 30, g: 30, b: 200 } } }).jpeg().toBuffer();


const get = (path: string) => fetch(`${site}${path}`);
const listEmoji = async (a: Account) => (await as(a).get("/realm/emoji")).body.emoji as Record<string, any>;
const byName = async (name: string) => Object.values(await listEmoji(alice)).find((e: any) => e.name === name && !e.deactivated);

beforeAll(async () => {
	app = await startTestApp();
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	owner = client(app.baseUrl, app.owner);
	admin = await app.createUser({ role: 200, full_name: "Admin" });
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ role: 600, full_name: "Guest" });
	const groups = (await owner.get("/user_groups")).body.user_groups as Array<{ id: number; name: string }>;
	adminsGroup = groups.find((g) => g.name === "role:administrators")!.id;
	membersGroup = groups.find((g) => g.name === "role:members")!.id;
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap?.close();
	await app.stop();
});

describe("POST /realm/emoji/{emoji_name}", () => {
	test("a member adds a PNG: listed with Zulip's fields, in realm_emoji events and POST /register, its 64×64 image and its original served", async () => {
		const keep = (e: Ev) => e.type === "realm_emoji";
		const queues = await eventQueues(as, [bob], { register: { event_types: JSON.stringify(["realm_emoji"]) }, keep });
		const original = await png(200, 120);
		const res = await uploadEmoji(alice, "party_parrot", [{ name: "parrot.png", bytes: original, type: "image/png" }]);
		expect([res.status, res.body]).toEqual([200, { result: "success", msg: "" }]);

		const emoji = await byName("party_parrot");
		expect(emoji).toEqual({ id: expect.stringMatching(/^\d+$/), name: "party_parrot", source_url: expect.stringMatching(/^\/user_avatars\/\d+\/emoji\/images\/[0-9a-f]+\.png$/), still_url: null, deactivated: false, author_id: alice.user_id });
		const events = await queues(bob);
		expect(events).toEqual([{ type: "realm_emoji", op: "update", realm_emoji: { [emoji.id]: emoji } }]);
		const state = await as(bob).post("/register", { fetch_event_types: JSON.stringify(["realm_emoji"]) });
		expect(state.body.realm_emoji).toEqual({ [emoji.id]: emoji });

		// Served to anyone who has the URL (as Zulip serves /user_avatars), resized to 64×64.
		const image = await get(emoji.source_url);
		expect(image.status).toBe(200);
		expect(image.headers.get("content-type")).toBe("image/png");
		const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
		expect([meta.format, meta.width, meta.height]).toEqual(["png", 64, 64]);
		const kept = await get(`${emoji.source_url}.original`);
		expect(Buffer.from(await kept.arrayBuffer()).equals(original)).toBe(true);
		expect((await get(emoji.source_url.replace(/\.png$/, "0.png"))).status).toBe(404);
	});

	test("a JPEG stays a JPEG, cut to a 64×64 square from its centre", async () => {
		expectSuccess(await uploadEmoji(admin, "blue-square", [{ name: "b.jpg", bytes: await jpeg(300, 90), type: "image/jpeg" }]));
		const emoji = await byName("blue-square");
		expect(emoji.source_url).toMatch(/\.jpg$/);
		const meta = await sharp(Buffer.from(await (await get(emoji.source_url)).arrayBuffer())).metadata();
		expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 64, 64]);
	});

	test("an animated GIF keeps its frames at 64×64 and gets a still PNG version", async () => {
		expectSuccess(await uploadEmoji(alice, "blink", [{ name: "blink.gif", bytes: await animatedGif(80, 40, 3), type: "image/gif" }]));
		const emoji = await byName("blink");
		expect(emoji.still_url).toMatch(/^\/user_avatars\/\d+\/emoji\/images\/still\/[0-9a-f]+\.png$/);
		const animated = await sharp(Buffer.from(await (await get(emoji.source_url)).arrayBuffer()), { animated: true }).metadata();
		expect([animated.format, animated.pages, animated.width, animated.pageHeight]).toEqual(["gif", 3, 64, 64]);
		const still = await sharp(Buffer.from(await (await get(emoji.still_url)).arrayBuffer())).metadata();
		expect([still.format, still.width, still.height, still.pages ?? 1]).toEqual(["png", 64, 64, 1]);
	});

	test("the name is stripped and its spaces become underscores, as Zulip's", async () => {
		expectSuccess(await uploadEmoji(alice, "%20team%20logo%20", [{ name: "s.png", bytes: await png(10, 10), type: "image/png" }]));
		expect(await byName("team_logo")).toBeDefined();
	});

	test("bad names, no permission, a name in use, a built-in name, a non-image, a wrong type, too large, two files: Zulip's errors, nothing changed", async () => {
		const image = await png(32, 32);
		const one = [{ name: "e.png", bytes: image, type: "image/png" }];
		const refused = (a: Account, name: string, files: FilePart[], status: number, code: string, msg: string | RegExp) => snap.refused(() => uploadEmoji(a, name, files), status, code, msg);
		const charset = "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.";
		await refused(alice, "my_em*oji", one, 400, "BAD_REQUEST", charset);
		await refused(alice, "my_EMoji", one, 400, "BAD_REQUEST", charset);
		await refused(alice, "%C3%A9moji", one, 400, "BAD_REQUEST", charset);
		await refused(alice, "my_emoji_", one, 400, "BAD_REQUEST", "Emoji names must end with either a letter or digit.");
		await refused(alice, "%20", one, 400, "BAD_REQUEST", "Emoji name is missing");
		await refused(alice, "x".repeat(1001), one, 400, "BAD_REQUEST", /emoji_name/);
		await refused(guest, "guest_emoji", one, 400, "BAD_REQUEST", "Not allowed for guest users");
		await refused(alice, "party_parrot", one, 400, "BAD_REQUEST", "A custom emoji with this name already exists.");
		await refused(alice, "smile", one, 400, "BAD_REQUEST", "Only administrators can override default emoji.");
		await refused(alice, "not_image", [{ name: "e.png", bytes: Buffer.from("this is not an image at all"), type: "image/png" }], 400, "BAD_IMAGE", "Could not decode image; did you upload an image file?");
		await refused(alice, "text_file", [{ name: "e.txt", bytes: image, type: "text/plain" }], 400, "BAD_IMAGE", "Invalid image format");
		await refused(alice, "tiff_file", [{ name: "e.tif", bytes: await sharp(image).tiff().toBuffer(), type: "image/tiff" }], 400, "BAD_IMAGE", "Invalid image format");
		await refused(alice, "too_large", [{ name: "big.png", bytes: Buffer.alloc(5 * 1024 * 1024 + 1, 7), type: "image/png" }], 400, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB");
		await refused(alice, "two_files", [...one, ...one], 400, "BAD_REQUEST", "You must upload exactly one file.");
		await refused(alice, "no_file", [], 400, "BAD_REQUEST", "You must upload exactly one file.");
		await snap.refused(() => as(alice).post("/realm/emoji/plain_form", { file: "abc" }), 400, "BAD_REQUEST", "You must upload exactly one file.");
		await snap.refused(() => client(app.baseUrl).post("/realm/emoji/anonymous"), 401, "UNAUTHORIZED", /authorization/i);
	});

	test("can_add_custom_emoji_group decides who adds emoji; an administrator may take a built-in emoji's name", async () => {
		expect((await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body.realm_can_add_custom_emoji_group).toBe(membersGroup);
		expectSuccess(await owner.patch("/realm", { can_add_custom_emoji_group: JSON.stringify({ new: adminsGroup }) }));
		const small = [{ name: "e.png", bytes: await png(8, 8), type: "image/png" }];
		try {
			await snap.refused(() => uploadEmoji(alice, "members_emoji", small), 400, "BAD_REQUEST", "Insufficient permission");
			expectSuccess(await uploadEmoji(admin, "smile", small));
		} finally {
			expectSuccess(await owner.patch("/realm", { can_add_custom_emoji_group: JSON.stringify({ new: membersGroup }) }));
		}
		expect(await byName("smile")).toMatchObject({ author_id: admin.user_id });
	});
});

describe("DELETE /realm/emoji/{emoji_name}", () => {
	test("an unknown name, someone else's emoji: Zulip's errors, nothing changed", async () => {
		await snap.refused(() => as(alice).delete("/realm/emoji/no_such_emoji"), 404, "BAD_REQUEST", "Emoji 'no_such_emoji' does not exist");
		await snap.refused(() => as(bob).delete("/realm/emoji/party_parrot"), 400, "BAD_REQUEST", "Must be an organization administrator or emoji author");
	});

	test("the author deactivates theirs (still listed, deactivated), an event tells everyone, and the name is free again; an administrator removes anyone's", async () => {
		expectSuccess(await uploadEmoji(alice, "short_lived", [{ name: "e.png", bytes: await png(8, 8), type: "image/png" }]));
		const emoji = await byName("short_lived");
		const queues = await eventQueues(as, [bob], { register: { event_types: JSON.stringify(["realm_emoji"]) }, keep: (e) => e.type === "realm_emoji" });
		expectSuccess(await as(alice).delete("/realm/emoji/short_lived"));
		const listed = await listEmoji(bob);
		expect(listed[emoji.id]).toEqual({ ...emoji, deactivated: true });
		expect(await queues(bob)).toEqual([{ type: "realm_emoji", op: "update", realm_emoji: listed }]);
		// Its image stays: old messages still show it.
		expect((await get(emoji.source_url)).status).toBe(200);
		await snap.refused(() => as(alice).delete("/realm/emoji/short_lived"), 404, "BAD_REQUEST", "Emoji 'short_lived' does not exist");

		expectSuccess(await uploadEmoji(bob, "short_lived", [{ name: "e.png", bytes: await png(8, 8), type: "image/png" }]));
		const again = await byName("short_lived");
		expect(again.id).not.toBe(emoji.id);
		expectSuccess(await as(admin).delete("/realm/emoji/short_lived"));
		expect((await listEmoji(bob))[again.id].deactivated).toBe(true);
	});
});

describe("custom emoji in messages", () => {
	let messageId: number;
	beforeAll(async () => {
		expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "emoji" }]) }));
		messageId = await sendMessage(as(alice), { type: "stream", to: "emoji", topic: "t", content: "look :party_parrot: and :smile: and :no_such_thing:" });
	});

	test("`:name:` renders as Zulip's <img class=\"emoji\">, a custom emoji before a built-in one of the same name", async () => {
		const parrot = await byName("party_parrot");
		const smile = await byName("smile");
		const m = (await as(alice).get(`/messages/${messageId}`)).body.message;
		expect(m.content).toBe(
			`<p>look <img alt=":party_parrot:" class="emoji" src="${parrot.source_url}" title="party parrot"> and <img alt=":smile:" class="emoji" src="${smile.source_url}" title="smile"> and :no_such_thing:</p>`,
		);
	});

	test("reactions by name or by ID with reaction_type realm_emoji; an unknown ID, a wrong name or a deactivated emoji refused", async () => {
		const parrot = await byName("party_parrot");
		expectSuccess(await as(alice).post(`/messages/${messageId}/reactions`, { emoji_name: "party_parrot" }));
		expectSuccess(await as(bob).post(`/messages/${messageId}/reactions`, { emoji_name: "party_parrot", emoji_code: parrot.id, reaction_type: "realm_emoji" }));
		const reactions = (await as(alice).get(`/messages/${messageId}`)).body.message.reactions;
		expect(reactions.map((r: any) => [r.emoji_name, r.emoji_code, r.reaction_type, r.user_id])).toEqual([
			["party_parrot", parrot.id, "realm_emoji", alice.user_id],
			["party_parrot", parrot.id, "realm_emoji", bob.user_id],
		]);
		const react = (params: Record<string, unknown>) => () => as(admin).post(`/messages/${messageId}/reactions`, params);
		await snap.refused(react({ emoji_name: "party_parrot", emoji_code: "999999", reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "Invalid custom emoji.");
		// A code nobody reacted with yet is checked against its name (one already used joins the others' reaction, as Zulip).
		const blink = await byName("blink");
		await snap.refused(react({ emoji_name: "party_parrot", emoji_code: blink.id, reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "Invalid custom emoji name.");
		const gone = Object.values(await listEmoji(alice)).find((e: any) => e.deactivated)!;
		await snap.refused(react({ emoji_name: gone.name, emoji_code: gone.id, reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "This custom emoji has been deactivated.");
		expectSuccess(await as(bob).delete(`/messages/${messageId}/reactions`, { emoji_name: "party_parrot", emoji_code: parrot.id, reaction_type: "realm_emoji" }));
		await snap.refused(() => as(bob).delete(`/messages/${messageId}/reactions`, { emoji_name: "party_parrot", emoji_code: parrot.id, reaction_type: "realm_emoji" }), 400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
	});
});

describe("custom emoji in user status", () => {
	test("a status takes a custom emoji by name or by ID; an unknown ID, a wrong name or a deactivated one refused", async () => {
		const parrot = await byName("party_parrot");
		expectSuccess(await as(bob).post("/users/me/status", { status_text: "party", emoji_name: "party_parrot" }));
		expect((await as(bob).get(`/users/${bob.user_id}/status`)).body.status).toEqual({ status_text: "party", emoji_name: "party_parrot", emoji_code: parrot.id, reaction_type: "realm_emoji" });
		const status = (params: Record<string, unknown>) => () => as(bob).post("/users/me/status", params);
		await snap.refused(status({ emoji_name: "party_parrot", emoji_code: "999999", reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "Invalid custom emoji.");
		await snap.refused(status({ emoji_name: "blink", emoji_code: parrot.id, reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "Invalid custom emoji name.");
		const gone = Object.values(await listEmoji(alice)).find((e: any) => e.deactivated)!;
		await snap.refused(status({ emoji_name: gone.name, emoji_code: gone.id, reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "This custom emoji has been deactivated.");
	});
});

describe("hostile input", () => {
	test("odd paths under /user_avatars: 404 (or 400), never a file or a 5xx", async () => {
		const parrot = await byName("party_parrot");
		const paths = ["/user_avatars/", "/user_avatars/..%2F..%2Fetc%2Fpasswd", "/user_avatars/%E0%A4%A", `/user_avatars/${"a/".repeat(3000)}x.png`, "/user_avatars/1/emoji/images/../images/x.png", `${parrot.source_url}%00`, "/user_avatars/%2e%2e/x"];
		for (const path of paths) {
			const res = await get(path);
			expect([path, res.status < 500, res.status === 200]).toEqual([path, true, false]);
			await res.arrayBuffer();
		}
	});

	test("a body that is not multipart, a bad boundary, a body cut short: refused, nothing changed", async () => {
		const post = (body: string, type: string) => () => fetch(`${app.baseUrl}/realm/emoji/cut_short`, { method: "POST", body, headers: { Authorization: basic(alice), "Content-Type": type } }).then(async (r) => ({ status: r.status, body: await r.json() }));
		await snap.refused(post("{}", "application/json"), 400, "BAD_REQUEST", "You must upload exactly one file.");
		const badName = () => fetch(`${app.baseUrl}/realm/emoji/%E0%A4%A`, { method: "POST", body: "{}", headers: { Authorization: basic(alice), "Content-Type": "application/json" } }).then(async (r) => ({ status: r.status, body: await r.json() }));
		await snap.unchanged(async () => expect((await badName()).status).toBe(400));
		await snap.refused(post("--x\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.png\"\r\n\r\nabc", "multipart/form-data; boundary=y"), 400, "BAD_REQUEST", /./);
		await snap.refused(post("--x\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG", "multipart/form-data; boundary=x"), 400, "BAD_REQUEST", /./);
	});
});
