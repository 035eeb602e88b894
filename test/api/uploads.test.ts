// Files through HTTP: POST /user_uploads (multipart, one file, streamed into GridFS), downloads at
// /user_uploads/{realm_id}/{path} with the caller's credentials (headers, byte ranges, caching),
// temporary URLs, and every refusal changing nothing: no file, two files, too large, over the
// quota, bad credentials, a client that goes away mid-body, someone else's file.
import http from "node:http";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { basicAuth, sendMultipart, type FilePart } from "../support/images";

let app: TestApp;
let alice: Account;
let bob: Account;
let snap: Snapshotter;
let site: string;
const MIB = 1024 * 1024;

const basic = basicAuth;

/** POST /user_uploads with `files` as multipart parts (and text `fields`), as Zulip clients send it. */
const upload = (a: Account | null, files: FilePart[], fields: Record<string, string> = {}) => sendMultipart(app, a, "POST", "/user_uploads", { fields, files, partName: () => "file" });

const download = (url: string, a: Account | null, headers: Record<string, string> = {}) => fetch(`${site}${url}`, { headers: { ...(a ? { Authorization: basic(a) } : {}), ...headers } });

function bytes(n: number, seed = 1): Uint8Array {
	const out = new Uint8Array(n);
	let x = seed;
	for (let i = 0; i < n; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
	return out;
}

beforeAll(async () => {
	app = await startTestApp({ maxFileUploadSizeMib: 1, uploadQuotaMib: 3 });
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

test("an upload answers Zulip's url, uri and filename, and reads back byte-exact with its headers", async () => {
	const data = bytes(600 * 1024);
	const res = await upload(alice, [{ name: "report 2024 (final).pdf", bytes: data, type: "application/pdf" }]);
	expectSuccess(res);
	expect(res.body.url).toMatch(/^\/user_uploads\/\d+\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]{24}\/report-2024-final\.pdf$/);
	expect(res.body.uri).toBe(res.body.url);
	expect(res.body.filename).toBe("report 2024 (final).pdf");

	const got = await download(res.body.url, alice);
	expect(got.status).toBe(200);
	expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(data))).toBe(true);
	expect(got.headers.get("content-type")).toBe("application/pdf");
	expect(got.headers.get("content-disposition")).toBe('inline; filename="report-2024-final.pdf"');
	expect(got.headers.get("content-length")).toBe(String(data.length));
	expect(got.headers.get("x-content-type-options")).toBe("nosniff");
	expect(got.headers.get("cache-control")).toBe("private, immutable");
	expect(got.headers.get("accept-ranges")).toBe("bytes");

	// A byte range across a chunk boundary, an open-ended one, a suffix, and one past the end.
	const part = await download(res.body.url, alice, { Range: "bytes=261000-262000" });
	expect(part.status).toBe(206);
	expect(part.headers.get("content-range")).toBe(`bytes 261000-262000/${data.length}`);
	expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(data.subarray(261000, 262001)))).toBe(true);
	const tail = await download(res.body.url, alice, { Range: "bytes=-10" });
	expect(Buffer.from(await tail.arrayBuffer()).equals(Buffer.from(data.subarray(data.length - 10)))).toBe(true);
	const open = await download(res.body.url, alice, { Range: `bytes=${data.length - 3}-` });
	expect(open.status).toBe(206);
	expect((await open.arrayBuffer()).byteLength).toBe(3);
	const past = await download(res.body.url, alice, { Range: `bytes=${data.length}-` });
	expect(past.status).toBe(416);
	expect(past.headers.get("content-range")).toBe(`bytes */${data.length}`);
	// Unchanged since: 304 by its ETag.
	const again = await download(res.body.url, alice, { "If-None-Match": got.headers.get("etag")! });
	expect(again.status).toBe(304);
});

test("a type the browser would run downloads as an attachment; a missing type comes from the name; names are sanitised", async () => {
	const html = await upload(alice, [{ name: "page.html", bytes: new TextEncoder().encode("<script>alert(1)</script>"), type: "" }]);
	expectSuccess(html);
	const got = await download(html.body.url, alice);
	expect(got.headers.get("content-type")).toBe("text/html");
	expect(got.headers.get("content-disposition")).toBe('attachment; filename="page.html"');

	const odd = await upload(alice, [{ name: "../../etc/pass wd?.txt", bytes: new Uint8Array([1]) }]);
	expectSuccess(odd);
	expect(odd.body.url).toMatch(/\/passwd?\.txt$|\/pass-wd\.txt$/);
	const unicode = await upload(alice, [{ name: "отчёт №1.txt", bytes: new Uint8Array([65]), type: "text/plain" }]);
	expectSuccess(unicode);
	expect(unicode.body.filename).toBe("отчёт №1.txt");
	const u = await download(unicode.body.url, alice);
	expect(u.headers.get("content-disposition")).toMatch(/^inline; filename\*=utf-8''/);
	const empty = await upload(alice, [{ name: "empty.txt", bytes: new Uint8Array(0), type: "text/plain" }]);
	expectSuccess(empty);
	const e = await download(empty.body.url, alice);
	expect(e.status).toBe(200);
	expect((await e.arrayBuffer()).byteLength).toBe(0);
});

