// A snapshot of every service database of a test app, read directly through the driver, to prove
// that a refused request changed nothing.
import mongoose from "mongoose";
import { SERVICES } from "../../services";
import type { TestApp } from "./app";
import { expectError } from "./http";

export interface Snapshotter {
	/**
	 * Every document of every collection but `counters` (an ID spent by a refused request is no
	 * state), `cli_relays` (each users replica's liveness stamp, renewed every few seconds) and
	 * `requests` (the request keys of writes, shared/request-records.ts: a refused write's key is
	 * removed, but its insert may have created the collection).
	 */
	take(): Promise<Map<string, string>>;
	/** Runs `run` (which checks its own answers) and fails if any database changed meanwhile. */
	unchanged(run: () => Promise<unknown>): Promise<void>;
	/** The request is refused with this error and changes nothing. */
	refused(request: () => Promise<any>, status: number, code: string, msg: string | RegExp): Promise<void>;
	close(): Promise<void>;
}

/** Every service that keeps a database, so no write of any route goes unseen. */
const DATABASES = Object.entries(SERVICES).flatMap(([name, s]) => (s.needsDb ? [name] : []));
const UNWATCHED = new Set(["counters", "cli_relays", "requests"]);

export async function snapshotter(app: TestApp): Promise<Snapshotter> {
	const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
	const prefix = app.node.config.dbPrefix;
	const snapshotter: Snapshotter = {
		async take() {
			const out = new Map<string, string>();
			for (const service of DATABASES) {
				const db = conn.useDb(`${prefix}_${service}`, { useCache: true }).db!;
				const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).filter((n) => !UNWATCHED.has(n));
				for (const name of names.sort()) {
					const docs = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
					out.set(`${service}.${name}`, JSON.stringify(docs));
				}
			}
			return out;
		},
		async unchanged(run) {
			const before = await snapshotter.take();
			await run();
			expect(diffSnapshots(before, await snapshotter.take())).toEqual([]);
		},
		refused(request, status, code, msg) {
			return snapshotter.unchanged(async () => expectError(await request(), status, code, msg));
		},
		close: () => conn.close(),
	};
	return snapshotter;
}

/** The collections whose content differs, with both versions cut short for a failure message. */
export function diffSnapshots(a: Map<string, string>, b: Map<string, string>): string[] {
	const out: string[] = [];
	for (const key of new Set([...a.keys(), ...b.keys()])) {
		const x = a.get(key) ?? "(none)";
		const y = b.get(key) ?? "(none)";
		if (x === y) continue;
		let i = 0;
		while (i < x.length && x[i] === y[i]) i++;
		const from = Math.max(0, i - 200);
		out.push(`${key}: before …${x.slice(from, i + 300)}… after …${y.slice(from, i + 300)}…`);
	}
	return out;
}
