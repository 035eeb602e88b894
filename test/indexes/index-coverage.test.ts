// Every query the services sent during the test run is served by an index the services declare,
// by MongoDB's rules (index-rules.ts). Reads the log the API and cluster suites wrote with
// QUERY_LOG set (shared/query-log.ts); `npm test` runs this after them, with the same QUERY_LOG.
import fs from "node:fs";
import type { QueryRecord } from "../../shared/query-log";
import { servedByIndex, type Filter, type IndexSpec } from "./index-rules";

/**
 * Queries allowed to scan or sort in memory, each with its reason. A whole collection (no filter)
 * or one query shape (filter and sort exactly as logged; no sort means none).
 */
interface Allowed {
	db: string;
	coll: string;
	filter?: Filter;
	sort?: Record<string, number>;
	reason: string;
}

const ALLOWED: Allowed[] = [
	{
		db: "users",
		coll: "realms",
		filter: {},
		sort: { _id: 1 },
		reason: "once at service start (users/bootstrap.ts, the first organization); one row per organization, and with its limit 1 MongoDB reads one _id index key",
	},
	// import-zulip's end-of-run report counts what it wrote into the prefix it just filled
	// (deploy/import/import-zulip.ts): once per import, never by a running server.
	...["channels.subscriptions", "messages.messages", "messages.user_messages"].map((c) => ({
		db: c.split(".")[0],
		coll: c.split(".")[1],
		filter: {},
		reason: "import-zulip's count of what it imported, once per import",
	})),
	// The catalog service's first start (services/catalog/move-from-users.ts): whether its own
	// collections hold anything, and the users database's old ones copied whole; once per database.
	...["realm_filters", "realm_playgrounds", "realm_emoji"].flatMap((coll) => [
		{ db: "catalog", coll, filter: {}, reason: "the catalog's first start: does it hold data already (one document read), once per database" },
		{ db: "users", coll, filter: {}, reason: "the catalog's first start copies the users database's old collection whole, once per database" },
	]),
	// test/api/push-notifications.test.ts inspects and rewinds the push jobs it caused; the
	// service itself reads them by _id and by { state, done_at }.
	...[{ state: { $ne: "?" } }, { state: { $nin: ["?"] } }, { "form.token": "?" }, { "form.token": { $in: ["?"] } }, { "form.token": "?", kind: "?" }, {}].map((filter) => ({
		db: "notifications",
		coll: "push_jobs",
		filter,
		reason: "test/api/push-notifications.test.ts looking at the jobs it caused, never a server query",
	})),
	// The relay's own unit test (test/unit/change-relay.test.ts) empties and counts these
	// collections between its cases; the relay itself reads them by _id and by its indexes.
	...["cli_changes", "cli_relays"].map((coll) => ({
		db: "users",
		coll,
		filter: {},
		reason: "test/unit/change-relay.test.ts clearing and counting between cases, never a server query",
	})),
];

const logFile = process.env.QUERY_LOG;

function readLog(): QueryRecord[] {
	if (!logFile) throw new Error("QUERY_LOG is not set: run `npm test`, or set QUERY_LOG to a log an API run wrote (QUERY_LOG=... npm run test:api)");
	return fs
		.readFileSync(logFile, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as QueryRecord);
}

const where = (r: { db: string; coll: string }) => `${r.db}.${r.coll}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const allows = (a: Allowed, r: QueryRecord) => a.db === r.db && a.coll === r.coll && (a.filter === undefined || (same(a.filter, r.filter) && same(a.sort, r.sort)));

const records = readLog();
const queries = records.filter((r) => r.cmd !== "createIndexes");

/** Each collection's declared indexes, as created at service start. */
const indexes = new Map<string, IndexSpec[]>();
for (const r of records) {
	if (r.cmd !== "createIndexes" || !r.key) continue;
	const list = indexes.get(where(r)) ?? [];
	if (!list.some((ix) => same(ix.key, r.key))) list.push({ key: r.key, unique: r.unique });
	indexes.set(where(r), list);
}

const verdict = (r: QueryRecord) => servedByIndex({ filter: (r.filter ?? {}) as Filter, sort: r.sort as Record<string, number> | undefined, hint: r.hint }, indexes.get(where(r)) ?? []);
const describe_ = (r: QueryRecord) => `${where(r)} ${r.cmd} filter ${JSON.stringify(r.filter ?? {})}${r.sort ? ` sort ${JSON.stringify(r.sort)}` : ""}`;

test("the log holds the indexes and queries of every service", () => {
	for (const db of ["users", "channels", "messages"]) {
		expect(records.some((r) => r.db === db && r.cmd === "createIndexes")).toBe(true);
		expect(queries.some((r) => r.db === db)).toBe(true);
	}
});

test("every query is served by a declared index (or allowed, with its reason)", () => {
	const unserved = new Map<string, string>();
	for (const r of queries) {
		if (ALLOWED.some((a) => allows(a, r))) continue;
		// A count without a filter (estimatedDocumentCount) reads the collection's stored count,
		// not its documents (import-zulip checks that a target is empty so).
		if (r.cmd === "count" && Object.keys(r.filter ?? {}).length === 0) continue;
		const v = verdict(r);
		if (!v.served) unserved.set(describe_(r), v.reason);
	}
	const unused = ALLOWED.filter((a) => !queries.some((r) => allows(a, r)));
	// A partial run (a few API files) need not send every allowed query, so this only warns.
	if (unused.length) console.warn(`Allow-list entries no logged query matched:\n${unused.map((a) => `  ${where(a)} ${JSON.stringify(a.filter ?? "*")}`).join("\n")}`);
	if (unserved.size) {
		throw new Error(
			`${unserved.size} query shapes no declared index serves (log: ${logFile}):\n` +
				[...unserved].map(([q, why]) => `  ${q}\n    ${why}`).join("\n") +
				"\nDeclare an index in the model (services/*/models), or add the shape to ALLOWED in test/indexes/index-coverage.test.ts with its reason.",
		);
	}
});

test("keyword searches are logged and served by the words index they name, newest first", () => {
	const declared = (indexes.get("messages.messages") ?? []).map((ix) => JSON.stringify(ix.key));
	expect(declared).toContain(JSON.stringify({ words: 1, _id: 1 }));
	const searches = queries.filter((r) => where(r) === "messages.messages" && r.cmd === "find" && r.sort && JSON.stringify(r.filter).includes('"words"'));
	expect(searches.length).toBeGreaterThan(0);
	// A window of a search led by its words (a channel's, or the caller's whole history) names the
	// words index, which then serves it in _id order: the scan is bounded by the matches.
	const window = (r: QueryRecord) => /"\$[lg]te?"/.test(JSON.stringify((r.filter as Filter)._id ?? null));
	const led = searches.filter((r) => window(r) && r.hint !== undefined);
	expect(led.length).toBeGreaterThan(0);
	expect(led.some((r) => "channel_id" in (r.filter as Filter))).toBe(true);
	for (const r of led) expect({ query: describe_(r), hint: r.hint, verdict: verdict(r) }).toEqual({ query: describe_(r), hint: { words: 1, _id: 1 }, verdict: { served: true, reason: 'index {"words":1,"_id":1}' } });
});
