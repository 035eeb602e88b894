// `npm run bench:stores`: the raw driver operations the store issue is about, against one or more
// MongoDB-wire stores, to compare candidates without the server in the way. For each store and
// each size (STORE_SIZES, default 20,000 and 50,000 message-like documents in one collection,
// created with the message model's indexes first):
//   a. the newest 100 of a channel topic: find({channel_id, topic_key}) sort {_id: -1} limit 100,
//      the topic holding 40% of the collection (20 runs after 2 untimed: median and p99);
//   b. updateMany of 1,000 documents by _id: {$in} (3 runs: median and max);
//   c. 1,000 counter increments one after another: findOneAndUpdate({_id}, {$inc: {seq: 1}},
//      upsert) (total, and median and p99 of each; the counter must end at 1,000);
//   d. 50 concurrent $inc upserts on a fresh counter, 10 rounds: the counter must end at 50 each
//      round; lost updates (increments acknowledged but missing from the counter) and failed
//      calls are printed;
//   e. insertMany of 1,000 documents (3 runs: median and max).
// STORE_URLS: comma-separated name=url pairs (e.g. "mongo=mongodb://127.0.0.1:27017,x=mongodb://...");
// unset, the embedded store (startEmbeddedStore) is started in a temporary directory and measured
// alone. Each operation has STORE_OP_TIMEOUT_SECONDS (default 60), and the runs of one figure
// three times that (the 1,000 increments of c once that): an operation that takes longer shows
// as "timeout" and its connection is dropped and made again before the next one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { freePort, startEmbeddedStore, type RunningStore } from "../../shared/store";
import { messageModel } from "../../services/messages/models/message";
import { commandLine, elapsedMs, fiveTopics, formatTable, onInterrupt, percentile, printableUrl, sleep, syntheticMessage, TimeoutError, withTimeout } from "./bench-support";

const SIZES = (process.env.STORE_SIZES ?? "20000,50000").split(",").map((s) => Number(s.trim()));
const OP_TIMEOUT_MS = Number(process.env.STORE_OP_TIMEOUT_SECONDS ?? 60) * 1000;
const CHANNEL = 10;
const TOPIC = "topic-0";
const LOAD_BATCH = 5000;
const ROUNDS = 10;
const RACERS = 50;

interface Store {
	name: string;
	url: string;
}

/** A connection that can be dropped after a timeout (the store may still be busy with it). */
class Session {
	conn!: mongoose.Connection;
	constructor(
		readonly url: string,
		readonly dbName: string,
	) {}
	async open() {
		this.conn = mongoose.createConnection(this.url, { dbName: this.dbName, autoIndex: false, serverSelectionTimeoutMS: 15_000 });
		await withTimeout(this.conn.asPromise(), OP_TIMEOUT_MS, "connecting");
	}
	get db() {
		return this.conn.db!;
	}
	/** Set when the store was still busy with an abandoned operation when the next one began. */
	busy = false;
	/**
	 * After a timeout: a new connection, then a wait (at most the operation timeout) for the
	 * abandoned operation, which the store may still be running, to end, so that it weighs on the
	 * next figure as little as possible. `done` tells whether it has done its work; without it,
	 * the store counts as idle once it answers three small writes in a row within 100 ms each.
	 */
	async reopen(done?: () => Promise<boolean>) {
		await this.conn.close(true).catch(() => undefined);
		await this.open();
		const until = Date.now() + OP_TIMEOUT_MS;
		let quick = 0;
		this.busy = true;
		while (this.busy && Date.now() < until) {
			const t = process.hrtime.bigint();
			const probe = done ?? (() => this.db.collection("settle").updateOne({ _id: "x" as never }, { $inc: { n: 1 } }, { upsert: true }).then(() => true));
			const ok = await withTimeout(probe(), Math.max(1, until - Date.now()), "settling").catch(() => false);
			quick = ok && (done || elapsedMs(t) < 100) ? quick + 1 : 0;
			if (quick >= (done ? 1 : 3)) this.busy = false;
			else if (!ok || done) await sleep(1000);
		}
	}
	/** Runs `op` with a timeout; on timeout the connection is made again and the error rethrown. */
	async run<T>(what: string, op: () => Promise<T>, timeoutMs = OP_TIMEOUT_MS, done?: () => Promise<boolean>): Promise<T> {
		try {
			return await withTimeout(op(), timeoutMs, what);
		} catch (err) {
			if (err instanceof TimeoutError) await this.reopen(done);
			throw err;
		}
	}
}

