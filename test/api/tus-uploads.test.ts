// Resumable uploads through HTTP: the tus 1.0.0 protocol at /api/v1/tus (creation with
// Upload-Length and Upload-Metadata, PATCH at Upload-Offset, HEAD to resume, DELETE), a client cut
// off mid-body resuming where the store says, the finished upload an ordinary message upload (its
// URL, bytes, attachment and event), the official tus client (tus-js-client) against it, and every
// refusal changing nothing.
import http from "node:http";
import * as tus from "tus-js-client";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Response } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { basicAuth, uploadFile } from "../support/images";
import { eventQueues, type QueueReader } from "../support/events";
import { eventually } from "../support/eventually";

let app: TestApp;
let alice: Account;
let bob: Account;
let snap: Snapshotter;
let site: string;
let events: QueueReader;
const MIB = 1024 * 1024;
const KIB = 1024;

function bytes(n: number, seed = 1): Buffer {
	const out = Buffer.alloc(n);
	let x = seed;
	for (let i = 0; i < n; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
	return out;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
const metadata = (m: Record<string, string>) =>
	Object.entries(m)
		.map(([k, v]) => `${k} ${b64(v)}`)
		.join(",");

interface TusOptions {
	auth?: Account | null | string;
	headers?: Record<string, string>;
	body?: Buffer;
}

/** One tus request: Tus-Resumable and the account's credentials unless told otherwise; the body parsed if JSON. */
async function tusCall(method: string, path: string, o: TusOptions = {}): Promise<Response & { headers: Headers; text: string }> {
	const auth = o.auth === undefined ? alice : o.auth;
	const headers: Record<string, string> = { "Tus-Resumable": "1.0.0", ...o.headers };
	if (auth) headers.Authorization = typeof auth === "string" ? auth : basicAuth(auth);
	const res = await fetch(`${site}${path}`, { method, headers, body: o.body });
	const text = await res.text();
	let body: any = text;
	try {
		body = JSON.parse(text);
	} catch {
		// tus's own plain-text answers
	}
	return { status: res.status, body, headers: res.headers, text };
}

/** Creates an upload of `length` bytes; answers its URL path. */
async function create(length: number, meta: Record<string, string> = { filename: "file.bin" }, auth: Account = alice): Promise<string> {
	const res = await tusCall("POST", "/api/v1/tus", { auth, headers: { "Upload-Length": String(length), "Upload-Metadata": metadata(meta) } });
	expect(res.status).toBe(201);
	const location = res.headers.get("location")!;
	expect(location).toMatch(/^\/api\/v1\/tus\/[0-9a-f]{24}$/);
	return location;
}

const patch = (path: string, offset: number, body: Buffer, o: TusOptions = {}) =>
	tusCall("PATCH", path, { ...o, body, headers: { "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream", ...o.headers } });

async function offsetOf(path: string, auth: Account = alice): Promise<number> {
	const res = await tusCall("HEAD", path, { auth });
	expect(res.status).toBe(200);
	return Number(res.headers.get("upload-offset"));
}

/** A PATCH that announces `declared` bytes, sends `sent` of `data` and goes away. */
function patchCutShort(path: string, offset: number, data: Buffer, declared: number): Promise<void> {
	return new Promise((resolve) => {
		const url = new URL(`${site}${path}`);
		const req = http.request({
			host: url.hostname,
			port: url.port,
			path: url.pathname,
			method: "PATCH",
			headers: { "Tus-Resumable": "1.0.0", Authorization: basicAuth(alice), "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream", "Content-Length": String(declared) },
		});
		req.on("error", () => resolve());
		req.on("response", () => resolve());
		req.write(data, () => {
			// The bytes are on their way: the client goes away before the rest.
			setTimeout(() => {
				req.destroy();
				resolve();
			}, 200);
		});
	});
}

const download = (url: string, a: Account | null) => fetch(`${site}${url}`, { headers: a ? { Authorization: basicAuth(a) } : {} });

beforeAll(async () => {
	app = await startTestApp({ maxFileUploadSizeMib: 1, uploadQuotaMib: 4 });
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	snap = await snapshotter(app);
	events = await eventQueues((u) => client(app.baseUrl, u), [alice], { register: { fetch_event_types: JSON.stringify(["attachment"]) } });
});
afterAll(async () => {
	await snap?.close();
	await app?.stop();
});

test("OPTIONS tells the protocol's version and extensions, without credentials", async () => {
	const res = await tusCall("OPTIONS", "/api/v1/tus", { auth: null, headers: {} });
	expect(res.status).toBe(204);
	expect(res.headers.get("tus-version")).toBe("1.0.0");
	expect(res.headers.get("tus-extension")).toBe("creation,creation-with-upload,termination");
});

test("an upload in several PATCHes, cut off and resumed from HEAD's offset, ends as an ordinary upload", async () => {
	const data = bytes(700 * KIB, 7);
	const path = await create(data.length, { filename: "big report.pdf", filetype: "application/pdf" });

	const head = await tusCall("HEAD", path);
	expect(head.status).toBe(200);
	expect(head.headers.get("upload-offset")).toBe("0");
	expect(head.headers.get("upload-length")).toBe(String(data.length));
	expect(head.headers.get("tus-resumable")).toBe("1.0.0");
	expect(head.headers.get("cache-control")).toBe("no-store");

	// Within the first chunk, then across a chunk boundary (GridFS chunks are 255 KiB).
	let res = await patch(path, 0, data.subarray(0, 100_000));
	expect(res.status).toBe(204);
	expect(res.headers.get("upload-offset")).toBe("100000");
	res = await patch(path, 100_000, data.subarray(100_000, 400_000));
	expect(res.status).toBe(204);
	expect(res.headers.get("upload-offset")).toBe("400000");

	// Cut off after 50 000 of 200 000 bytes: what arrived is kept, and HEAD says so.
	await patchCutShort(path, 400_000, data.subarray(400_000, 450_000), 200_000);
	const resumeAt = await eventually(async () => {
		const at = await offsetOf(path);
		return at === 450_000 ? at : undefined;
	}, "the bytes sent before the cut to be stored");

	// A PATCH at another offset than the store's is refused and changes nothing.
	await snap.unchanged(async () => {
		const wrong = await patch(path, 400_000, data.subarray(400_000, 410_000));
		expectError(wrong, 409, "BAD_REQUEST", "Upload-Offset conflict");
		expect(wrong.headers.get("content-type")).toBe("application/json");
		expect(wrong.body.message).toBe("Upload-Offset conflict");
	});

	const finished = await patch(path, resumeAt, data.subarray(resumeAt));
	expect(finished.status).toBe(200);
	expect(finished.headers.get("upload-offset")).toBe(String(data.length));
	expect(finished.headers.get("content-type")).toBe("application/json");
	expect(finished.body).toEqual({ url: expect.stringMatching(/^\/user_uploads\/\d+\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]{24}\/big-report\.pdf$/), filename: "big report.pdf" });
	const url: string = finished.body.url;

	const got = await download(url, alice);
	expect(got.status).toBe(200);
	expect(got.headers.get("content-type")).toBe("application/pdf");
	expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);

	const list = await client(app.baseUrl, alice).get("/attachments");
	expectSuccess(list);
	const attachment = list.body.attachments.find((a: any) => `/user_uploads/${a.path_id}` === url);
	expect(attachment).toMatchObject({ name: "big report.pdf", size: data.length, messages: [] });
	expect(await events(alice)).toEqual([{ type: "attachment", op: "add", attachment, upload_space_used: list.body.upload_space_used }]);

	// Finished: HEAD says complete, the same final PATCH again answers the same URL and adds nothing.
	expect(await offsetOf(path)).toBe(data.length);
	await snap.unchanged(async () => {
		const again = await patch(path, data.length, Buffer.alloc(0));
		expect(again.status).toBe(200);
		expect(again.body).toEqual({ url, filename: "big report.pdf" });
		// A finished upload is an attachment now: not terminated through tus.
		const del = await tusCall("DELETE", path);
		expectError(del, 400, "BAD_REQUEST", "Cannot terminate an already completed upload");
	});
	expect(await events(alice)).toEqual([]);
});

