// Hostile input to the file routes: odd multipart bodies to POST /user_uploads (no boundary, a
// wrong one, cut short, huge part headers, many parts, nested multipart, generated mutations of a
// good body), odd file names and content types, JSON and form bodies, and odd download paths under
// /user_uploads (dot segments, encoded slashes, very long paths, bad percent-encoding, garbage
// temporary tokens). Every answer is a success or Zulip's error envelope, never a 5xx; a refused
// upload changes no database (no pending upload, no chunk), and every upload that succeeded
// downloads byte-exact. FUZZ_SEED and FUZZ_RUNS override the generated part's seed and runs.
import http from "node:http";
import fc from "fast-check";
import mongoose from "mongoose";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, jsonOf } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

let app: TestApp;
let alice: Account;
let bob: Account;
let snap: Snapshotter;
let site: string;
let uploadsDb: mongoose.mongo.Db;
/** A file Alice uploaded, and its path. */
let aliceUrl = "";

const basic = (a: Account) => `Basic ${Buffer.from(`${a.email}:${a.api_key}`).toString("base64")}`;

interface Answer {
	status: number;
	text: string;
	body: any;
	headers: http.IncomingHttpHeaders;
}

/**
 * A request with exactly these bytes and headers (no normalization of the path, no framing of its
 * own): `cut` sends only the body's first bytes under the whole body's Content-Length, then ends
 * the connection; the answer is then null when none came.
 */
function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer, o: { cut?: number } = {}): Promise<Answer | null> {
	const url = new URL(site);
	return new Promise((resolve, reject) => {
		const req = http.request({ host: url.hostname, port: url.port, method, path, headers: { ...(body ? { "Content-Length": String(body.length) } : {}), ...headers } });
		req.on("response", (res) => {
			const parts: Buffer[] = [];
			res.on("data", (d: Buffer) => parts.push(d));
			res.on("end", () => {
				const text = Buffer.concat(parts).toString();
				resolve({ status: res.statusCode!, text, body: jsonOf(text), headers: res.headers });
			});
			res.on("error", () => resolve(null));
		});
		req.on("error", (err) => (o.cut !== undefined ? resolve(null) : reject(new Error(`${method} ${path.slice(0, 60)}, ${body?.length ?? 0} bytes (${JSON.stringify(body?.subarray(0, 120).toString() ?? "")}): ${err.message}`))));
		if (body && o.cut !== undefined) req.write(body.subarray(0, o.cut), () => setTimeout(() => req.destroy(), 200));
		else req.end(body);
	});
}

const CRLF = "\r\n";

/** A multipart/form-data body of `parts`, each with its own header lines. */
function multipart(boundary: string, parts: Array<{ headers: string[]; body: Buffer | string }>, o: { close?: boolean } = {}): Buffer {
	const out: Buffer[] = [];
	for (const p of parts) out.push(Buffer.from(`--${boundary}${CRLF}${p.headers.join(CRLF)}${CRLF}${CRLF}`), Buffer.from(p.body), Buffer.from(CRLF));
	if (o.close !== false) out.push(Buffer.from(`--${boundary}--${CRLF}`));
	return Buffer.concat(out);
}

const filePart = (name: string, body: Buffer | string, type = "application/octet-stream") => ({
	headers: [`Content-Disposition: form-data; name="file"; filename="${name}"`, `Content-Type: ${type}`],
	body,
});

const post = (headers: Record<string, string>, body: Buffer, o: { cut?: number; as?: Account } = {}) =>
	raw("POST", "/api/v1/user_uploads", { Authorization: basic(o.as ?? alice), ...headers }, body, o);
const postForm = (boundary: string, body: Buffer, o: { cut?: number } = {}) => post({ "Content-Type": `multipart/form-data; boundary=${boundary}` }, body, o);

/** Zulip's error envelope (or a success), never a 5xx. */
function wellFormed(a: Answer | null, what: string): void {
	if (a === null) return;
	if (a.status >= 500 || (a.body?.result !== "success" && a.body?.result !== "error")) throw new Error(`${what}: HTTP ${a.status} ${a.text.slice(0, 200)}`);
}

/** The request is refused with Zulip's error and no database changes. */
async function refusedUnchanged(request: () => Promise<Answer | null>, what: string, msg?: string | RegExp): Promise<void> {
	await snap.unchanged(async () => {
		const a = await request();
		wellFormed(a, what);
		if (a) {
			expect([what, a.status >= 400 && a.status < 500]).toEqual([what, true]);
			if (msg !== undefined) expect(a.body.msg).toMatch(msg);
		}
	});
}