const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;
const median = (sorted: number[]) => percentile(sorted, 0.5);
const failure = (err: unknown) => (err instanceof TimeoutError ? "timeout" : `error: ${(err as Error).message.slice(0, 60)}`);
/** Marks a figure measured while the store was still busy with an operation that timed out. */
const taint = (busy: boolean, text: string) => (busy ? `${text} [store still busy after a timeout]` : text);

interface Timed {
	/** Milliseconds of each timed call, ascending. */
	times: number[];
	/** Why the runs stopped early: "timeout" or the error. */
	stopped?: string;
	runs: number;
	/** The store was still busy with an abandoned operation when the runs began. */
	startedBusy: boolean;
}

/**
 * Times `runs` calls of `op` (after `warmup` untimed ones), stopping at the first failure; all of
 * them together get `budgetMs`, each at most the operation timeout. `done(i)` tells whether call
 * `i`, abandoned on its timeout, has done its work since (see Session.reopen).
 */
async function timed(
	s: Session,
	what: string,
	runs: number,
	warmup: number,
	op: (i: number) => Promise<void>,
	budgetMs = 3 * OP_TIMEOUT_MS,
	done?: (i: number) => Promise<boolean>,
): Promise<Timed> {
	const r: Timed = { times: [], runs, startedBusy: s.busy };
	const deadline = Date.now() + budgetMs;
	try {
		for (let i = 0; i < warmup + runs; i++) {
			const t = process.hrtime.bigint();
			await s.run(what, () => op(i), Math.max(1, Math.min(OP_TIMEOUT_MS, deadline - Date.now())), done && (() => done(i)));
			if (i >= warmup) r.times.push(elapsedMs(t));
		}
	} catch (err) {
		r.stopped = failure(err);
	}
	r.times.sort((a, b) => a - b);
	return r;
}

/** `figures` of the times, or why there are none; a note when the runs stopped early. */
function cell(r: Timed, figures: (times: number[]) => string): string {
	if (!r.times.length) return taint(r.startedBusy, r.stopped ?? "no runs");
	return taint(r.startedBusy, r.stopped ? `${figures(r.times)} (${r.times.length} of ${r.runs} runs, then ${r.stopped})` : figures(r.times));
}

