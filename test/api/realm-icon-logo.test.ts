// The organization's icon and logos, as Zulip's realm_icon.py and realm_logo.py: POST /realm/icon
// (one image, a 100×100 PNG, answered with icon_url), DELETE /realm/icon (back to the default),
// POST and DELETE /realm/logo with `night` (a logo fitted within 800×100, never enlarged), the
// realm_icon_* and realm_*logo_* fields of POST /register and GET /server_settings' realm_icon,
// Zulip's `realm` update_dict events (property icon, logo, night_logo), the images served at
// /user_avatars, and every refusal (not an administrator, no file or two, not an image, too large,
// night missing or not a boolean) changing nothing.
import sharp from "sharp";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues, type Ev } from "../support/events";
import { sendMultipart, stillImage, type FilePart } from "../support/images";

let app: TestApp;
let snap: Snapshotter;
let site: string;
let admin: Account;
let alice: Account;
const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	admin = await app.createUser({ role: 200, full_name: "Admin" });
	alice = await app.createUser({ full_name: "Alice" });
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap?.close();
	await app.stop();
});

const png = async (w: number, h: number): Promise<FilePart> => ({ name: "img.png", bytes: await stillImage(w, h, "png"), type: "image/png" });
const postIcon = (a: Account, files: FilePart[]) => sendMultipart(app, a, "POST", "/realm/icon", { files });
const postLogo = (a: Account, fields: Record<string, string>, files: FilePart[]) => sendMultipart(app, a, "POST", "/realm/logo", { fields, files });
const state = async (a: Account) => (await as(a).post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body;

async function image(url: string): Promise<{ status: number; width?: number; height?: number; type?: string | null }> {
	const res = await fetch(`${site}${url}`);
	if (res.status !== 200) return { status: res.status };
	const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
	return { status: 200, width: meta.width, height: meta.height, type: res.headers.get("content-type") };
}

const keepRealm = (e: Ev) => e.type === "realm";

test("the defaults in POST /register and GET /server_settings", async () => {
	const s = await state(alice);
	expect(s.realm_icon_url).toMatch(/\/static\/images\/logo\/org_avatar\.png$/);
	expect([s.realm_icon_source, s.realm_logo_source, s.realm_night_logo_source]).toEqual(["G", "D", "D"]);
	expect(s.realm_logo_url).toMatch(/\/static\/images\/logo\/zulip-org-logo\.svg$/);
	expect((await client(app.baseUrl, null).get("/server_settings")).body.realm_icon).toBe(s.realm_icon_url);
});

test("POST /realm/icon: a 100×100 PNG, its URL answered, in POST /register and GET /server_settings, an update_dict event; DELETE goes back", async () => {
	const queues = await eventQueues(as, [alice], { register: { fetch_event_types: JSON.stringify(["realm"]) }, keep: keepRealm });
	const res = await postIcon(admin, [await png(300, 200)]);
	expect(res.status).toBe(200);
	expect(res.body).toEqual({ result: "success", msg: "", icon_url: expect.stringMatching(/^\/user_avatars\/\d+\/realm\/icon-[0-9a-f]+\.png\?version=2$/) });
	const url: string = res.body.icon_url;
	expect(await image(url)).toEqual({ status: 200, width: 100, height: 100, type: "image/png" });
	const s = await state(alice);
	expect([s.realm_icon_url, s.realm_icon_source]).toEqual([url, "U"]);
	expect((await client(app.baseUrl, null).get("/server_settings")).body.realm_icon).toBe(url);
	expect(await queues(alice)).toEqual([{ type: "realm", op: "update_dict", property: "icon", data: { icon_url: url, icon_source: "U" } }]);

	// A second upload: version 3, the first images gone.
	const again = await postIcon(admin, [await png(50, 50)]);
	expect(again.body.icon_url).toMatch(/\?version=3$/);
	expect((await image(url)).status).toBe(404);
	await queues(alice);

	const del = await as(admin).delete("/realm/icon");
	expectSuccess(del);
	expect(del.body.icon_url).toMatch(/\/static\/images\/logo\/org_avatar\.png$/);
	expect((await image(again.body.icon_url)).status).toBe(404);
	expect(await queues(alice)).toEqual([{ type: "realm", op: "update_dict", property: "icon", data: { icon_url: del.body.icon_url, icon_source: "G" } }]);
	expect((await state(alice)).realm_icon_source).toBe("G");
});

test("POST /realm/logo with night false and true: fitted within 800×100 and never enlarged, each its own event; DELETE with night", async () => {
	const queues = await eventQueues(as, [alice], { register: { fetch_event_types: JSON.stringify(["realm"]) }, keep: keepRealm });
	const day = await postLogo(admin, { night: "false" }, [await png(1000, 10)]);
	expect(day.status).toBe(200);
	expect(day.body).toEqual({ result: "success", msg: "" });
	const night = await postLogo(admin, { night: "true" }, [await png(40, 20)]);
	expect(night.body).toEqual({ result: "success", msg: "" });
	const s = await state(alice);
	expect([s.realm_logo_source, s.realm_night_logo_source]).toEqual(["U", "U"]);
	expect(s.realm_logo_url).toMatch(/^\/user_avatars\/\d+\/realm\/logo-[0-9a-f]+\.png\?version=2$/);
	expect(s.realm_night_logo_url).toMatch(/^\/user_avatars\/\d+\/realm\/night_logo-[0-9a-f]+\.png\?version=2$/);
	expect(await image(s.realm_logo_url)).toMatchObject({ status: 200, width: 800, height: 8 });
	expect(await image(s.realm_night_logo_url)).toMatchObject({ status: 200, width: 40, height: 20 });
	expect(await queues(alice)).toEqual([
		{ type: "realm", op: "update_dict", property: "logo", data: { logo_url: s.realm_logo_url, logo_source: "U" } },
		{ type: "realm", op: "update_dict", property: "night_logo", data: { night_logo_url: s.realm_night_logo_url, night_logo_source: "U" } },
	]);

	expectSuccess(await as(admin).delete("/realm/logo", { night: "true" }));
	const after = await state(alice);
	expect([after.realm_logo_source, after.realm_night_logo_source]).toEqual(["U", "D"]);
	expect(after.realm_night_logo_url).toMatch(/zulip-org-logo\.svg$/);
	expect((await image(s.realm_night_logo_url)).status).toBe(404);
	expect(await queues(alice)).toEqual([{ type: "realm", op: "update_dict", property: "night_logo", data: { night_logo_url: after.realm_night_logo_url, night_logo_source: "D" } }]);
});

test("refusals change nothing and store nothing", async () => {
	const one = await png(20, 20);
	const req = (r: Promise<{ status: number; body: any }>) => () => r.then(({ status, body }) => ({ status, body }));
	await snap.refused(() => req(postIcon(alice, [one]))(), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	await snap.refused(() => req(postIcon(admin, []))(), 400, "BAD_REQUEST", "You must upload exactly one icon.");
	await snap.refused(() => req(postIcon(admin, [one, one]))(), 400, "BAD_REQUEST", "You must upload exactly one icon.");
	await snap.refused(() => req(postIcon(admin, [{ name: "x.pdf", bytes: one.bytes, type: "application/pdf" }]))(), 400, "BAD_IMAGE", "Invalid image format");
	await snap.refused(() => req(postIcon(admin, [{ name: "x.png", bytes: Buffer.from("not a picture"), type: "image/png" }]))(), 400, "BAD_IMAGE", "Could not decode image; did you upload an image file?");
	await snap.refused(() => req(postIcon(admin, [{ name: "big.png", bytes: Buffer.alloc(5 * 1024 * 1024 + 1, 1), type: "image/png" }]))(), 400, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB");
	await snap.refused(() => as(alice).delete("/realm/icon"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");

	await snap.refused(() => req(postLogo(alice, { night: "false" }, [one]))(), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
	await snap.refused(() => req(postLogo(admin, {}, [one]))(), 400, "REQUEST_VARIABLE_MISSING", "Missing 'night' argument");
	await snap.refused(() => req(postLogo(admin, { night: "dark" }, [one]))(), 400, "BAD_REQUEST", "night is not a boolean");
	await snap.refused(() => req(postLogo(admin, { night: "false" }, []))(), 400, "BAD_REQUEST", "You must upload exactly one logo.");
	await snap.refused(() => req(postLogo(admin, { night: "false" }, [one, one]))(), 400, "BAD_REQUEST", "You must upload exactly one logo.");
	await snap.refused(() => as(admin).post("/realm/logo", { night: "false" }), 400, "BAD_REQUEST", "You must upload exactly one logo.");
	await snap.refused(() => req(postLogo(admin, { night: "false" }, [{ name: "big.png", bytes: Buffer.alloc(5 * 1024 * 1024 + 1, 1), type: "image/png" }]))(), 400, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB");
	await snap.refused(() => as(admin).delete("/realm/logo"), 400, "REQUEST_VARIABLE_MISSING", "Missing 'night' argument");
	await snap.refused(() => as(alice).delete("/realm/logo", { night: "true" }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
});
