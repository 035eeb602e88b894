// A bot's avatar, as Zulip's add_bot_backend and patch_bot_backend: POST /bots and
// PATCH /bots/{bot_id} sent as multipart with the bot's parameters as text fields and an optional
// image file, which becomes the bot's avatar (avatar_source "U", Zulip's 100×100 and 500×500 PNGs
// served at /user_avatars); without a file they answer as before. Every refusal (two files, not an
// image, too large, a parameter the bot's checks refuse, who may not) stores nothing and changes
// nothing; a new avatar's events and the previous images' removal.
import http from "node:http";
import fc from "fast-check";
import sharp from "sharp";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, jsonOf } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues, type Ev } from "../support/events";
import { basicAuth, sendMultipart, stillImage, type FilePart } from "../support/images";

let app: TestApp;
let snap: Snapshotter;
let site: string;
let alice: Account;
let bob: Account;
let guest: Account;
const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ role: 600, full_name: "Guest" });
	expectSuccess(await as(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] }));
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap?.close();
	await app.stop();
});

const png = async (): Promise<FilePart> => ({ name: "face.png", bytes: await stillImage(240, 160, "png"), type: "image/png" });
const createBot = (a: Account, fields: Record<string, string>, files: FilePart[] = []) => sendMultipart(app, a, "POST", "/bots", { fields, files });
const patchBot = (a: Account, id: number, fields: Record<string, string>, files: FilePart[] = []) => sendMultipart(app, a, "PATCH", `/bots/${id}`, { fields, files });
const userOf = async (id: number) => (await as(bob).get(`/users/${id}`, { client_gravatar: "false" })).body.user;

/** The image at an avatar URL: its status, and its size when served. */
async function image(url: string): Promise<{ status: number; width?: number; height?: number }> {
	const res = await fetch(`${site}${url}`);
	if (res.status !== 200) return { status: res.status };
	const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
	return { status: 200, width: meta.width, height: meta.height };
}

const UPLOADED = /^\/user_avatars\/\d+\/[0-9a-f]+\.png\?version=(\d+)$/;
const mediumOf = (url: string) => url.replace(/\.png\?/, "-medium.png?");

describe("POST /bots with an avatar", () => {
	test("the file becomes the bot's avatar: in the answer, the user, GET /bots, its realm_bot and realm_user events, served 100×100 and 500×500", async () => {
		const keep = (e: Ev) => e.type === "realm_bot" || (e.type === "realm_user" && e.op === "add");
		const queues = await eventQueues(as, [alice], { register: { fetch_event_types: JSON.stringify(["realm_user", "realm_bot"]) }, keep });
		const res = await createBot(alice, { full_name: "Pictured", short_name: "pictured", default_sending_stream: "general" }, [await png()]);
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ result: "success", default_sending_stream: "general", avatar_url: expect.stringMatching(UPLOADED) });
		const url: string = res.body.avatar_url;
		expect(url.match(UPLOADED)![1]).toBe("1");
		expect(await userOf(res.body.user_id)).toMatchObject({ is_bot: true, avatar_url: url, avatar_version: 1 });
		expect((await as(alice).get("/bots")).body.bots.find((b: any) => b.username === "pictured-bot@chat.test")).toMatchObject({ avatar_url: url });
		expect(await image(url)).toEqual({ status: 200, width: 100, height: 100 });
		expect(await image(mediumOf(url))).toEqual({ status: 200, width: 500, height: 500 });
		const events = await queues(alice);
		expect(events.find((e) => e.type === "realm_bot")).toMatchObject({ op: "add", bot: { user_id: res.body.user_id, avatar_url: url } });
		expect(events.find((e) => e.type === "realm_user")).toMatchObject({ op: "add", person: { user_id: res.body.user_id, avatar_url: url } });
	});

	test("a multipart body without a file creates the bot as a form does, with a gravatar; fields after the file are ignored", async () => {
		const plain = await createBot(alice, { full_name: "Plain form", short_name: "plainform" });
		expect(plain.status).toBe(200);
		expect(plain.body.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
		expect(await userOf(plain.body.user_id)).toMatchObject({ full_name: "Plain form", avatar_version: 1 });

		const form = new FormData();
		form.append("full_name", "Field order");
		form.append("short_name", "fieldorder");
		form.append("file", new Blob([(await png()).bytes], { type: "image/png" }), "face.png");
		form.append("default_all_public_streams", "true");
		const res = await fetch(`${app.baseUrl}/bots`, { method: "POST", body: form, headers: { Authorization: `Basic ${Buffer.from(`${alice.email}:${alice.api_key}`).toString("base64")}` } });
		const body = (await res.json()) as Record<string, unknown>;
		expect([res.status, body.result, body.default_all_public_streams, body.ignored_parameters_unsupported]).toEqual([200, "success", false, ["default_all_public_streams"]]);
	});

	test("refusals store nothing and change nothing: two files, not an image, too large, the bot's own checks, a guest", async () => {
		const base = { full_name: "Refused", short_name: "refused" };
		const post = (a: Account, fields: Record<string, string>, files: FilePart[]) => () => createBot(a, fields, files).then((r) => ({ status: r.status, body: r.body }));
		const one = await png();
		await snap.refused(post(alice, base, [one, one]), 400, "BAD_REQUEST", "You may only upload one file at a time");
		await snap.refused(post(alice, base, [{ name: "x.png", bytes: Buffer.from("plain text, not a picture"), type: "image/png" }]), 400, "BAD_IMAGE", "Could not decode image; did you upload an image file?");
		await snap.refused(post(alice, base, [{ name: "x.pdf", bytes: one.bytes, type: "application/pdf" }]), 400, "BAD_IMAGE", "Invalid image format");
		await snap.refused(post(alice, base, [{ name: "big.png", bytes: Buffer.alloc(5 * 1024 * 1024 + 1, 1), type: "image/png" }]), 400, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB");
		await snap.refused(post(alice, { ...base, full_name: "Bad*name" }, [one]), 400, "BAD_REQUEST", "Invalid characters in name!");
		await snap.refused(post(alice, { ...base, short_name: "pictured" }, [one]), 400, "BAD_REQUEST", "Username already in use");
		await snap.refused(post(alice, { ...base, default_sending_stream: "nowhere" }, [one]), 400, "BAD_REQUEST", "Invalid channel name 'nowhere'");
		await snap.refused(post(alice, { ...base, bot_type: "generic" }, [one]), 400, "BAD_REQUEST", "bot_type is not an integer");
		await snap.refused(post(alice, { full_name: "No short name" }, [one]), 400, "REQUEST_VARIABLE_MISSING", "Missing 'short_name' argument");
		await snap.refused(post(guest, base, [one]), 400, "BAD_REQUEST", "Not allowed for guest users");
	});
});