/** The figures of one size, as table cells keyed by row name. */
async function measureSize(store: Store, size: number): Promise<Map<string, string>> {
	const cells = new Map<string, string>();
	const s = new Session(store.url, `storecand_${randomBytes(4).toString("hex")}`);
	await s.open();
	try {
		// ---- the collection, its indexes, and the documents ----
		await s.run("creating indexes", () => messageModel(s.conn).createIndexes());
		const messages = () => s.db.collection("messages");
		const counters = () => s.db.collection("counters");
		process.stderr.write(`${store.name}: loading ${size} documents...\n`);
		const loadStart = process.hrtime.bigint();
		try {
			for (let off = 0; off < size; off += LOAD_BATCH) {
				const docs = Array.from({ length: Math.min(LOAD_BATCH, size - off) }, (_, i) => syntheticMessage(off + i + 1, CHANNEL, fiveTopics(off + i)));
				await s.run(`insertMany of ${docs.length}`, () => messages().insertMany(docs as never[]));
			}
			const t = elapsedMs(loadStart);
			cells.set("load", `${ms(t)} (${Math.round(size / (t / 1000))} docs/s)`);
		} catch (err) {
			cells.set("load", failure(err));
			return cells;
		}

		// ---- a. the newest 100 of a topic ----
		process.stderr.write(`${store.name}: a. newest 100 of ${TOPIC}...\n`);
		const a = await timed(s, "find", 20, 2, async () => {
			const docs = await messages().find({ channel_id: CHANNEL, topic_key: TOPIC }).sort({ _id: -1 }).limit(100).toArray();
			if (docs.length !== 100) throw new Error(`${docs.length} documents, expected 100`);
		});
		cells.set("a", cell(a, (t) => `median ${ms(median(t))}, p99 ${ms(percentile(t, 0.99))}`));

		// ---- b. updateMany of 1,000 by _id ----
		process.stderr.write(`${store.name}: b. updateMany of 1,000...\n`);
		const step = Math.max(1, Math.floor(size / 1000));
		const spread = Array.from({ length: Math.min(1000, size) }, (_, i) => 1 + i * step);
		const b = await timed(
			s,
			"updateMany",
			3,
			0,
			async (run) => {
				const r = await messages().updateMany({ _id: { $in: spread as never[] } }, { $set: { last_edit_timestamp: 1_800_000_000 + run } });
				if (r.modifiedCount !== spread.length) throw new Error(`${r.modifiedCount} modified, expected ${spread.length}`);
			},
			undefined,
			async (run) => (await messages().countDocuments({ _id: { $in: spread as never[] }, last_edit_timestamp: 1_800_000_000 + run })) === spread.length,
		);
		cells.set("b", cell(b, (t) => `median ${ms(median(t))}, max ${ms(t.at(-1)!)}`));

		// ---- c. 1,000 counter increments, one after another ----
		process.stderr.write(`${store.name}: c. 1,000 increments...\n`);
		const counterId = `seq-${size}`;
		const c = await timed(
			s,
			"findOneAndUpdate $inc",
			1000,
			0,
			async () => {
				await counters().findOneAndUpdate({ _id: counterId as never }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after" });
			},
			OP_TIMEOUT_MS,
		);
		const cTotal = c.times.reduce((x, y) => x + y, 0);
		const final = c.stopped ? undefined : ((await s.run("reading the counter", () => counters().findOne({ _id: counterId as never })))?.seq as number);
		cells.set("c", cell(c, (t) => `${ms(cTotal)} total, each median ${ms(median(t))}, p99 ${ms(percentile(t, 0.99))}${final === undefined || final === 1000 ? "" : `; counter at ${final}, not 1000`}`));

		// ---- d. 50 concurrent upserts on a fresh counter, 10 rounds ----
		process.stderr.write(`${store.name}: d. ${ROUNDS} rounds of ${RACERS} concurrent increments...\n`);
		const wasBusy = s.busy;
		const lost: number[] = [];
		let errors = 0;
		const errorKinds = new Set<string>();
		const roundTimes: number[] = [];
		let dFailed: string | undefined;
		for (let round = 0; round < ROUNDS && !dFailed; round++) {
			const id = `race-${size}-${round}`;
			const t = process.hrtime.bigint();
			try {
				const results = await s.run("concurrent $inc upserts", () =>
					Promise.allSettled(Array.from({ length: RACERS }, () => counters().findOneAndUpdate({ _id: id as never }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after" }))),
				);
				roundTimes.push(elapsedMs(t));
				const rejected = results.filter((r) => r.status === "rejected");
				errors += rejected.length;
				for (const r of rejected) errorKinds.add(String((r.reason as Error).message).slice(0, 40));
				const final = ((await s.run("reading the counter", () => counters().findOne({ _id: id as never })))?.seq as number | undefined) ?? 0;
				// Lost: acknowledged increments the counter does not show.
				lost.push(RACERS - rejected.length - final);
			} catch (err) {
				dFailed = `${failure(err)} (round ${round + 1})`;
			}
		}
		const lostTotal = lost.reduce((x, y) => x + y, 0);
		roundTimes.sort((x, y) => x - y);
		const dCell =
			dFailed ??
			`${lostTotal} lost of ${ROUNDS * RACERS - errors} acknowledged${lostTotal ? ` (per round: ${lost.join(" ")})` : ""}${errors ? `; ${errors} calls failed (${[...errorKinds].join("; ")})` : ""}; round median ${ms(median(roundTimes))}`;
		cells.set("d", taint(wasBusy, dCell));

		// ---- e. insertMany of 1,000 ----
		process.stderr.write(`${store.name}: e. insertMany of 1,000...\n`);
		const firstOf = (run: number) => size + 1 + run * 1000;
		const e = await timed(
			s,
			"insertMany",
			3,
			0,
			async (run) => {
				const docs = Array.from({ length: 1000 }, (_, i) => syntheticMessage(firstOf(run) + i, CHANNEL, fiveTopics(firstOf(run) + i)));
				const r = await messages().insertMany(docs as never[]);
				if (r.insertedCount !== 1000) throw new Error(`${r.insertedCount} inserted`);
			},
			undefined,
			async (run) => (await messages().countDocuments({ _id: { $gte: firstOf(run), $lt: firstOf(run) + 1000 } as never })) === 1000,
		);
		cells.set("e", cell(e, (t) => `median ${ms(median(t))}, max ${ms(t.at(-1)!)}`));
		return cells;
	} finally {
		await s.run("dropping the database", () => s.db.dropDatabase()).catch(() => undefined);
		await s.conn.close(true).catch(() => undefined);
	}
}

const ROWS: Array<[string, string]> = [
	["load", "load (insertMany x 5,000)"],
	["a", "a. newest 100 of a topic (40%), 20 runs"],
	["b", "b. updateMany 1,000 by _id $in, 3 runs"],
	["c", "c. 1,000 sequential $inc upserts"],
	["d", `d. ${RACERS} concurrent $inc upserts x ${ROUNDS}`],
	["e", "e. insertMany 1,000, 3 runs"],
];

async function measureStore(store: Store): Promise<string> {
	const bySize: Array<Map<string, string>> = [];
	for (const size of SIZES) {
		try {
			bySize.push(await measureSize(store, size));
		} catch (err) {
			bySize.push(new Map([["load", failure(err)]]));
		}
	}
	const rows = [["operation", ...SIZES.map((n) => `${n.toLocaleString("en")} documents`)]];
	for (const [key, label] of ROWS) rows.push([label, ...bySize.map((m) => m.get(key) ?? "skipped")]);
	return `${store.name} (${printableUrl(store.url)})\n\n${formatTable(rows)}`;
}

function parseStores(spec: string): Store[] {
	return spec
		.split(",")
		.map((pair) => pair.trim())
		.filter(Boolean)
		.map((pair) => {
			const eq = pair.indexOf("=");
			if (eq < 1) throw new Error(`STORE_URLS: "${pair}" is not name=url`);
			return { name: pair.slice(0, eq), url: pair.slice(eq + 1) };
		});
}

async function main() {
	let work: string | undefined;
	let embedded: RunningStore | undefined;
	const cleanUp = async () => {
		await embedded?.stop();
		if (work) fs.rmSync(work, { recursive: true, force: true });
	};
	const forget = onInterrupt(cleanUp);
	const tables: string[] = [];
	try {
		let stores: Store[];
		if (process.env.STORE_URLS) stores = parseStores(process.env.STORE_URLS);
		else {
			work = fs.mkdtempSync(path.join(os.tmpdir(), "chat-stores-"));
			embedded = await startEmbeddedStore({ dataDir: work, port: await freePort() });
			stores = [{ name: "embedded", url: embedded.url }];
		}
		for (const store of stores) {
			const table = await measureStore(store);
			tables.push(table);
			process.stderr.write(`\n${table}\n\n`);
		}
	} finally {
		forget();
		await cleanUp();
	}
	const command = commandLine(["STORE_URLS", "STORE_SIZES", "STORE_OP_TIMEOUT_SECONDS"], "test/bench/store-candidates.ts");
	process.stdout.write(`\nRaw store operations, ${os.cpus().length} cores; command: ${command}\n\n${tables.join("\n\n")}\n`);
}

main().catch((err) => {
	process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