test("nobody but the owner reads an unshared file, and nobody learns it exists", async () => {
	const res = await upload(alice, [{ name: "secret.txt", bytes: new TextEncoder().encode("secret"), type: "text/plain" }]);
	const other = await download(res.body.url, bob);
	expect(other.status).toBe(404);
	const missing = await download(res.body.url.replace(/[^/]+$/, "other.txt"), bob);
	expect(missing.status).toBe(404);
	expect(await other.text()).toBe(await missing.text());
	const anonymous = await download(res.body.url, null);
	expect(anonymous.status).toBe(401);
	const wrongKey = await download(res.body.url, { ...alice, api_key: "x".repeat(32) });
	expect(wrongKey.status).toBe(401);
	expect((await download("/user_uploads/abc/def", alice)).status).toBe(404);
	const bad = await download("/user_uploads/1/%E0%A4%A", alice);
	expect([bad.status, ((await bad.json()) as { msg: string }).msg]).toEqual([400, "Malformed URL"]);
});

test("temporary URLs: the owner gets one, it works without credentials for that file name only, others get none", async () => {
	const res = await upload(alice, [{ name: "notes.txt", bytes: new TextEncoder().encode("hello"), type: "text/plain" }]);
	const path = res.body.url.replace(/^\/user_uploads\//, "");
	const tmp = await client(app.baseUrl, alice).get(`/user_uploads/${path}`);
	expectSuccess(tmp);
	expect(tmp.body.url).toMatch(/^\/user_uploads\/temporary\/[0-9A-F]+\/notes\.txt$/);
	const got = await download(tmp.body.url, null);
	expect(got.status).toBe(200);
	expect(await got.text()).toBe("hello");
	const renamed = await download(tmp.body.url.replace(/notes\.txt$/, "other.txt"), null);
	expect(renamed.status).toBe(400);
	expect(((await renamed.json()) as { msg: string }).msg).toBe("Invalid filename");
	const forged = await download(tmp.body.url.replace(/\/temporary\/[0-9A-F]{4}/, "/temporary/0000"), null);
	expect(forged.status).toBe(400);
	expect(((await forged.json()) as { msg: string }).msg).toBe("Invalid token");
	expectError(await client(app.baseUrl, bob).get(`/user_uploads/${path}`), 404, "NOT_FOUND", "File not found.");
});

test("refusals store nothing: no file, two files, too large (announced or counted), over the quota, no credentials", async () => {
	await snap.refused(() => upload(alice, []), 400, "BAD_REQUEST", "You must specify a file to upload");
	await snap.refused(() => upload(alice, [], { note: "no file here" }), 400, "BAD_REQUEST", "You must specify a file to upload");
	await snap.refused(
		() =>
			upload(alice, [
				{ name: "a.txt", bytes: bytes(300 * 1024) },
				{ name: "b.txt", bytes: bytes(10) },
			]),
		400,
		"BAD_REQUEST",
		"You may only upload one file at a time",
	);
	await snap.refused(() => upload(alice, [{ name: "big.bin", bytes: bytes(MIB + 1) }]), 400, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 1 MiB");
	await snap.refused(() => upload(null, [{ name: "a.txt", bytes: bytes(10) }]), 401, "UNAUTHORIZED", "Missing authorization header for basic auth");
	await snap.refused(() => client(app.baseUrl, alice).post("/user_uploads", { file: "text" }), 400, "BAD_REQUEST", "You must specify a file to upload");
	// Exactly at the limit is fine.
	expectSuccess(await upload(alice, [{ name: "exact.bin", bytes: bytes(MIB) }]));
});

test("an upload announced too large is refused from its Content-Length before its body is read", async () => {
	const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
		const req = http.request(`${app.baseUrl}/user_uploads`, {
			method: "POST",
			headers: { Authorization: basic(alice), "Content-Type": "multipart/form-data; boundary=xyz", "Content-Length": String(50 * MIB) },
		});
		req.on("response", (res) => {
			let body = "";
			res.on("data", (d: Buffer) => (body += d.toString()));
			res.on("end", () => resolve({ status: res.statusCode!, body }));
		});
		req.on("error", reject);
		// Only the first bytes are ever sent.
		req.write("--xyz\r\n");
	});
	expect(answer.status).toBe(400);
	expect(JSON.parse(answer.body).msg).toBe("Uploaded file is larger than the allowed limit of 1 MiB");
});

test("a client that goes away mid-upload leaves nothing behind", async () => {
	await snap.unchanged(async () => {
		await new Promise<void>((resolve) => {
			const boundary = "cut";
			const req = http.request(`${app.baseUrl}/user_uploads`, {
				method: "POST",
				headers: { Authorization: basic(alice), "Content-Type": `multipart/form-data; boundary=${boundary}`, "Content-Length": String(900 * 1024) },
			});
			req.on("error", () => resolve());
			req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
			req.write(Buffer.from(bytes(600 * 1024)), () => setTimeout(() => req.destroy(), 300));
			req.on("close", () => resolve());
		});
		// The gateway notices the closed connection and removes the chunks stored so far.
		for (let i = 0; i < 100; i++) {
			const diff = await snap.take();
			if (![...diff.keys()].some((k) => k.startsWith("uploads.pending_uploads") && diff.get(k) !== "[]")) break;
			await new Promise((r) => setTimeout(r, 100));
		}
	});
});

test("the organization's upload quota", async () => {
	// 3 MiB in all: the uploads above took a little over 1.6 MiB.
	expectSuccess(await upload(bob, [{ name: "q1.bin", bytes: bytes(MIB - 100) }]));
	await snap.refused(() => upload(bob, [{ name: "q2.bin", bytes: bytes(MIB) }]), 400, "REALM_UPLOAD_QUOTA", "Upload would exceed your organization's upload quota.");
});
