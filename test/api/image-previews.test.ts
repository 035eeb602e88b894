// Uploaded images in messages, through HTTP: an image upload gets its dimensions and Zulip's
// thumbnails (840x560.webp, 840x560-anim.webp for an animation, a transcoding for a type browsers
// do not show), a message linking it renders Zulip's inline preview with the thumbnail's URL, the
// thumbnail is served to whoever may read the original and "File not found." to anyone else,
// has:image finds the message; a file that is no image (or does not decode) stays a plain link.
import zlib from "node:zlib";
import mongoose from "mongoose";
import sharp from "sharp";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, sendMessage } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { animatedGif, fetchSite, stillImage, uploadFile } from "../support/images";

let app: TestApp;
let alice: Account;
let bob: Account;
let snap: Snapshotter;

beforeAll(async () => {
	app = await startTestApp();
	alice = await app.createUser({ full_name: "Alice Pictures" });
	bob = await app.createUser({ full_name: "Bob Outsider" });
	// A private channel: Bob may read none of its messages.
	expectSuccess(await client(app.baseUrl, app.owner).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "pictures" }]), invite_only: true, principals: JSON.stringify([app.owner.user_id, alice.user_id]) }));
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

const as = (a: Account) => client(app.baseUrl, a);
const pathOf = (url: string) => url.replace(/^\/user_uploads\//, "");

async function upload(name: string, bytes: Uint8Array, type?: string): Promise<string> {
	const res = await uploadFile(app, alice, name, bytes, type);
	expectSuccess(res as any);
	return res.body.url;
}

async function sendAndRead(content: string): Promise<{ id: number; content: string }> {
	const id = await sendMessage(as(alice), { type: "stream", to: "pictures", topic: "images", content });
	const got = await as(alice).get(`/messages/${id}`);
	expectSuccess(got);
	return { id, content: got.body.message.content };
}

/** Zulip's paragraph with the link, then its inline preview (test_markdown_thumbnail.py's form, with the content type). */
const previewed = (url: string, name: string, img: string) =>
	`<p><a href="${url}" target="_blank" rel="noopener noreferrer">${name}</a></p>\n` + `<div class="message_inline_image"><a href="${url}" title="${name}">${img}</a></div>`;

async function thumbnail(path: string, a: Account | null) {
	const res = await fetchSite(app, path, a);
	return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

test("a PNG: Zulip's inline preview with its 840x560.webp thumbnail, served to its reader as a WebP within 840x560", async () => {
	const url = await upload("diagram.png", await stillImage(1000, 700, "png"), "image/png");
	const src = `/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`;
	const sent = await sendAndRead(`[diagram.png](${url})`);
	expect(sent.content).toBe(previewed(url, "diagram.png", `<img data-original-content-type="image/png" data-original-dimensions="1000x700" src="${src}">`));

	const got = await thumbnail(src, alice);
	expect(got.status).toBe(200);
	expect(got.type).toBe("image/webp");
	const meta = await sharp(got.bytes).metadata();
	expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: "webp", width: 800, height: 560 });

	// A recipient of the message linking it may read the original, and so its thumbnail.
	expect((await thumbnail(src, app.owner)).status).toBe((await fetchSite(app, url, app.owner)).status);
	// Someone who may not read the original gets what a missing file gets; no credentials, Zulip's 401.
	const other = await fetchSite(app, src, bob);
	expect(other.status).toBe(404);
	expect(await other.json()).toMatchObject({ result: "error", code: "NOT_FOUND", msg: "File not found." });
	expect((await fetchSite(app, src, null)).status).toBe(401);
	// No animated thumbnail of a still image, and no format that was not made.
	expect((await thumbnail(`/user_uploads/thumbnail/${pathOf(url)}/840x560-anim.webp`, alice)).status).toBe(404);
	expect((await thumbnail(`/user_uploads/thumbnail/${pathOf(url)}/100x100.webp`, alice)).status).toBe(404);
});

test("a JPEG turned by its EXIF orientation: dimensions as shown, never scaled up", async () => {
	const url = await upload("photo.jpg", await stillImage(300, 100, "jpeg", { orientation: 6 }), "image/jpeg");
	const src = `/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`;
	const sent = await sendAndRead(`[photo.jpg](${url})`);
	expect(sent.content).toBe(previewed(url, "photo.jpg", `<img data-original-content-type="image/jpeg" data-original-dimensions="100x300" src="${src}">`));
	const meta = await sharp((await thumbnail(src, alice)).bytes).metadata();
	expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: "webp", width: 100, height: 300 });
});