/** An upload that succeeded reads back as sent, by its owner. */
async function readsBack(a: Answer | null, data: Buffer): Promise<void> {
	expect(a?.status).toBe(200);
	const bytes = await fetch(`${site}${a!.body.url}`, { headers: { Authorization: basic(alice) } });
	expect(Buffer.from(await bytes.arrayBuffer()).equals(data)).toBe(true);
}

beforeAll(async () => {
	app = await startTestApp({ maxFileUploadSizeMib: 1 });
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	const first = await postForm("b0", multipart("b0", [filePart("first.txt", "first", "text/plain")]));
	expect(first?.status).toBe(200);
	aliceUrl = first!.body.url as string;
	snap = await snapshotter(app);
	uploadsDb = (await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise()).useDb(`${app.node.config.dbPrefix}_uploads`).db!;
});
afterAll(async () => {
	await uploadsDb?.client.close();
	await snap?.close();
	await app?.stop();
});

describe("POST /user_uploads: odd multipart bodies store nothing", () => {
	test("no boundary, an empty one, a wrong one, another multipart type, not multipart at all", async () => {
		const body = multipart("right", [filePart("a.txt", "hello")]);
		for (const type of ["multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=wrong", "multipart/mixed; boundary=right", "multipart/form-data; boundary=\"unclosed", "multipart/form-data; boundary=" + "x".repeat(5000)]) {
			await refusedUnchanged(() => post({ "Content-Type": type }, body), type);
		}
		for (const type of ["text/plain", "application/octet-stream", "image/png", "", "garbage;;;=", "multipart", "application/x-www-form-urlencoded; charset=utf-16"]) {
			await refusedUnchanged(() => post(type ? { "Content-Type": type } : {}, body), `Content-Type "${type}"`);
		}
	});

	test("a body cut short: closing boundary missing, mid-header, mid-file; a client that sends less than it announced", async () => {
		const body = multipart("b", [filePart("cut.bin", Buffer.alloc(400 * 1024, 7))]);
		await refusedUnchanged(() => postForm("b", multipart("b", [filePart("cut.bin", Buffer.alloc(400 * 1024, 7))], { close: false })), "no closing boundary");
		await refusedUnchanged(() => postForm("b", body.subarray(0, 40)), "mid-header");
		await refusedUnchanged(() => postForm("b", body.subarray(0, 300 * 1024)), "mid-file, past a chunk");
		await snap.unchanged(async () => {
			wellFormed(await postForm("b", body, { cut: 300 * 1024 }), "announced more than sent");
			// The gateway notices the closed connection and removes what it stored.
			await waitForNoPending();
		});
	});

	test("huge part headers, many parts, many header lines, nested multipart, a file part without a name", async () => {
		const bigHeader = { headers: [`Content-Disposition: form-data; name="file"; filename="a.txt"`, `X-Padding: ${"p".repeat(200_000)}`], body: "x" };
		await refusedUnchanged(() => postForm("h", multipart("h", [bigHeader])), "a 200 KB part header");
		const manyHeaders = { headers: [`Content-Disposition: form-data; name="file"; filename="a.txt"`, ...Array.from({ length: 5000 }, (_, i) => `X-H${i}: v`)], body: "x" };
		wellFormed(await postForm("h", multipart("h", [manyHeaders])), "5,000 header lines");
		const fields = Array.from({ length: 5000 }, (_, i) => ({ headers: [`Content-Disposition: form-data; name="f${i}"`], body: "v" }));
		await refusedUnchanged(() => postForm("m", multipart("m", fields)), "5,000 text fields");
		await refusedUnchanged(() => postForm("m", multipart("m", [...fields.slice(0, 300), filePart("late.txt", "late")])), "a file after 300 fields");
		const files = Array.from({ length: 50 }, (_, i) => filePart(`f${i}.txt`, "x".repeat(1000)));
		await refusedUnchanged(() => postForm("m", multipart("m", files)), "50 files", "You may only upload one file at a time");
		const inner = multipart("inner", [filePart("inner.txt", "inner")]);
		const nested = { headers: [`Content-Disposition: form-data; name="file"`, "Content-Type: multipart/mixed; boundary=inner"], body: inner };
		await refusedUnchanged(() => postForm("outer", multipart("outer", [nested])), "nested multipart, no file name", "You must specify a file to upload");
		const nestedFile = await postForm("outer", multipart("outer", [{ ...nested, headers: [`Content-Disposition: form-data; name="file"; filename="n.txt"`, "Content-Type: multipart/mixed; boundary=inner"] }]));
		// A nested body inside a file part is the file's bytes.
		await readsBack(nestedFile, inner);
		await refusedUnchanged(() => postForm("d", multipart("d", [{ headers: ["Content-Type: text/plain"], body: "no disposition" }])), "no Content-Disposition");
	});

	test("JSON, form-encoded and empty bodies", async () => {
		await refusedUnchanged(() => post({ "Content-Type": "application/json" }, Buffer.from(JSON.stringify({ file: "x".repeat(100) }))), "JSON", "You must specify a file to upload");
		await refusedUnchanged(() => post({ "Content-Type": "application/json" }, Buffer.from("{not json")), "broken JSON");
		await refusedUnchanged(() => post({ "Content-Type": "application/x-www-form-urlencoded" }, Buffer.from("file=abc&filename=..%2F..%2Fx")), "form-encoded", "You must specify a file to upload");
		await refusedUnchanged(() => post({ "Content-Type": "multipart/form-data; boundary=e" }, Buffer.alloc(0)), "an empty multipart body");
		await refusedUnchanged(() => raw("POST", "/api/v1/user_uploads", { Authorization: basic(alice) }), "no body at all");
	});
});

