// kill -9 of the embedded store at 20 random points during bursts of concurrent writes: after
// each restart every acknowledged write is there, and no write command is half applied (an
// insertMany of 50 documents and an updateMany of 20 are each one engine batch: all or nothing).
import { spawn, execFile, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { mongo } from "mongoose";
import { buildLauncher, freePort, storeAnswers } from "../../shared/store";
import { waitFor } from "../support/processes";

const ROUNDS = 20;
const GROUPS = 4;
const GROUP_SIZE = 20;
const BATCH = 50;

interface Doc {
	_id: string;
	batch?: number;
	group?: number;
	v?: number;
	n?: number;
}

let dir: string;
beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-store-crash-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function start(port: number): Promise<ChildProcess> {
	const child = spawn(buildLauncher(), ["-listen", `127.0.0.1:${port}`, "-data", dir], { stdio: ["ignore", "ignore", "inherit"] });
	await waitFor(() => storeAnswers(port), "the embedded store", 30_000);
	return child;
}

function kill9(child: ChildProcess): Promise<void> {
	return new Promise((resolve) => {
		child.once("exit", () => resolve());
		child.kill("SIGKILL");
	});
}

test(`${ROUNDS} kills during concurrent writes: every acknowledged write kept, none half applied`, async () => {
	const port = await freePort();
	let child = await start(port);
	const setup = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${port}/`);
	const coll = setup.db("crash").collection<Doc>("c");
	await coll.insertMany(Array.from({ length: GROUPS * GROUP_SIZE }, (_, i) => ({ _id: `g${i}`, group: i % GROUPS, v: 0 })));
	await coll.insertOne({ _id: "counter", n: 0 });
	await setup.close();

	const ackedBatches = new Set<number>();
	const triedBatches = new Set<number>();
	const ackedUpdates = Array<number>(GROUPS).fill(0);
	const triedUpdates = Array<number>(GROUPS).fill(0);
	let ackedCount = 0;
	let triedCount = 0;
	let nextBatch = 0;

	for (let round = 0; round < ROUNDS; round++) {
		const client = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${port}/`, { serverSelectionTimeoutMS: 1_000, maxPoolSize: 8 });
		const c = client.db("crash").collection<Doc>("c");
		let acks = 0;
		let running = true;
		const loop = async (write: () => Promise<void>) => {
			while (running) {
				try {
					await write();
					acks++;
				} catch {
					return; // the store is gone
				}
			}
		};
		const writers = [
			...[0, 1].map(() =>
				loop(async () => {
					const b = nextBatch++;
					triedBatches.add(b);
					await c.insertMany(Array.from({ length: BATCH }, (_, i) => ({ _id: `b${b}:${i}`, batch: b })));
					ackedBatches.add(b);
				}),
			),
			// Each group has one writer, so its acknowledged and tried counts bound its value.
			...Array.from({ length: GROUPS }, (_, g) =>
				loop(async () => {
					triedUpdates[g]++;
					await c.updateMany({ group: g }, { $inc: { v: 1 } });
					ackedUpdates[g]++;
				}),
			),
			loop(async () => {
				triedCount++;
				await c.findOneAndUpdate({ _id: "counter" }, { $inc: { n: 1 } });
				ackedCount++;
			}),
		];
		// A random point: after 1 to 60 acknowledged writes of this round.
		const killAt = 1 + Math.floor(Math.random() * 60);
		await waitFor(async () => acks >= killAt, `${killAt} acknowledged writes`, 30_000);
		await kill9(child);
		running = false;
		await Promise.all(writers);
		await client.close(true);

		child = await start(port);
		const check = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${port}/`);
		try {
			const d = check.db("crash").collection<Doc>("c");
			const perBatch = new Map<number, number>();
			for (const doc of await d.find({ batch: { $exists: true } }).toArray()) perBatch.set(doc.batch!, (perBatch.get(doc.batch!) ?? 0) + 1);
			for (const b of ackedBatches) expect([b, perBatch.get(b)]).toEqual([b, BATCH]);
			for (const [b, n] of perBatch) expect([b, n, triedBatches.has(b)]).toEqual([b, BATCH, true]);
			for (let g = 0; g < GROUPS; g++) {
				const values = new Set((await d.find({ group: g }).toArray()).map((doc) => doc.v!));
				expect(values.size).toBe(1); // the updateMany of 20 was all or nothing
				const [v] = [...values];
				expect(v).toBeGreaterThanOrEqual(ackedUpdates[g]);
				expect(v).toBeLessThanOrEqual(triedUpdates[g]);
				// What the store kept is the truth from here on.
				ackedUpdates[g] = triedUpdates[g] = v;
			}
			const { n } = (await d.findOne({ _id: "counter" }))!;
			expect(n).toBeGreaterThanOrEqual(ackedCount);
			expect(n).toBeLessThanOrEqual(triedCount);
			ackedCount = triedCount = n!;
			for (const [b] of perBatch) ackedBatches.add(b);
			expect(await d.countDocuments()).toBe(GROUPS * GROUP_SIZE + 1 + ackedBatches.size * BATCH);
		} finally {
			await check.close();
		}
	}
	expect(ackedBatches.size).toBeGreaterThan(0);
	// A clean stop, then the offline check: every block, document and index entry sound.
	await new Promise<void>((resolve) => {
		child.once("exit", () => resolve());
		child.kill("SIGTERM");
	});
	const { stdout } = await promisify(execFile)(buildLauncher(), ["check", "-data", dir]);
	expect(stdout).toMatch(/OK \(1 collections/);
}, 300_000);