test("an animated GIF: the animated thumbnail, marked data-animated, with every frame; a still one too", async () => {
	const url = await upload("dance.gif", await animatedGif(64, 40, 3), "image/gif");
	const src = `/user_uploads/thumbnail/${pathOf(url)}/840x560-anim.webp`;
	const sent = await sendAndRead(`[dance.gif](${url})`);
	expect(sent.content).toBe(previewed(url, "dance.gif", `<img data-animated="true" data-original-content-type="image/gif" data-original-dimensions="64x40" src="${src}">`));
	const anim = await sharp((await thumbnail(src, alice)).bytes, { animated: true }).metadata();
	expect({ format: anim.format, width: anim.width, pageHeight: anim.pageHeight, pages: anim.pages }).toEqual({ format: "webp", width: 64, pageHeight: 40, pages: 3 });
	const still = await thumbnail(`/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`, alice);
	expect(still.status).toBe(200);
	expect((await sharp(still.bytes).metadata()).pages ?? 1).toBe(1);
	expect((await fetchSite(app, src, bob)).status).toBe(404);
});

test("a TIFF, which browsers do not show: also a large WebP transcoding, named in data-transcoded-image", async () => {
	const url = await upload("scan.tiff", await stillImage(1200, 900, "tiff"), "image/tiff");
	const src = `/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`;
	const sent = await sendAndRead(`[scan.tiff](${url})`);
	expect(sent.content).toBe(
		previewed(url, "scan.tiff", `<img data-original-content-type="image/tiff" data-original-dimensions="1200x900" data-transcoded-image="4032x3024.webp" src="${src}">`),
	);
	const full = await sharp((await thumbnail(`/user_uploads/thumbnail/${pathOf(url)}/4032x3024.webp`, alice)).bytes).metadata();
	expect({ format: full.format, width: full.width, height: full.height }).toEqual({ format: "webp", width: 1200, height: 900 });
	const small = await sharp((await thumbnail(src, alice)).bytes).metadata();
	expect({ width: small.width, height: small.height }).toEqual({ width: 747, height: 560 });
});

test("a text file and an image that does not decode are accepted and stay plain links, without thumbnails", async () => {
	const text = await upload("notes.txt", new TextEncoder().encode("just words\n"), "text/plain");
	const broken = await upload("broken.png", new TextEncoder().encode("\x89PNG but not really"), "image/png");
	for (const [url, name] of [
		[text, "notes.txt"],
		[broken, "broken.png"],
	]) {
		const sent = await sendAndRead(`[${name}](${url})`);
		expect(sent.content).toBe(`<p><a href="${url}" target="_blank" rel="noopener noreferrer">${name}</a></p>`);
		expect((await thumbnail(`/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`, alice)).status).toBe(404);
		// The file itself is there, as uploaded.
		expect((await fetchSite(app, url, alice)).status).toBe(200);
	}
});

test("several images in one message, each previewed once after its paragraph; has:image finds only messages with a preview", async () => {
	const a = await upload("a.png", await stillImage(20, 10, "png"), "image/png");
	const b = await upload("b.png", await stillImage(10, 20, "png"), "image/png");
	const img = (url: string, dims: string) => `<img data-original-content-type="image/png" data-original-dimensions="${dims}" src="/user_uploads/thumbnail/${pathOf(url)}/840x560.webp">`;
	const link = (url: string, name: string) => `<a href="${url}" target="_blank" rel="noopener noreferrer">${name}</a>`;
	const sent = await sendAndRead(`First ${`[a](${a})`} and again [a again](${a})\n\n[b](${b})\n\n> [b quoted](${b})`);
	expect(sent.content).toBe(
		`<p>First ${link(a, "a")} and again ${link(a, "a again")}</p>\n` +
			`<div class="message_inline_image"><a href="${a}" title="a">${img(a, "20x10")}</a></div>` +
			`<p>${link(b, "b")}</p>\n` +
			`<div class="message_inline_image"><a href="${b}" title="b">${img(b, "10x20")}</a></div>` +
			`<blockquote>\n<p>${link(b, "b quoted")}</p>\n</blockquote>`,
	);
	const plain = await sendAndRead("no pictures here");
	const quotedOnly = await sendAndRead(`> [b](${b})`);
	const res = await as(alice).get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: JSON.stringify([["channel", "pictures"], ["has", "image"]]) });
	expectSuccess(res);
	const ids: number[] = res.body.messages.map((m: { id: number }) => m.id);
	expect(ids).toContain(sent.id);
	expect(ids).not.toContain(plain.id);
	expect(ids).not.toContain(quotedOnly.id);
	// Every message of this channel with a preview, and only those.
	expect(res.body.messages.every((m: { content: string }) => m.content.includes('<div class="message_inline_image">'))).toBe(true);
});