describe("POST /user_uploads: odd file names and types are stored safely", () => {
	test("path separators, NUL, dot names, 10,000 characters, control characters, a zero-byte file, odd content types", async () => {
		// No name, ".", "..", or a path ending in one: no file, as Django's parser drops such a part.
		for (const name of ["", ".", "..", "a/..", "..\\."]) {
			await refusedUnchanged(() => postForm("n", multipart("n", [filePart(name, "dots")])), `file name "${name}"`, "You must specify a file to upload");
		}
		const names = ["../../../etc/passwd", "..\\..\\windows\\system.ini", "a/b/c.txt", "/abs.txt", "../.../x", "nul%00byte.txt", "%00", "x".repeat(10_000), "é".repeat(5000) + ".txt", "tab\tnew\nline\r.txt", "%2e%2e%2fescape.txt", "%ZZbad.txt", 'quote".txt', "semi;colon=.txt", "\u202Eevil\u202Dtxt.exe", "con.txt", "😀".repeat(100)];
		for (const name of names) {
			const data = Buffer.from(`contents of ${name.slice(0, 20)}`);
			const a = await postForm("n", multipart("n", [filePart(name.replace(/"/g, "%22").replace(/[\r\n]/g, " "), data)]));
			wellFormed(a, `file name ${JSON.stringify(name.slice(0, 40))}`);
			expect([name.slice(0, 40), a?.status]).toEqual([name.slice(0, 40), 200]);
			const url = a!.body.url as string;
			expect(url).toMatch(/^\/user_uploads\/\d+\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]{24}\/[^/]+$/);
			expect(url).not.toMatch(/\/\.\.?$/);
			expect(a!.body.filename).not.toContain("\0");
			await readsBack(a, data);
		}
		// NUL and other control characters written raw into the part's header: a malformed header
		// (refused, nothing stored) or a name without them.
		for (const name of ["nul\0byte.txt", "\0", "bell\x07.txt", "del\x7f.txt"]) {
			const before = await snap.take();
			const a = await postForm("n", multipart("n", [filePart(name, "raw")]));
			wellFormed(a, `file name ${JSON.stringify(name)}`);
			if (a?.status === 200) expect(a.body.filename).not.toContain("\0");
			else expect(await snap.take()).toEqual(before);
		}
		// A file part without a Content-Type (as the Python zulip package sends every file): its name decides.
		for (const [name, type] of [["picture.png", "image/png"], ["notes.txt", "text/plain"], ["data", "application/octet-stream"]]) {
			const a = await postForm("u", multipart("u", [{ headers: [`Content-Disposition: form-data; name="file"; filename="${name}"`], body: "untyped" }]));
			const got = await raw("GET", a!.body.url, { Authorization: basic(alice) });
			expect([name, got?.headers["content-type"]]).toEqual([name, type]);
		}
		const empty = await postForm("z", multipart("z", [filePart("empty.bin", Buffer.alloc(0))]));
		await readsBack(empty, Buffer.alloc(0));
		for (const type of ["", "text/html; charset=\x01", "image/png\x7f", "x".repeat(10_000), "ïmage/pñg", "../../etc", "text/plain; charset=\"utf-8\"; x=\"é\""]) {
			const data = Buffer.from("typed");
			const a = await postForm("t", multipart("t", [filePart("typed.txt", data, type)]));
			wellFormed(a, `content type ${JSON.stringify(type.slice(0, 40))}`);
			if (a?.status !== 200) continue;
			const got = await raw("GET", a.body.url, { Authorization: basic(alice) });
			wellFormed(got?.status === 200 ? null : got, `downloading a file of type ${JSON.stringify(type.slice(0, 40))}`);
			expect([type.slice(0, 40), got?.status]).toEqual([type.slice(0, 40), 200]);
		}
	});
});

describe("downloads: odd paths", () => {
	test("dot segments, encoded slashes, long paths, bad percent-encoding, garbage temporary tokens: a 4xx, never a file or a 5xx", async () => {
		const [, realm, prefix, random, name] = /^\/user_uploads\/(\d+)\/([0-9a-f]+)\/([\w-]+)\/(.+)$/.exec(aliceUrl)!;
		const paths = [
			"/user_uploads/",
			"/user_uploads//",
			"/user_uploads/..",
			`/user_uploads/${realm}/../${realm}/${prefix}/${random}/${name}`,
			`/user_uploads/${realm}/${prefix}/${random}/../../../../etc/passwd`,
			`/user_uploads/${realm}/${prefix}%2F${random}%2F${name}`,
			`/user_uploads/${realm}%2F${prefix}/${random}/${name}`,
			`/user_uploads/${realm}/${prefix}/${random}/%2e%2e%2f%2e%2e%2f${name}`,
			`/user_uploads/${realm}/${prefix}/${random}/${name}%00`,
			`/user_uploads/${realm}/${prefix}/${random}/${name}/extra`,
			`/user_uploads/${realm}/${prefix}/${random}/`,
			`/user_uploads/${realm}/%`,
			`/user_uploads/${realm}/%zz/%E0%A4%A`,
			`/user_uploads/${realm}/${"a".repeat(3000)}`,
			`/user_uploads/${realm}/${"a/".repeat(3000)}x`,
			`/user_uploads/${"9".repeat(400)}/a/b/c`,
			"/user_uploads/-1/a",
			"/user_uploads/1e3/a",
			"/user_uploads/temporary",
			"/user_uploads/temporary/",
			"/user_uploads/temporary//",
			"/user_uploads/temporary/garbage/x",
			"/user_uploads/temporary/ZZ/x",
			"/user_uploads/temporary/ABC/x",
			`/user_uploads/temporary/${"AB".repeat(5000)}/x`,
			`/user_uploads/temporary/${Buffer.from("a:b:c").toString("hex")}/c`,
			`/user_uploads/temporary/${Buffer.from(`${realm}/${prefix}/${random}/${name}:99999999999:`).toString("hex")}/${name}`,
			`/user_uploads/temporary/${Buffer.from("\u00ff\u00fe:1:2").toString("hex")}/%`,
			"/user_uploads/temporary/%ZZ/%ZZ",
			"/user_uploads/temporary/41/42/43",
			`/user_uploads/temporary/../${realm}/${prefix}/${random}/${name}`,
			`/user_uploads/${realm}/${prefix}/${random}/${name}?x=${"y".repeat(5000)}`,
		];
		for (const path of paths) {
			for (const who of [alice, bob, null]) {
				for (const method of ["GET", "HEAD"]) {
					const a = await raw(method, path, who ? { Authorization: basic(who) } : {});
					const what = `${method} ${path.slice(0, 80)} as ${who === alice ? "Alice" : who === bob ? "Bob" : "nobody"}`;
					expect([what, a!.status < 500]).toEqual([what, true]);
					// Any refusal is an error envelope (the server's own 404 for a path it does not route included).
					if (a!.status >= 400 && method === "GET") expect([what, a!.body?.result]).toEqual([what, "error"]);
					// Only Alice's own path gives her file: dot segments are not resolved, and an encoded
					// slash is a slash (as in Django, which routes the decoded path).
					if (a!.status === 200) expect([what, who, decodeURIComponent(path.split("?")[0])]).toEqual([what, alice, aliceUrl]);
				}
			}
		}
		// A path past what a request line may hold is refused by the server itself.
		const huge = await raw("GET", `/user_uploads/${realm}/${"a".repeat(100_000)}`, { Authorization: basic(alice) }).catch(() => null);
		expect(huge === null || huge.status < 500).toBe(true);
	});

	test("odd Range and validator headers", async () => {
		for (const range of ["bytes=", "bytes=-", "bytes=5-1", "bytes=0-0,2-3", "bytes=99999999999999999999-", "bytes=-99999999999999999999", "items=0-1", "bytes=a-b", "bytes=" + "1".repeat(5000) + "-"]) {
			const a = await raw("GET", aliceUrl, { Authorization: basic(alice), Range: range });
			expect([range, a!.status < 500]).toEqual([range, true]);
		}
		const a = await raw("GET", aliceUrl, { Authorization: basic(alice), "If-None-Match": "x".repeat(5000) });
		expect(a!.status).toBe(200);
	});
});

describe("generated multipart bodies", () => {
	test("mutations of a good body: a success reads back byte-exact, a refusal stores nothing", async () => {
		const boundary = "fuzzboundary";
		const good = (data: Buffer) => multipart(boundary, [{ headers: [`Content-Disposition: form-data; name="note"`], body: "n" }, filePart("gen.bin", data)]);
		type Mutation = { kind: "cut" | "flip" | "insert" | "drop"; at: number; bytes: number[] };
		const mutation = fc.record({ kind: fc.constantFrom<Mutation["kind"]>("cut", "flip", "insert", "drop"), at: fc.nat(), bytes: fc.array(fc.constantFrom(0, 10, 13, 34, 45, 59, 61, 0xff, ...Buffer.from(`--${boundary}`)), { minLength: 1, maxLength: 40 }) });
		const plan = fc.record({
			size: fc.constantFrom(0, 1, 1000, 255 * 1024, 255 * 1024 + 1, 700 * 1024),
			mutations: fc.array(mutation, { maxLength: 3 }),
			header: fc.constantFrom(`multipart/form-data; boundary=${boundary}`, `multipart/form-data; boundary="${boundary}"`, `Multipart/Form-Data; BOUNDARY=${boundary}; charset=utf-8`, "multipart/form-data; boundary=other"),
		});
		let successes = 0;
		let refusals = 0;
		await fc.assert(
			fc.asyncProperty(plan, async ({ size, mutations, header }) => {
				const data = Buffer.alloc(size, 0x61);
				let body = good(data);
				for (const m of mutations) {
					const at = m.at % (body.length + 1);
					if (m.kind === "cut") body = body.subarray(0, at);
					else if (m.kind === "flip") body = Buffer.concat([body.subarray(0, at), Buffer.from(m.bytes), body.subarray(at + m.bytes.length)]);
					else if (m.kind === "insert") body = Buffer.concat([body.subarray(0, at), Buffer.from(m.bytes), body.subarray(at)]);
					else body = Buffer.concat([body.subarray(0, at), body.subarray(at + m.bytes.length)]);
				}
				const before = await storedCounts();
				const a = await post({ "Content-Type": header }, body);
				wellFormed(a, `${header}, ${mutations.length} mutations, ${body.length} bytes`);
				if (a?.status === 200) {
					successes++;
					const got = await fetch(`${site}${a.body.url}`, { headers: { Authorization: basic(alice) } });
					expect(got.status).toBe(200);
					// What busboy found as the file: the original, or the mutated bytes inside it.
					expect((await got.arrayBuffer()).byteLength).toBeLessThanOrEqual(body.length);
				} else {
					refusals++;
					expect(await storedCounts()).toEqual(before);
				}
			}),
			{ seed: SEED, numRuns: RUNS, endOnFailure: true },
		);
		expect(successes).toBeGreaterThan(0);
		expect(refusals).toBeGreaterThan(0);
		await waitForNoPending();
	}, 600_000);
});

test("nothing is left in transit, and every stored chunk belongs to a stored file", async () => {
	await waitForNoPending();
	const db = await snap.take();
	const files = JSON.parse(db.get("uploads.files.files") ?? "[]") as Array<{ _id: string; length: number }>;
	const chunks = JSON.parse(db.get("uploads.files.chunks") ?? "[]") as Array<{ files_id: string }>;
	const ids = new Set(files.map((f) => f._id));
	expect(chunks.filter((c) => !ids.has(c.files_id))).toEqual([]);
	expect(JSON.parse(db.get("uploads.pending_uploads") ?? "[]")).toEqual([]);
	expectSuccess(await client(app.baseUrl, alice).get("/users/me"));
	expectError(await client(app.baseUrl, alice).post("/user_uploads", { file: "x" }), 400, "BAD_REQUEST", "You must specify a file to upload");
});

/** How many uploads in transit, files, chunks and attachments the uploads database holds (cheaper than a snapshot). */
async function storedCounts(): Promise<Record<string, number>> {
	const out: Record<string, number> = {};
	for (const name of ["pending_uploads", "files.files", "files.chunks", "attachments"]) out[name] = await uploadsDb.collection(name).countDocuments();
	return out;
}

async function waitForNoPending(): Promise<void> {
	for (let i = 0; i < 100; i++) {
		const pending = (await snap.take()).get("uploads.pending_uploads");
		if (!pending || pending === "[]") return;
		await new Promise((r) => setTimeout(r, 100));
	}
}
