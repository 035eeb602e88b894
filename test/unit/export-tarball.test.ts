// An export's .tar.gz as TarballWriter stores it (services/uploads/export/tarball.ts): the
// compressed bytes arrive in GridFS-sized chunks, numbered from 0, every one full but the last;
// put back together they are a gzip'd tar whose files are those added, byte for byte, and whose
// SHA-256 and length are those reported. Aborting removes what was stored.
import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { gunzipSync } from "node:zlib";
import { extract } from "tar-stream";
import { CHUNK_BYTES, FileStore } from "../../services/uploads/file-store";
import { TarballWriter } from "../../services/uploads/export/tarball";

function fakeStore() {
	const chunks = new Map<number, Buffer>();
	const removed: unknown[] = [];
	const store = {
		writeChunk: async (_id: unknown, n: number, data: Buffer) => void chunks.set(n, Buffer.from(data)),
		remove: async (id: unknown) => void removed.push(id),
	} as unknown as FileStore;
	return { store, chunks, removed };
}

async function untar(gz: Buffer): Promise<Map<string, Buffer>> {
	const files = new Map<string, Buffer>();
	const ex = extract();
	ex.on("entry", (header, stream, next) => {
		const parts: Buffer[] = [];
		stream.on("data", (d: unknown) => parts.push(d as Buffer));
		stream.on("end", () => {
			files.set(header.name, Buffer.concat(parts));
			next();
		});
	});
	const done = new Promise<void>((resolve, reject) => {
		ex.on("finish", () => resolve());
		ex.on("error", reject);
	});
	Readable.from([gunzipSync(gz)]).pipe(ex);
	await done;
	return files;
}

test("files larger than several chunks come back whole, the chunks full but the last, with the reported length and SHA-256", async () => {
	const { store, chunks } = fakeStore();
	const writer = new TarballWriter(store, FileStore.newId(), new Date(0));
	// Random bytes do not compress: the archive spans several chunks.
	const big = randomBytes(3 * CHUNK_BYTES + 12345);
	const small = Buffer.from(JSON.stringify({ zerver_realm: [{ id: 1 }] }));
	await writer.add("zulip-export-x/messages-000001.json", big);
	await writer.add("zulip-export-x/realm.json", small);
	const { length, sha256 } = await writer.finish();

	const numbers = [...chunks.keys()].sort((a, b) => a - b);
	expect(numbers).toEqual(numbers.map((_, i) => i));
	expect(numbers.length).toBeGreaterThanOrEqual(4);
	for (const n of numbers.slice(0, -1)) expect(chunks.get(n)!.length).toBe(CHUNK_BYTES);
	const whole = Buffer.concat(numbers.map((n) => chunks.get(n)!));
	expect(whole.length).toBe(length);
	expect(createHash("sha256").update(whole).digest("hex")).toBe(sha256);

	const files = await untar(whole);
	expect([...files.keys()]).toEqual(["zulip-export-x/messages-000001.json", "zulip-export-x/realm.json"]);
	expect(files.get("zulip-export-x/messages-000001.json")!.equals(big)).toBe(true);
	expect(files.get("zulip-export-x/realm.json")!.equals(small)).toBe(true);
});

test("aborting removes the file's stored chunks", async () => {
	const { store, removed } = fakeStore();
	const id = FileStore.newId();
	const writer = new TarballWriter(store, id, new Date(0));
	await writer.add("a.json", randomBytes(CHUNK_BYTES));
	await writer.abort();
	expect(removed).toEqual([id]);
});

test("a store that does not keep up holds back the files being added, which then go through whole", async () => {
	const { store, chunks } = fakeStore();
	let open!: () => void;
	const gate = new Promise<void>((resolve) => (open = resolve));
	const slow = { ...store, writeChunk: async (id: unknown, n: number, data: Buffer) => (await gate, (store as any).writeChunk(id, n, data)) } as unknown as FileStore;
	const writer = new TarballWriter(slow, FileStore.newId(), new Date(0));
	const data = randomBytes(8 * 1024 * 1024);
	let added = false;
	const adding = writer.add("big.json", data).then(() => (added = true));
	for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
	expect(added).toBe(false);
	expect(chunks.size).toBe(0);
	open();
	await adding;
	const { length } = await writer.finish();
	const whole = Buffer.concat([...chunks.keys()].sort((a, b) => a - b).map((n) => chunks.get(n)!));
	expect(whole.length).toBe(length);
	expect((await untar(whole)).get("big.json")!.equals(data)).toBe(true);
});

test("a store that fails makes adding and finishing fail", async () => {
	const failing = { writeChunk: async () => Promise.reject(new Error("store down")), remove: async () => undefined } as unknown as FileStore;
	const writer = new TarballWriter(failing, FileStore.newId(), new Date(0));
	await expect(
		(async () => {
			for (let i = 0; i < 10; i++) await writer.add(`f${i}.json`, randomBytes(CHUNK_BYTES * 2));
		})(),
	).rejects.toThrow("store down");
	await expect(writer.finish()).rejects.toThrow("store down");
	await writer.abort();
});