test("odd thumbnail paths answer File not found, never an error of the server, and change nothing", async () => {
	const url = await upload("odd.png", await stillImage(8, 8, "png"), "image/png");
	const path = pathOf(url);
	await snap.unchanged(async () => {
		for (const p of [
			"/user_uploads/thumbnail",
			"/user_uploads/thumbnail/",
			`/user_uploads/thumbnail/${path}`,
			`/user_uploads/thumbnail/${path}/`,
			`/user_uploads/thumbnail/${path}/840x560.png`,
			`/user_uploads/thumbnail/${path}/99999999x1.webp`,
			`/user_uploads/thumbnail/${path}/..%2F..%2F840x560.webp`,
			`/user_uploads/thumbnail/x/${path}/840x560.webp`,
			`/user_uploads/thumbnail/${path.replace(/^\d+/, "999")}/840x560.webp`,
			`/user_uploads/thumbnail/${path}/${"9".repeat(1000)}x1.webp`,
		]) {
			const res = await fetchSite(app, p, alice);
			expect({ p, status: res.status }).toEqual({ p, status: 404 });
		}
		// Malformed percent-encoding is refused before any file is looked up, as for every download.
		expect((await fetchSite(app, "/user_uploads/thumbnail/1/%E0%A4%A/x/840x560.webp", alice)).status).toBe(400);
	});
	// The rendered form is the same through POST /messages/render, and has no effect either.
	await snap.unchanged(async () => {
		const res = await as(alice).post("/messages/render", { content: `[odd.png](${url})` });
		expectSuccess(res);
		expect(res.body.rendered).toContain(`src="/user_uploads/thumbnail/${path}/840x560.webp"`);
	});
	expectError(await as(bob).get(`/user_uploads/${path}`), 404, "NOT_FOUND", "File not found.");
});

test("deleting an image's attachment removes its thumbnails with it", async () => {
	const url = await upload("gone.png", await stillImage(30, 30, "png"), "image/png");
	const src = `/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`;
	expect((await thumbnail(src, alice)).status).toBe(200);
	const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
	try {
		const db = conn.useDb(`${app.node.config.dbPrefix}_uploads`).db!;
		const left = async () => ({
			rows: await db.collection("image_attachments").countDocuments({ path_id: pathOf(url) }),
			thumbnails: await db.collection("files.files").countDocuments({ "metadata.thumbnail_of": pathOf(url) }),
		});
		expect(await left()).toEqual({ rows: 1, thumbnails: 1 });
		const list = await as(alice).get("/attachments");
		expectSuccess(list);
		const attachment = list.body.attachments.find((a: { path_id: string }) => a.path_id === pathOf(url));
		expectSuccess(await as(alice).delete(`/attachments/${attachment.id}`));
		expect((await thumbnail(src, alice)).status).toBe(404);
		// Nothing of it is left in the uploads database: no image row, no thumbnail file.
		expect(await left()).toEqual({ rows: 0, thumbnails: 0 });
	} finally {
		await conn.close();
	}
});

test("a truncated JPEG whose header reads is previewed as far as it decodes, as libvips does for Zulip", async () => {
	const whole = await stillImage(300, 200, "jpeg");
	const url = await upload("cut.jpg", whole.subarray(0, Math.floor(whole.length * 0.6)), "image/jpeg");
	const src = `/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`;
	const sent = await sendAndRead(`[cut.jpg](${url})`);
	expect(sent.content).toBe(previewed(url, "cut.jpg", `<img data-original-content-type="image/jpeg" data-original-dimensions="300x200" src="${src}">`));
	const meta = await sharp((await thumbnail(src, alice)).bytes).metadata();
	expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: "webp", width: 300, height: 200 });
});

test("POST /register lists Zulip's server_thumbnail_formats, the names a thumbnail URL may end in", async () => {
	const res = await as(alice).post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
	expectSuccess(res);
	expect(res.body.server_thumbnail_formats).toEqual([
		{ name: "840x560-anim.webp", max_width: 840, max_height: 560, format: "webp", animated: true },
		{ name: "840x560.webp", max_width: 840, max_height: 560, format: "webp", animated: false },
	]);
});

test("images uploaded at the same time all get their thumbnails (they take turns)", async () => {
	const urls = await Promise.all([1, 2, 3, 4, 5].map(async (i) => upload(`many-${i}.png`, await stillImage(100 + i, 50, "png"), "image/png")));
	const sent = await sendAndRead(urls.map((u, i) => `[many-${i + 1}](${u})`).join("\n\n"));
	for (const [i, u] of urls.entries()) expect(sent.content).toContain(`data-original-dimensions="${101 + i}x50" src="/user_uploads/thumbnail/${pathOf(u)}/840x560.webp"`);
	for (const u of urls) expect((await thumbnail(`/user_uploads/thumbnail/${pathOf(u)}/840x560.webp`, alice)).status).toBe(200);
});

test("an image past Zulip's pixel limit (a header claiming 20000×20000) is a file without a preview, its pixels never decoded", async () => {
	const chunk = (type: string, data: Buffer) => {
		const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
		const len = Buffer.alloc(4);
		len.writeUInt32BE(data.length);
		const crc = Buffer.alloc(4);
		crc.writeUInt32BE(zlib.crc32(body));
		return Buffer.concat([len, body, crc]);
	};
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(20000, 0);
	ihdr.writeUInt32BE(20000, 4);
	ihdr.set([8, 2, 0, 0, 0], 8);
	const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(Buffer.alloc(1000))), chunk("IEND", Buffer.alloc(0))]);
	const url = await upload("bomb.png", bomb, "image/png");
	const sent = await sendAndRead(`[bomb.png](${url})`);
	expect(sent.content).toBe(`<p><a href="${url}" target="_blank" rel="noopener noreferrer">bomb.png</a></p>`);
	expect((await thumbnail(`/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`, alice)).status).toBe(404);
});