test("a whole file in the creating request (creation-with-upload); an empty file; Zulip's names", async () => {
	const data = bytes(5000, 3);
	const res = await tusCall("POST", "/api/v1/tus", {
		headers: { "Upload-Length": String(data.length), "Upload-Metadata": metadata({ filename: "some 例 thing! ... like this?" }), "Content-Type": "application/offset+octet-stream" },
		body: data,
	});
	expect(res.status).toBe(201);
	expect(res.headers.get("location")).toMatch(/^\/api\/v1\/tus\/[0-9a-f]{24}$/);
	// Zulip's strict names for tus uploads: ASCII only. The name shown is the client's.
	expect(res.body.url).toMatch(/\/some-thing-\.\.\.-like-this$/);
	expect(res.body.filename).toBe("some 例 thing! ... like this?");
	const got = await download(res.body.url, alice);
	expect(got.headers.get("content-type")).toBe("application/octet-stream");
	expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);

	// No name: Zulip's "uploaded-file"; a type from the name when none is given.
	const empty = await tusCall("POST", "/api/v1/tus", { headers: { "Upload-Length": "0" } });
	expect(empty.status).toBe(201);
	expect(empty.body).toEqual({ url: expect.stringMatching(/\/uploaded-file$/), filename: "uploaded-file" });
	expect((await download(empty.body.url, alice)).status).toBe(200);

	const path = await create(4, { filename: "notes.txt" });
	const done = await patch(path, 0, Buffer.from("abcd"));
	expect(done.body.filename).toBe("notes.txt");
	expect((await download(done.body.url, alice)).headers.get("content-type")).toBe("text/plain");
	await events(alice);
});

