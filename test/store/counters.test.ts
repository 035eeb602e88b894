// The ID counters of shared/db.ts on a warm connection pool: many allocations truly at once (each
// on a connection of its own, none waiting for the pool to open one), including the first ones of
// a counter that does not exist yet, which race its creation. No ID is handed out twice, none is
// skipped, and the counter ends at the sum of what was reserved.
import { randomBytes } from "node:crypto";
import mongoose, { type Connection } from "mongoose";
import { counters } from "../../shared/db";

const POOL = 48;
let conn: Connection;

beforeAll(async () => {
	const prefix = `c${randomBytes(4).toString("hex")}`;
	conn = mongoose.createConnection(process.env.TEST_MONGO_URL!, { dbName: `${prefix}_counters`, minPoolSize: POOL, maxPoolSize: POOL });
	// Warm: the pool holds POOL open connections before the first allocation.
	let opened = 0;
	const warm = new Promise<void>((resolve) =>
		conn.getClient().on("connectionReady", () => {
			if (++opened >= POOL) resolve();
		}),
	);
	await conn.asPromise();
	await Promise.all(Array.from({ length: POOL }, () => conn.db!.command({ ping: 1 })));
	await warm;
});

afterAll(async () => {
	await conn.dropDatabase().catch(() => undefined);
	await conn.close();
});

/** `n` allocations at once of `count` IDs each; the IDs handed out, sorted. */
async function allocateAtOnce(next: (entity: string, count?: number) => Promise<number>, entity: string, n: number, count: (i: number) => number): Promise<number[]> {
	const firsts = await Promise.all(Array.from({ length: n }, (_, i) => next(entity, count(i)).then((first) => ({ first, count: count(i) }))));
	return firsts.flatMap(({ first, count: c }) => Array.from({ length: c }, (_, k) => first + k)).sort((a, b) => a - b);
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

test("new counters raced by a full pool: every ID once, no gap, the counter at the total", async () => {
	const next = counters(conn);
	for (let round = 0; round < 10; round++) {
		const entity = `fresh-${round}`;
		const ids = await allocateAtOnce(next, entity, POOL * 2, () => 1);
		expect(ids).toEqual(oneToN(POOL * 2));
		expect(await conn.collection("counters").findOne({ _id: entity as never })).toEqual({ _id: entity, seq: POOL * 2 });
	}
});

test("blocks of several IDs from an existing counter at once: no overlap, no gap", async () => {
	const next = counters(conn);
	const created = await next("blocks");
	expect(created).toBe(1);
	const sizes = (i: number) => 1 + (i % 7);
	const ids = await allocateAtOnce(next, "blocks", POOL * 3, sizes);
	const total = Array.from({ length: POOL * 3 }, (_, i) => sizes(i)).reduce((a, b) => a + b, 0);
	expect(ids).toEqual(oneToN(total + 1).slice(1));
	expect(await conn.collection("counters").findOne({ _id: "blocks" as never })).toEqual({ _id: "blocks", seq: total + 1 });
});

test("two counters of one collection and two handles on it stay independent", async () => {
	const [a, b] = [counters(conn), counters(conn)];
	const [x, y] = await Promise.all([
		Promise.all(Array.from({ length: POOL }, (_, i) => (i % 2 ? a : b)("x"))),
		Promise.all(Array.from({ length: POOL }, (_, i) => (i % 2 ? b : a)("y"))),
	]);
	expect([...x].sort((p, q) => p - q)).toEqual(oneToN(POOL));
	expect([...y].sort((p, q) => p - q)).toEqual(oneToN(POOL));
});
