// The embedded store (deploy/embedded-store) through the MongoDB driver, as the services use it:
// atomic counters across processes, durability when killed, the catalog read back at a restart,
// and the query planner giving the same answers as a full scan.
import { spawn, execFile, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import { mongo } from "mongoose";
import { buildLauncher, freePort, portAnswers, startEmbeddedStore } from "../../shared/store";
import { goForStore } from "../../shared/go-toolchain";
import { waitFor } from "../support/processes";

const ROOT = path.resolve(__dirname, "../..");
const { MongoClient } = mongo;

interface StoreProc {
	url: string;
	child: ChildProcess;
	dir: string;
	port: number;
}

async function startStore(dir: string, port?: number): Promise<StoreProc> {
	const p = port ?? (await freePort());
	const child = spawn(buildLauncher(), ["-listen", `127.0.0.1:${p}`, "-data", dir, "-log-level", "error"], { stdio: ["ignore", "ignore", "inherit"] });
	await waitFor(() => portAnswers(p), "the embedded store", 30_000);
	return { url: `mongodb://127.0.0.1:${p}/`, child, dir, port: p };
}

function killHard(s: StoreProc): Promise<void> {
	return new Promise((resolve) => {
		s.child.once("exit", () => resolve());
		s.child.kill("SIGKILL");
	});
}

test("the store's own Go tests pass (index key order)", async () => {
	const run = promisify(execFile);
	const out = await run(goForStore(), ["test", "-count=1", "./..."], {
		cwd: path.join(ROOT, "deploy/embedded-store"),
		env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" },
	});
	expect(out.stdout).toMatch(/^ok\s/m);
}, 300_000);

describe("counters", () => {
	test("50 concurrent allocations from each of 3 processes: no duplicate, no gap", async () => {
		const url = process.env.TEST_MONGO_URL!;
		const prefix = `t${randomBytes(4).toString("hex")}`;
		const run = promisify(execFile);
		const outs = await Promise.all(
			[1, 2, 3].map(() => run(path.join(ROOT, "node_modules/.bin/tsx"), ["test/support/allocate.ts", url, prefix, "50"], { cwd: ROOT })),
		);
		const ids = outs.flatMap((o) => JSON.parse(o.stdout) as number[]).sort((a, b) => a - b);
		expect(ids).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
		const client = await MongoClient.connect(url);
		expect(await client.db(`${prefix}_alloc`).collection("counters").findOne({ _id: "thing" as never })).toEqual({ _id: "thing", seq: 150 });
		await client.db(`${prefix}_alloc`).dropDatabase();
		await client.close();
	}, 60_000);
});

describe("durability", () => {
	let dir: string;
	beforeEach(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-store-"));
	});
	afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

	test("every acknowledged write survives kill -9 in the middle of a burst", async () => {
		const store = await startStore(dir);
		const client = await MongoClient.connect(store.url, { serverSelectionTimeoutMS: 2_000 });
		const coll = client.db("d").collection<{ _id: number; n: number }>("c");
		await coll.createIndex({ n: 1 }, { unique: true });
		const acked: number[] = [];
		let next = 1;
		// Eight writers at once, each inserting and then updating its documents, until the kill.
		const writers = Array.from({ length: 8 }, async () => {
			for (;;) {
				const id = next++;
				try {
					await coll.insertOne({ _id: id, n: id });
					await coll.updateOne({ _id: id }, { $inc: { n: 1_000_000 } });
					acked.push(id);
				} catch {
					return;
				}
			}
		});
		await waitFor(async () => acked.length >= 500, "500 acknowledged writes", 30_000);
		await killHard(store);
		await Promise.all(writers);
		await client.close(true);

		const again = await startStore(dir, store.port);
		const client2 = await MongoClient.connect(again.url);
		const docs = await client2.db("d").collection<{ _id: number; n: number }>("c").find({ _id: { $in: acked } }).toArray();
		expect(docs.length).toBe(acked.length);
		for (const d of docs) expect(d.n).toBe(d._id + 1_000_000);
		// The unique index came back with the data.
		await expect(client2.db("d").collection("c").insertOne({ _id: -1, n: docs[0].n } as never)).rejects.toMatchObject({ code: 11000 });
		await client2.close();
		await killHard(again);
	}, 60_000);

	test("a restart reads back the catalog: counts, unique and compound indexes, dropped collections stay gone", async () => {
		const store = await startStore(dir);
		const client = await MongoClient.connect(store.url);
		const coll = client.db("d").collection<{ _id: number; k: string; t: number }>("c");
		await coll.createIndex({ k: 1 }, { unique: true });
		await coll.createIndex({ t: 1, _id: -1 });
		await coll.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: i, k: `k${i}`, t: i % 3 })));
		await coll.deleteMany({ _id: { $gte: 90 } });
		await client.db("d").collection("gone").insertOne({ x: 1 });
		await client.db("d").collection("gone").drop();
		await client.close();
		await killHard(store);
		const again = await startStore(dir, store.port);
		const client2 = await MongoClient.connect(again.url);
		const coll2 = client2.db("d").collection<{ _id: number; k: string; t: number }>("c");
		expect(await coll2.countDocuments()).toBe(90);
		expect(await coll2.estimatedDocumentCount()).toBe(90);
		expect((await coll2.listIndexes().toArray()).map((ix) => ix.name).sort()).toEqual(["_id_", "k_1", "t_1__id_-1"]);
		await expect(coll2.insertOne({ _id: 1000, k: "k5", t: 0 })).rejects.toMatchObject({ code: 11000 });
		const newest = await coll2.find({ t: 1 }, { hint: "t_1__id_-1" }).limit(3).toArray();
		expect(newest.map((d) => d._id)).toEqual([88, 85, 82]);
		expect(await client2.db("d").listCollections().toArray()).toHaveLength(1);
		await client2.close();
		await killHard(again);
	}, 60_000);
});

