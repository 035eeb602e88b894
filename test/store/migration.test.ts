// Migration from the journal store (before issue #29) to Pebble: a data directory holding only
// journal.bson is converted at the first start. The journal is test/fixtures/store-journal's,
// written by the journal store itself (test/fixtures/README.md says how).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mongo } from "mongoose";
import { buildLauncher, freePort, storeAnswers } from "../../shared/store";
import { waitFor } from "../support/processes";

const FIXTURE = path.resolve(__dirname, "../fixtures/store-journal/journal.bson");

let dir: string;
let child: ChildProcess | undefined;
let log = "";
beforeEach(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-store-migration-"));
	log = "";
});
afterEach(() => {
	child?.kill("SIGKILL");
	fs.rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<string> {
	const port = await freePort();
	child = spawn(buildLauncher(), ["-listen", `127.0.0.1:${port}`, "-data", dir, "-log-level", "warn"], { stdio: ["ignore", "ignore", "pipe"] });
	child.stderr!.on("data", (d) => (log += d));
	await waitFor(() => storeAnswers(port), "the embedded store", 60_000);
	return `mongodb://127.0.0.1:${port}/`;
}

async function stop(): Promise<void> {
	const c = child!;
	await new Promise<void>((resolve) => {
		c.once("exit", () => resolve());
		c.kill("SIGTERM");
	});
	child = undefined;
}

/** What the fixture's journal holds (test/fixtures/store-journal/make-journal.ts wrote it). */
async function expectFixtureData(url: string): Promise<void> {
	const client = await mongo.MongoClient.connect(url);
	try {
		const msgs = client.db("app").collection<{ _id: number; topic: string; edited?: boolean; key?: string; body: string }>("messages");
		expect(await msgs.countDocuments()).toBe(290);
		expect(await msgs.countDocuments({ topic: "t3", edited: true })).toBe(41);
		expect(await msgs.findOne({ _id: 5 })).toEqual({ _id: 5, topic: "t4", tags: ["a1", "b4"], body: "message 5" });
		expect((await msgs.listIndexes().toArray()).map((ix) => ix.name).sort()).toEqual(["_id_", "key_1", "tags_1", "topic_1__id_-1"]);
		// The unique sparse index came across, and the multikey one answers by element.
		await expect(msgs.insertOne({ _id: 1000, topic: "x", key: "k7", body: "" })).rejects.toMatchObject({ code: 11000 });
		expect(await msgs.countDocuments({ tags: "b3" })).toBe(58);
		expect((await msgs.find({ topic: "t1" }).sort({ _id: -1 }).limit(2).toArray()).map((m) => m._id)).toEqual([289, 282]);
		expect(await client.db("app").collection("counters").findOne({ _id: "messages" as never })).toEqual({ _id: "messages", seq: 290 });
		expect((await client.db("app").listCollections().toArray()).map((c) => c.name).sort()).toEqual(["counters", "messages"]);
		expect(await client.db("other").collection("things").countDocuments()).toBe(2);
		expect((await client.db().admin().listDatabases()).databases.map((d) => d.name).sort()).toEqual(["app", "other"]);
	} finally {
		await client.close();
	}
}

test("a journal written by the journal store is converted at the first start, and kept aside", async () => {
	fs.copyFileSync(FIXTURE, path.join(dir, "journal.bson"));
	// What a crash in the middle of writing a record leaves: a length, then part of a document.
	fs.appendFileSync(path.join(dir, "journal.bson"), Buffer.from([0x40, 0, 0, 0, 0x02, 0x6f]));
	await expectFixtureData(await start());
	expect(log).toMatch(/migrating the journal/);
	expect(log).toMatch(/dropping a record cut short/);
	expect(fs.existsSync(path.join(dir, "journal.bson"))).toBe(false);
	expect(fs.readFileSync(path.join(dir, "journal.bson.migrated")).subarray(0, 100)).toEqual(fs.readFileSync(FIXTURE).subarray(0, 100));
	await stop();
	// The next start opens the engine's data; the journal is not read again.
	log = "";
	await expectFixtureData(await start());
	expect(log).not.toMatch(/migrating/);
}, 120_000);

test("a migration cut short by a crash is redone at the next start", async () => {
	fs.copyFileSync(FIXTURE, path.join(dir, "journal.bson"));
	// What a crash mid-way leaves: the journal, and a partial engine directory beside it.
	fs.mkdirSync(path.join(dir, "pebble.tmp"));
	fs.writeFileSync(path.join(dir, "pebble.tmp", "000001.log"), "partial");
	await expectFixtureData(await start());
	expect(fs.existsSync(path.join(dir, "pebble.tmp"))).toBe(false);
}, 120_000);

test("a journal damaged before its end is refused, naming it, and left as it was", async () => {
	const journal = fs.readFileSync(FIXTURE);
	let offset = 0;
	for (let i = 0; i < 10; i++) offset += journal.readUInt32LE(offset);
	journal.writeUInt32LE(2, offset); // the eleventh record's size field
	fs.writeFileSync(path.join(dir, "journal.bson"), journal);
	const port = await freePort();
	const proc = spawn(buildLauncher(), ["-listen", `127.0.0.1:${port}`, "-data", dir], { stdio: ["ignore", "ignore", "pipe"] });
	let err = "";
	proc.stderr.on("data", (d) => (err += d));
	const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
	expect(code).not.toBe(0);
	expect(err).toMatch(/journal\.bson: damaged record at offset/);
	expect(fs.readFileSync(path.join(dir, "journal.bson"))).toEqual(journal);
	expect(fs.existsSync(path.join(dir, "pebble"))).toBe(false);
}, 60_000);