describe("PATCH /bots/{bot_id} with an avatar", () => {
	test("a new avatar: a new version, realm_user and realm_bot updates, the previous images removed; other fields applied with it", async () => {
		const created = await createBot(alice, { full_name: "Changing", short_name: "changing" }, [await png()]);
		const id: number = created.body.user_id;
		const first: string = created.body.avatar_url;
		const keep = (e: Ev) => (e.type === "realm_bot" && e.op === "update") || (e.type === "realm_user" && e.op === "update");
		const queues = await eventQueues(as, [alice], { register: { fetch_event_types: JSON.stringify(["realm_user", "realm_bot"]) }, keep });

		const res = await patchBot(alice, id, { full_name: "Changed" }, [{ name: "new.jpg", bytes: await stillImage(80, 120, "jpeg"), type: "image/jpeg" }]);
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ result: "success", full_name: "Changed", avatar_url: expect.stringMatching(UPLOADED) });
		const url: string = res.body.avatar_url;
		expect(url.match(UPLOADED)![1]).toBe("2");
		expect(url.split("?")[0]).not.toBe(first.split("?")[0]);
		expect(await userOf(id)).toMatchObject({ full_name: "Changed", avatar_url: url, avatar_version: 2 });
		expect(await image(url)).toEqual({ status: 200, width: 100, height: 100 });
		// As users.setAvatar: the previous upload's images are gone.
		expect((await image(first)).status).toBe(404);
		expect((await image(mediumOf(first))).status).toBe(404);

		const events = await queues(alice);
		expect(events.find((e) => e.type === "realm_user" && e.person.avatar_version === 2)).toEqual({
			type: "realm_user",
			op: "update",
			person: { user_id: id, avatar_source: "U", avatar_url: url, avatar_url_medium: mediumOf(url), avatar_version: 2 },
		});
		expect(events.find((e) => e.type === "realm_bot" && e.bot.avatar_url)).toMatchObject({ op: "update", bot: { user_id: id, avatar_url: url } });
		expect(events.some((e) => e.type === "realm_bot" && e.bot.full_name === "Changed")).toBe(true);
	});

	test("without a file, a multipart PATCH changes the fields only; refusals with a file change nothing", async () => {
		const created = await createBot(alice, { full_name: "Steady", short_name: "steady" }, [await png()]);
		const id: number = created.body.user_id;
		const res = await patchBot(alice, id, { full_name: "Steady still" });
		expect([res.status, res.body.full_name, res.body.avatar_url]).toEqual([200, "Steady still", created.body.avatar_url]);
		expect((await userOf(id)).avatar_version).toBe(1);

		const one = await png();
		const patch = (a: Account, fields: Record<string, string>, files: FilePart[]) => () => patchBot(a, id, fields, files).then((r) => ({ status: r.status, body: r.body }));
		await snap.refused(patch(alice, {}, [one, one]), 400, "BAD_REQUEST", "You may only upload one file at a time");
		await snap.refused(patch(alice, {}, [{ name: "x.txt", bytes: Buffer.from("text"), type: "text/x-python" }]), 400, "BAD_IMAGE", "Invalid image format");
		await snap.refused(patch(alice, { full_name: "Bad*name" }, [one]), 400, "BAD_REQUEST", "Invalid characters in name!");
		await snap.refused(patch(bob, {}, [one]), 400, "BAD_REQUEST", "Insufficient permission");
		await snap.refused(() => patchBot(alice, 999999, {}, [one]).then((r) => ({ status: r.status, body: r.body })), 400, "BAD_REQUEST", "No such bot");
		expect(await image(created.body.avatar_url)).toEqual({ status: 200, width: 100, height: 100 });
	});
});