describe("settings", () => {
	test("STORE_CACHE_MB is passed to the store, and refused at start when it is not a size", async () => {
		const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-store-cache-"));
		try {
			process.env.STORE_CACHE_MB = "lots";
			await expect(startEmbeddedStore({ dataDir, port: await freePort() })).rejects.toThrow(/STORE_CACHE_MB must be a whole number/);
			process.env.STORE_CACHE_MB = "16";
			const store = await startEmbeddedStore({ dataDir, port: await freePort() });
			const pid = (JSON.parse(fs.readFileSync(path.join(dataDir, "store", "running.json"), "utf8")) as { pid: number }).pid;
			expect(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toEqual(expect.arrayContaining(["-cache-mb", "16"]));
			await store.stop();
		} finally {
			delete process.env.STORE_CACHE_MB;
			fs.rmSync(dataDir, { recursive: true, force: true });
		}
	}, 60_000);
});

describe("write commands", () => {
	// A command's statements read its own earlier writes (one engine batch per command).
	test("a duplicate inside one insertMany: ordered keeps those before it, unordered all but it", async () => {
		const client = await MongoClient.connect(process.env.TEST_MONGO_URL!);
		const db = client.db(`t${randomBytes(4).toString("hex")}_writes`);
		try {
			const coll = db.collection<{ _id: number; k: string }>("c");
			await coll.createIndex({ k: 1 }, { unique: true });
			const docs = [
				{ _id: 1, k: "a" },
				{ _id: 2, k: "b" },
				{ _id: 3, k: "a" },
				{ _id: 4, k: "c" },
			];
			await expect(coll.insertMany(docs)).rejects.toMatchObject({ code: 11000 });
			expect((await coll.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([1, 2]);
			await coll.deleteMany({});
			await expect(coll.insertMany(docs, { ordered: false })).rejects.toMatchObject({ code: 11000 });
			expect((await coll.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([1, 2, 4]);
			// An updateMany that would make a duplicate stops there; the count stays the catalog's.
			expect(await coll.estimatedDocumentCount()).toBe(3);
			await coll.updateMany({ _id: { $in: [2, 4] } }, { $set: { k: "z" } }).catch(() => undefined);
			expect(await coll.countDocuments({ k: "z" })).toBe(1);
			expect(await coll.countDocuments({})).toBe(3);
		} finally {
			await db.dropDatabase();
			await client.close();
		}
	});
});

describe("query planner", () => {
	// Random documents and filters: every answer from the indexes must equal the full scan's
	// ($natural order makes the store scan the collection without indexes).
	let client: mongo.MongoClient;
	const db = `t${randomBytes(4).toString("hex")}_planner`;
	beforeAll(async () => {
		client = await MongoClient.connect(process.env.TEST_MONGO_URL!);
	});
	afterAll(async () => {
		await client.db(db).dropDatabase();
		await client.close();
	});

	test("indexed answers equal full scans for 200 random queries", async () => {
		let seed = 42;
		const rand = (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed % n;
		};
		const coll = client.db(db).collection("docs");
		await coll.createIndex({ a: 1, _id: 1 });
		await coll.createIndex({ a: 1, b: -1, c: 1 });
		await coll.createIndex({ tags: 1, _id: 1 });
		await coll.createIndex({ c: 1 });
		const docs = Array.from({ length: 2_000 }, (_, i) => {
			const d: Record<string, unknown> = { _id: i + 1, a: rand(5), b: rand(20), tags: Array.from({ length: rand(4) }, () => `t${rand(6)}`) };
			if (rand(10)) d.c = rand(3) ? rand(50) : `s${rand(5)}`;
			return d;
		});
		await coll.insertMany(docs as never[]);
		const conditions: Array<() => Record<string, unknown>> = [
			() => ({ a: rand(6) }),
			() => ({ a: { $in: [rand(5), rand(5)] } }),
			() => ({ b: { $gte: rand(20), $lt: rand(20) + 5 } }),
			() => ({ b: { $gt: rand(20) } }),
			() => ({ _id: { $lte: rand(2_000) } }),
			() => ({ tags: `t${rand(7)}` }),
			() => ({ tags: { $in: [`t${rand(6)}`, `t${rand(6)}`] } }),
			() => ({ c: rand(50) }),
			() => ({ c: { $lt: 25 } }),
			() => ({ c: null }),
			() => ({ $or: [{ a: rand(5) }, { tags: `t${rand(6)}` }] }),
			() => ({ $or: [{ c: rand(50) }, { _id: { $in: [rand(2_000), rand(2_000)] } }] }),
		];
		const sorts: Array<Record<string, 1 | -1> | undefined> = [undefined, { _id: 1 }, { _id: -1 }, { b: -1, c: 1, _id: 1 }, { a: 1, b: -1, _id: -1 }, { c: 1, _id: 1 }];
		for (let i = 0; i < 200; i++) {
			const filter = Object.assign({}, conditions[rand(conditions.length)](), rand(2) ? conditions[rand(conditions.length)]() : {}) as mongo.Filter<mongo.Document>;
			const sort = sorts[rand(sorts.length)];
			const limit = rand(3) ? 0 : 1 + rand(30);
			const byIndex = await coll.find(filter, { sort, limit }).toArray();
			const scanned = await coll.find(filter, { sort: { $natural: 1 } }).toArray();
			const expected = sort ? sortLike(scanned, sort) : scanned.sort((x, y) => Number(x._id) - Number(y._id));
			const got = sort ? byIndex : byIndex.sort((x, y) => Number(x._id) - Number(y._id));
			if (limit && !sort) {
				// Without a sort any `limit` documents are right: check they all match.
				expect(got.length).toBe(Math.min(limit, expected.length));
				const ids = new Set(expected.map((d) => d._id));
				for (const d of got) expect(ids.has(d._id)).toBe(true);
			} else {
				expect({ filter, sort, ids: got.map((d) => d._id) }).toEqual({ filter, sort, ids: expected.slice(0, limit || undefined).map((d) => d._id) });
			}
		}
	}, 120_000);
});

// MongoDB's order for the values these documents hold: missing and null first, numbers, strings.
function sortLike(docs: Array<Record<string, unknown>>, sort: Record<string, number>): Array<Record<string, unknown>> {
	const rank = (v: unknown) => (v === undefined || v === null ? 0 : typeof v === "number" ? 1 : 2);
	const cmp = (x: unknown, y: unknown) => rank(x) - rank(y) || (x === y ? 0 : (x as number) < (y as number) ? -1 : 1);
	return [...docs].sort((x, y) => {
		for (const [k, dir] of Object.entries(sort)) {
			const c = cmp(x[k], y[k]) * dir;
			if (c) return c;
		}
		return Number(x._id) - Number(y._id);
	});
}
