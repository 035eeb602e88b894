// Damage to the embedded store's data directory is found and refused, never read around: a
// flipped byte (in a table, in the manifest), a file cut short, bytes appended, a missing file. Each case on a copy of one data
// directory: the store refuses to start naming the file (in the node's log, at error level),
// `store-check` reports it, `store-repair` salvages the rest into a new directory. And
// `store-backup` while a server writes: the copy restored reads back everything acknowledged.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { mongo } from "mongoose";
import { buildLauncher, freePort, startEmbeddedStore, StartupError, storeAnswers } from "../../shared/store";
import { waitFor } from "../support/processes";
import { manage } from "../support/manage";

let work: string;
let pristine: string;

beforeAll(async () => {
	work = fs.mkdtempSync(path.join(os.tmpdir(), "chat-store-damage-"));
	pristine = path.join(work, "pristine");
	// Two collections written by two runs of the store.
	await withStore(pristine, async (client) => {
		const a = client.db("app").collection<{ _id: number; k: string }>("first");
		await a.createIndex({ k: 1 }, { unique: true });
		await a.insertMany(Array.from({ length: 1_000 }, (_, i) => ({ _id: i, k: `k${i}` })));
	});
	await withStore(pristine, async (client) => {
		// 6 MB, incompressible: the engine writes it as several tables, in key order, so the newest
		// table holds only the last of these documents.
		const b = client.db("app").collection<{ _id: number; body: string }>("second");
		for (let round = 0; round < 3; round++) {
			await b.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: round * 500 + i, body: randomBytes(3_000).toString("base64") })));
		}
	});
}, 120_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