test("tus-js-client uploads in chunks, is stopped, and resumes from the upload's URL", async () => {
	const data = bytes(600 * KIB, 11);
	const options = (extra: Partial<tus.UploadOptions>): tus.UploadOptions => ({
		endpoint: `${site}/api/v1/tus`,
		headers: { Authorization: basicAuth(alice) },
		chunkSize: 200 * KIB,
		metadata: { filename: "from tus-js-client.bin", filetype: "application/octet-stream" },
		retryDelays: [],
		storeFingerprintForResuming: false,
		...extra,
	});
	// Stopped once the first chunk is stored.
	const first = new tus.Upload(data, options({}));
	await new Promise<void>((resolve, reject) => {
		first.options.onChunkComplete = () => {
			void first.abort().then(resolve);
		};
		first.options.onError = reject;
		first.start();
	});
	expect(first.url).toMatch(/\/api\/v1\/tus\/[0-9a-f]{24}$/);
	expect(await offsetOf(new URL(first.url!).pathname)).toBe(200 * KIB);

	// A new client given the upload's URL asks HEAD where to go on, and sends the rest.
	const second = new tus.Upload(data, options({ uploadUrl: first.url }));
	const body = await new Promise<string>((resolve, reject) => {
		second.options.onSuccess = (payload) => resolve(payload.lastResponse.getBody());
		second.options.onError = reject;
		second.start();
	});
	const { url, filename } = JSON.parse(body);
	expect(filename).toBe("from tus-js-client.bin");
	expect(Buffer.from(await (await download(url, alice)).arrayBuffer()).equals(data)).toBe(true);
	await events(alice);
});

test("termination drops an unfinished upload and its bytes", async () => {
	await snap.unchanged(async () => {
		const path = await create(300 * KIB);
		expect((await patch(path, 0, bytes(270 * KIB))).status).toBe(204);
		const del = await tusCall("DELETE", path);
		expect(del.status).toBe(204);
		// HEAD answers without a body: its status says it.
		expect((await tusCall("HEAD", path)).status).toBe(404);
	});
});