describe("odd multipart bodies to POST /bots", () => {
	/** Exactly these bytes to POST /api/v1/bots as Alice; null when the connection ended without an answer. */
	function raw(contentType: string, body: Buffer): Promise<{ status: number; body: any } | null> {
		const url = new URL(site);
		return new Promise((resolve) => {
			const req = http.request({ host: url.hostname, port: url.port, method: "POST", path: "/api/v1/bots", headers: { Authorization: basicAuth(alice), "Content-Type": contentType, "Content-Length": String(body.length) } });
			req.on("response", (res) => {
				const parts: Buffer[] = [];
				res.on("data", (d: Buffer) => parts.push(d));
				res.on("end", () => resolve({ status: res.statusCode!, body: jsonOf(Buffer.concat(parts).toString()) }));
				res.on("error", () => resolve(null));
			});
			req.on("error", () => resolve(null));
			req.end(body);
		});
	}
	const CRLF = "\r\n";
	const form = (boundary: string, parts: Array<{ name: string; value: string | Uint8Array; file?: string }>, close = true) =>
		Buffer.concat([
			...parts.flatMap((p) => [
				Buffer.from(`--${boundary}${CRLF}Content-Disposition: form-data; name="${p.name}"${p.file === undefined ? "" : `; filename="${p.file}"${CRLF}Content-Type: image/png`}${CRLF}${CRLF}`),
				Buffer.from(p.value),
				Buffer.from(CRLF),
			]),
			Buffer.from(close ? `--${boundary}--${CRLF}` : ""),
		]);
	const wellFormed = (a: { status: number; body: any } | null, what: string) => {
		if (a && (a.status >= 500 || (a.body?.result !== "success" && a.body?.result !== "error"))) throw new Error(`${what}: HTTP ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
	};

	test("cut short, a field past 64 KiB, a field named __proto__, thousands of fields, no closing boundary: refused, nothing stored", async () => {
		const image = (await png()).bytes;
		const good = [
			{ name: "full_name", value: "Odd body" },
			{ name: "short_name", value: "oddbody" },
			{ name: "file", value: image, file: "a.png" },
		];
		const cases: Array<[string, Buffer]> = [
			["mid-field", form("b", good).subarray(0, 60)],
			["mid-file", form("b", good).subarray(0, form("b", good).length - 200)],
			["no closing boundary", form("b", good, false)],
			["a 70 KiB field", form("b", [{ name: "full_name", value: "x".repeat(70 * 1024) }, ...good.slice(1)])],
			["__proto__ as a field", form("b", [{ name: "__proto__", value: "{}" }, { name: "full_name", value: "Odd body" }, { name: "file", value: image, file: "a.png" }])],
			["5,000 fields", form("b", [...Array.from({ length: 5000 }, (_, i) => ({ name: `f${i}`, value: "v" })), ...good])],
		];
		for (const [what, body] of cases) {
			await snap.unchanged(async () => {
				const a = await raw("multipart/form-data; boundary=b", body);
				wellFormed(a, what);
				if (a) expect([what, a.status]).toEqual([what, 400]);
			});
		}
	});

	test("mutations of a good body: never a 5xx; a refusal changes nothing", async () => {
		const image = (await png()).bytes;
		let n = 0;
		const mutation = fc.record({ kind: fc.constantFrom("cut", "flip", "insert"), at: fc.nat(), bytes: fc.array(fc.constantFrom(0, 10, 13, 34, 45, 59, 61, 0xff, ...Buffer.from("--mb")), { minLength: 1, maxLength: 20 }) });
		await fc.assert(
			fc.asyncProperty(fc.array(mutation, { maxLength: 2 }), async (mutations) => {
				n++;
				let body = form("mb", [
					{ name: "full_name", value: `Mutant ${n}` },
					{ name: "short_name", value: `mutant${n}` },
					{ name: "file", value: image, file: "m.png" },
				]);
				for (const m of mutations) {
					const at = m.at % (body.length + 1);
					if (m.kind === "cut") body = body.subarray(0, at);
					else if (m.kind === "flip") body = Buffer.concat([body.subarray(0, at), Buffer.from(m.bytes), body.subarray(at + m.bytes.length)]);
					else body = Buffer.concat([body.subarray(0, at), Buffer.from(m.bytes), body.subarray(at)]);
				}
				const before = await snap.take();
				const a = await raw("multipart/form-data; boundary=mb", body);
				wellFormed(a, `${mutations.length} mutations, ${body.length} bytes`);
				if (a?.status !== 200) expect(await snap.take()).toEqual(before);
			}),
			{ seed: 20261126, numRuns: 40, endOnFailure: true },
		);
	}, 300_000);
});