async function withStore<T>(dir: string, fn: (client: mongo.MongoClient) => Promise<T>): Promise<T> {
	const port = await freePort();
	const child = spawn(buildLauncher(), ["-listen", `127.0.0.1:${port}`, "-data", dir], { stdio: ["ignore", "ignore", "inherit"] });
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	try {
		await waitFor(() => storeAnswers(port), "the embedded store", 30_000);
		const client = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${port}/`);
		try {
			return await fn(client);
		} finally {
			await client.close();
		}
	} finally {
		child.kill("SIGTERM");
		await exited;
	}
}

/** `npm run manage -- <args>` (test/support/manage.ts), its exit code and all it printed. */
async function manageOut(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
	const run = await manage(env, args);
	return { code: run.code, out: run.stdout + run.stderr };
}

/** A copy of the pristine data directory; `table` is its newest table (the engine numbers its files in the order it writes them). */
function copy(name: string): { dir: string; table: string } {
	const dir = path.join(work, name);
	fs.cpSync(pristine, dir, { recursive: true });
	const engine = path.join(dir, "pebble");
	const tables = fs.readdirSync(engine).filter((f) => f.endsWith(".sst")).sort();
	expect(tables.length).toBeGreaterThanOrEqual(2);
	return { dir, table: path.join(engine, tables[tables.length - 1]) };
}

/** Starts the store on `dir` through the node's own start (shared/store.ts): it must refuse; answers the node's error lines. */
async function refusedStart(dir: string): Promise<string> {
	const errors: string[] = [];
	const log = { info: () => undefined, warn: (...a: unknown[]) => errors.push(a.join(" ")), error: (...a: unknown[]) => errors.push(a.join(" ")) };
	const dataDir = path.join(work, `node-${path.basename(dir)}`);
	fs.mkdirSync(dataDir);
	fs.renameSync(dir, path.join(dataDir, "store"));
	try {
		await expect(startEmbeddedStore({ dataDir, port: await freePort(), log })).rejects.toBeInstanceOf(StartupError);
	} finally {
		fs.renameSync(path.join(dataDir, "store"), dir);
	}
	return errors.join("\n");
}

const cases: Array<[string, (table: string) => void, RegExp]> = [
	[
		"a flipped byte",
		(table) => {
			const b = fs.readFileSync(table);
			b[Math.floor(b.length / 3)] ^= 0x40;
			fs.writeFileSync(table, b);
		},
		/checksum|damaged block|corrupt/i,
	],
	["a table cut short", (table) => fs.truncateSync(table, fs.statSync(table).size - 100), /cut short or appended/],
	["random bytes appended", (table) => fs.appendFileSync(table, randomBytes(64)), /cut short or appended/],
	["a missing table", (table) => fs.rmSync(table), /missing/],
];

describe.each(cases)("%s", (name, damage, what) => {
	test("is refused at start naming the file, reported by store-check, and store-repair salvages the rest", async () => {
		const { dir, table } = copy(name.replace(/\W+/g, "-"));
		damage(table);
		const logged = await refusedStart(dir);
		expect(logged).toContain(path.basename(table));
		expect(logged).toMatch(/refusing to start/);
		expect(logged).toMatch(what);

		const check = await manageOut(["store-check", dir]);
		expect(check.code).toBe(1);
		expect(check.out).toContain(path.basename(table));

		const repaired = path.join(work, `${path.basename(dir)}-repaired`);
		const repair = await manageOut(["store-repair", dir, "--to", repaired]);
		// Every document is salvaged or counted lost: what the damaged table held may still be
		// read from the engine's older files (a log kept for reuse), never silently missing.
		const lost = Number(/lost: (\d+) of the 1500 documents of app\.second/.exec(repair.out)?.[1] ?? 0);
		if (fs.existsSync(table)) expect(repair.out).toContain(`lost: ${table}`);
		expect(repair.code).toBe(fs.existsSync(table) || lost > 0 ? 1 : 0);
		// The first collection is whole, with its unique index.
		await withStore(repaired, async (client) => {
			const first = client.db("app").collection("first");
			expect(await first.countDocuments()).toBe(1_000);
			await expect(first.insertOne({ _id: 5_000, k: "k7" } as never)).rejects.toMatchObject({ code: 11000 });
			expect(await client.db("app").collection("second").countDocuments()).toBe(1_500 - lost);
		});
		expect((await manageOut(["store-check", repaired])).code).toBe(0);
	}, 120_000);
});

describe("the engine's log after a crash", () => {
	// 300 documents written one command each, then kill -9: they live only in the newest log
	// (the engine's write-ahead log), each command one record synced before its answer.
	const WRITTEN = 300;
	let crashed: string;
	beforeAll(async () => {
		crashed = path.join(work, "crashed");
		const port = await freePort();
		const child = spawn(buildLauncher(), ["-listen", `127.0.0.1:${port}`, "-data", crashed], { stdio: ["ignore", "ignore", "inherit"] });
		const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
		await waitFor(() => storeAnswers(port), "the embedded store", 30_000);
		const client = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${port}/`);
		const c = client.db("app").collection<{ _id: number; body: string }>("logged");
		for (let i = 0; i < WRITTEN; i++) await c.insertOne({ _id: i, body: "x".repeat(200) });
		await client.close();
		child.kill("SIGKILL");
		await exited;
	}, 120_000);

	/** A copy of the crashed directory, its newest log, and the offset of the log's last non-zero byte. */
	function crashedCopy(name: string): { dir: string; log: string; end: number } {
		const dir = path.join(work, name);
		fs.cpSync(crashed, dir, { recursive: true });
		const engine = path.join(dir, "pebble");
		const log = path.join(engine, fs.readdirSync(engine).filter((f) => f.endsWith(".log")).sort().at(-1)!);
		const b = fs.readFileSync(log);
		let end = b.length - 1;
		while (end > 0 && b[end] === 0) end--;
		return { dir, log, end };
	}

	/** Starts the store on `dir` through the node's own start; answers its warnings and the documents it holds. */
	async function startedWith(dir: string): Promise<{ warned: string; ids: number[] }> {
		const warnings: string[] = [];
		const log = { info: () => undefined, warn: (...a: unknown[]) => warnings.push(a.join(" ")), error: (...a: unknown[]) => warnings.push(a.join(" ")) };
		const dataDir = path.join(work, `node-${path.basename(dir)}`);
		fs.mkdirSync(dataDir);
		fs.renameSync(dir, path.join(dataDir, "store"));
		const store = await startEmbeddedStore({ dataDir, port: await freePort(), log });
		try {
			const client = await mongo.MongoClient.connect(store.url);
			try {
				const docs = await client.db("app").collection<{ _id: number }>("logged").find({}).sort({ _id: 1 }).toArray();
				return { warned: warnings.join("\n"), ids: docs.map((d) => d._id) };
			} finally {
				await client.close();
			}
		} finally {
			await store.stop();
		}
	}

	const all = (n: number) => Array.from({ length: n }, (_, i) => i);

	test("as the crash left it: every acknowledged write is there, no warning", async () => {
		const { dir } = crashedCopy("crash-intact");
		const { warned, ids } = await startedWith(dir);
		expect(ids).toEqual(all(WRITTEN));
		expect(warned).not.toMatch(/cut short or damaged/);
	}, 60_000);

	test.each([
		["its last record damaged", (log: string, end: number) => {
			const b = fs.readFileSync(log);
			b[end - 3] ^= 0x40;
			fs.writeFileSync(log, b);
		}],
		["its last record cut short", (log: string, end: number) => fs.truncateSync(log, end - 3)],
	])("%s: the store starts with every write before it and warns, naming the file and offset", async (name, damage) => {
		const { dir, log, end } = crashedCopy(`crash-${name.replace(/\W+/g, "-")}`);
		damage(log, end);
		const { warned, ids } = await startedWith(dir);
		// Nothing tells a last write cut short by a crash from a damaged one: it is said, not hidden.
		expect(warned).toMatch(new RegExp(`${path.basename(log)}: the engine's log ends in a record cut short or damaged at offset \\d+`));
		expect(ids).toEqual(all(WRITTEN - 1));
	}, 60_000);

	test("a record before the last damaged: refused, since later records say the log was synced past it; store-repair reads on after it", async () => {
		const { dir, log } = crashedCopy("crash-middle-damaged");
		const b = fs.readFileSync(log);
		b[2_000] ^= 0x40;
		fs.writeFileSync(log, b);
		const logged = await refusedStart(dir);
		expect(logged).toMatch(new RegExp(`refusing to start: .*${path.basename(log)}: damaged record at offset \\d+, and a later record says the log was synced to offset \\d+`));
		const check = await manageOut(["store-check", dir]);
		expect(check.code).toBe(1);
		expect(check.out).toContain(path.basename(log));

		const repaired = path.join(work, "crash-middle-damaged-repaired");
		const repair = await manageOut(["store-repair", dir, "--to", repaired]);
		expect(repair.code).toBe(1);
		expect(repair.out).toMatch(new RegExp(`lost: .*${path.basename(log)}: damaged record at offset \\d+ though the log was synced to \\d+, read on from offset 32768`));
		await withStore(repaired, async (client) => {
			const ids = (await client.db("app").collection<{ _id: number }>("logged").find({}).sort({ _id: 1 }).toArray()).map((d) => d._id);
			// What the damaged block held is lost, and said; everything after it is salvaged.
			expect(ids.length).toBeGreaterThan(WRITTEN / 2);
			expect(ids.at(-1)).toBe(WRITTEN - 1);
			expect(ids.length).toBeLessThan(WRITTEN);
		});
	}, 120_000);
});