test("refusals change nothing: credentials, lengths, metadata, offsets, someone else's or no upload", async () => {
	const path = await create(1000);
	expect((await patch(path, 0, bytes(10))).status).toBe(204);
	const refused = (request: () => Promise<Response>, status: number, code: string, msg: string) => snap.refused(request, status, code, msg);
	const post = (headers: Record<string, string>, auth?: Account | null | string) => tusCall("POST", "/api/v1/tus", { headers, auth });

	// No credentials, wrong ones, another scheme: Zulip's one answer.
	for (const auth of [null, `Basic ${b64(`${alice.email}:wrong`)}`, "Bearer abc", `Basic ${b64("nobody@chat.test:x")}`]) {
		await refused(() => post({ "Upload-Length": "10" }, auth), 401, "UNAUTHORIZED", "Unauthenticated upload");
		await snap.unchanged(async () => expect((await tusCall("HEAD", path, { auth })).status).toBe(401));
		await refused(() => patch(path, 10, bytes(10), { auth }), 401, "UNAUTHORIZED", "Unauthenticated upload");
		await refused(() => tusCall("DELETE", path, { auth }), 401, "UNAUTHORIZED", "Unauthenticated upload");
	}
	// Unknown and someone else's uploads are refused as such only to their owner's credentials.
	const noAuth = await tusCall("POST", "/api/v1/tus", { auth: null, headers: { "Upload-Length": "10" } });
	expect(noAuth.headers.get("tus-resumable")).toBe("1.0.0");

	// Lengths: too large (Zulip's words, 413), deferred (411), missing, not a number.
	await refused(() => post({ "Upload-Length": String(MIB + 1) }), 413, "BAD_REQUEST", "File is larger than this server's configured maximum upload size (1 MiB).");
	await refused(() => post({ "Upload-Defer-Length": "1" }), 411, "BAD_REQUEST", "SizeIsDeferred is not supported");
	await refused(() => post({}), 400, "BAD_REQUEST", "Upload-Length or Upload-Defer-Length header required");
	await snap.unchanged(async () => {
		for (const length of ["-1", "abc", "1.5", ""]) expect((await post({ "Upload-Length": length })).status).toBe(400);
		// Metadata that is not tus's: a key without base64, a repeated key.
		for (const meta of ["filename ***", `filename ${b64("a")},filename ${b64("b")}`]) expect((await post({ "Upload-Length": "10", "Upload-Metadata": meta })).status).toBe(400);
		// No Tus-Resumable: the protocol's 412.
		expect((await tusCall("POST", "/api/v1/tus", { headers: { "Tus-Resumable": "", "Upload-Length": "10" } })).status).toBe(412);
	});

	// Offsets: another than the store's, missing, not a number; a body past the declared length.
	await refused(() => patch(path, 0, bytes(10)), 409, "BAD_REQUEST", "Upload-Offset conflict");
	await refused(() => patch(path, 20, bytes(10)), 409, "BAD_REQUEST", "Upload-Offset conflict");
	await refused(() => tusCall("PATCH", path, { body: bytes(10), headers: { "Content-Type": "application/offset+octet-stream" } }), 403, "BAD_REQUEST", "Upload-Offset header required");
	await snap.unchanged(async () => expect((await patch(path, 10, bytes(10), { headers: { "Upload-Offset": "x" } })).status).toBe(400));
	await refused(() => patch(path, 10, bytes(991)), 413, "BAD_REQUEST", "upload's size exceeded");
	// A body that is not tus's: the protocol's own 400 (plain text, as tus servers answer it).
	await snap.unchanged(async () => expect((await patch(path, 10, bytes(10), { headers: { "Content-Type": "text/plain" } })).status).toBe(400));

	// Someone else's upload is as unknown as one that never was.
	for (const other of [path.replace(/[0-9a-f]{4}$/, "0000"), "/api/v1/tus/not-an-id", "/api/v1/tus/" + "f".repeat(24)]) {
		await snap.unchanged(async () => expect((await tusCall("HEAD", other)).status).toBe(404));
		await refused(() => patch(other, 10, bytes(10)), 404, "NOT_FOUND", "Upload not found");
	}
	await snap.unchanged(async () => expect((await tusCall("HEAD", path, { auth: bob })).status).toBe(404));
	await refused(() => patch(path, 10, bytes(10), { auth: bob }), 404, "NOT_FOUND", "Upload not found");
	await refused(() => tusCall("DELETE", path, { auth: bob }), 404, "NOT_FOUND", "Upload not found");
	// The upload itself is untouched by all of it.
	expect(await offsetOf(path)).toBe(10);
});

test("the organization's upload quota: refused at creation (Zulip's 413), and at the end if it filled meanwhile", async () => {
	const me = client(app.baseUrl, alice);
	const used = (await me.get("/attachments")).body.upload_space_used as number;
	// Begun while there is room for it...
	const path = await create(MIB);
	// ...then the organization fills up to 100 bytes short of its 4 MiB.
	let room = 4 * MIB - used - 100;
	while (room > 0) {
		const n = Math.min(room, MIB);
		expect((await uploadFile(app, bob, "filler.bin", bytes(n))).status).toBe(200);
		room -= n;
	}
	await snap.refused(
		() => tusCall("POST", "/api/v1/tus", { headers: { "Upload-Length": "200" } }),
		413,
		"REALM_UPLOAD_QUOTA",
		"Upload would exceed your organization's upload quota.",
	);
	// The one begun before is refused at its end, and its bytes go.
	const before = await snap.take();
	const end = await patch(path, 0, bytes(MIB));
	expectError(end, 413, "REALM_UPLOAD_QUOTA", "Upload would exceed your organization's upload quota.");
	const after = await snap.take();
	for (const name of ["uploads.files.chunks", "uploads.files.files", "uploads.attachments", "uploads.upload_usage"]) expect(after.get(name)).toEqual(before.get(name));
	expect((await tusCall("HEAD", path)).status).toBe(404);
	// An empty file still fits.
	expect((await tusCall("POST", "/api/v1/tus", { headers: { "Upload-Length": "0" } })).status).toBe(201);
});