test("a missing manifest is refused: the engine would otherwise start empty", async () => {
	const { dir } = copy("missing-manifest");
	const engine = path.join(dir, "pebble");
	for (const f of fs.readdirSync(engine).filter((n) => n.startsWith("MANIFEST-"))) fs.rmSync(path.join(engine, f));
	const logged = await refusedStart(dir);
	expect(logged).toMatch(/refusing to start.*MANIFEST/);
	expect((await manageOut(["store-check", dir])).code).toBe(1);
	const repaired = path.join(work, "missing-manifest-repaired");
	await manageOut(["store-repair", dir, "--to", repaired]);
	// Without the manifest every table is still read: nothing of the data is lost.
	await withStore(repaired, async (client) => {
		expect(await client.db("app").collection("first").countDocuments()).toBe(1_000);
		expect(await client.db("app").collection("second").countDocuments()).toBe(1_500);
	});
}, 120_000);

test("a flipped byte in the manifest is refused: the engine would otherwise read it as cut short", async () => {
	const { dir } = copy("manifest-flipped");
	const engine = path.join(dir, "pebble");
	const manifest = fs.readdirSync(engine).filter((n) => n.startsWith("MANIFEST-")).sort().at(-1)!; // the current one
	const b = fs.readFileSync(path.join(engine, manifest));
	b[b.length - 20] ^= 0x40; // in its last record
	fs.writeFileSync(path.join(engine, manifest), b);
	const logged = await refusedStart(dir);
	expect(logged).toMatch(new RegExp(`refusing to start: .*${manifest}: damaged record`));
	const check = await manageOut(["store-check", dir]);
	expect(check.code).toBe(1);
	expect(check.out).toContain(manifest);
	const repaired = path.join(work, "manifest-flipped-repaired");
	await manageOut(["store-repair", dir, "--to", repaired]);
	await withStore(repaired, async (client) => {
		expect(await client.db("app").collection("first").countDocuments()).toBe(1_000);
		expect(await client.db("app").collection("second").countDocuments()).toBe(1_500);
	});
}, 120_000);

test("the pristine copy checks OK, and store-check changes nothing in it", async () => {
	const files = () => {
		const engine = path.join(pristine, "pebble");
		return fs.readdirSync(engine).map((f) => `${f} ${createHash("sha256").update(fs.readFileSync(path.join(engine, f))).digest("hex")}`);
	};
	const before = files();
	const check = await manageOut(["store-check", pristine]);
	expect(check.out).toMatch(/OK \(2 collections, 2500 documents, 1000 index entries/);
	expect(check.code).toBe(0);
	expect(files()).toEqual(before);
}, 60_000);

test("store-backup while a server writes: the copy restored holds every write acknowledged before it", async () => {
	const dataDir = path.join(work, "live");
	const store = await startEmbeddedStore({ dataDir, port: await freePort() });
	const client = await mongo.MongoClient.connect(store.url);
	const coll = client.db("app").collection<{ _id: number; n: number }>("c");
	let next = 0;
	let stop = false;
	// Writers go on during the backup; each write is a document and a counter moved together.
	const writers = Array.from({ length: 4 }, async () => {
		while (!stop) {
			const id = next++;
			await coll.insertOne({ _id: id, n: id });
			await client.db("app").collection("count").updateOne({ _id: "n" as never }, { $inc: { n: 1 } }, { upsert: true });
		}
	});
	try {
		await waitFor(async () => next > 200, "200 writes", 30_000);
		const before = await coll.countDocuments();
		const dest = path.join(work, "backup");
		const backup = await manageOut(["store-backup", dest], { DATA_DIR: dataDir });
		expect(backup.code).toBe(0);
		expect(backup.out).toMatch(/running store/);
		stop = true;
		await Promise.all(writers);
		expect((await manageOut(["store-check", dest])).code).toBe(0);
		await withStore(dest, async (restored) => {
			const n = await restored.db("app").collection("c").countDocuments();
			expect(n).toBeGreaterThanOrEqual(before);
			// Every document from 0 to the last one in the copy: no acknowledged write left out before it.
			const ids = (await restored.db("app").collection<{ _id: number }>("c").find({}).sort({ _id: 1 }).toArray()).map((d) => d._id);
			expect(ids.length).toBe(n);
			expect(ids[ids.length - 1]).toBeLessThan(next);
		});
	} finally {
		stop = true;
		await client.close();
		await store.stop();
	}
}, 120_000);
