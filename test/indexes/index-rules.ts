// Whether MongoDB would serve a query from an index, decided from the query's shape and the
// collection's indexes (no server needed). A query is served when some index bounds the scan and
// gives the requested order, so there is neither a collection scan nor an in-memory sort:
//
//   - equality conditions (a value, $eq, $in, $all) on fields forming a prefix of the index, in any
//     order within the prefix; then the sort fields, next in the index and in its order (every
//     direction as the index's, or every one reversed); then range conditions ($gt, $gte, $lt,
//     $lte, a case-sensitive regex anchored with ^): "equality, sort, range". Sort fields with an
//     equality condition are sorted already and drop out of the sort;
//   - without a sort, the index's first field needs a condition (equality or range); the other
//     conditions filter the documents fetched;
//   - a range on the index's first field bounds the scan only when the index also holds every
//     field with an equality condition, and no $or is beside it: `{sender_id: X, _id: {$lt: anchor}}`
//     sorted by _id is not served by the _id index, whose walk from the anchor "newest" reads the
//     whole collection. (MongoDB may run that plan, but it proves nothing about the query; this
//     keeps message windows and searches honest.)
//   - $and members merge into the top level. An $or is either a filter on documents an index found
//     for the other conditions, or answered branch by branch: each branch, with the conditions
//     beside the $or (MongoDB pushes them into the branches), must be served, and give the sort;
//   - $ne, $nin, $not, $exists, $nor, unanchored or case-insensitive regexes only filter;
//   - multikey fields (arrays) are ordinary fields here;
//   - `_id` equality or $in is always served (the unique `_id` index, a few documents).
//
// Shapes are those shared/query-log.ts records: values are "?", regexes "?regex:prefix" or "?regex".
import { OTHER_REGEX, PREFIX_REGEX } from "../../shared/query-log";

export type Filter = Record<string, unknown>;

export interface IndexSpec {
	key: Record<string, unknown>;
	unique?: boolean;
}

export interface QueryShape {
	filter?: Filter;
	sort?: Record<string, unknown>;
	/** The index the query names (a key pattern): only it may serve the query. */
	hint?: unknown;
}

export interface Verdict {
	served: boolean;
	/** How: the index used, or why none serves. */
	reason: string;
}

export const ID_INDEX: IndexSpec = { key: { _id: 1 }, unique: true };

/** What a field's conditions let an index do: bound it to points, to a range, or nothing. */
type Kind = "eq" | "range" | "filter";

const RANK: Record<Kind, number> = { filter: 0, range: 1, eq: 2 };
const better = (a: Kind | undefined, b: Kind): Kind => (a && RANK[a] >= RANK[b] ? a : b);

/** A conjunction: each field's strongest condition, and the $or lists beside them. */
interface Conj {
	fields: Map<string, Kind>;
	ors: Filter[][];
}

const isObject = (v: unknown): v is Filter => typeof v === "object" && v !== null && !Array.isArray(v);

function listKind(list: unknown): Kind {
	if (!Array.isArray(list)) return "filter";
	if (list.includes(OTHER_REGEX)) return "filter";
	return list.includes(PREFIX_REGEX) ? "range" : "eq";
}

function kindOf(cond: unknown): Kind {
	if (cond === PREFIX_REGEX) return "range";
	if (cond === OTHER_REGEX) return "filter";
	const ops = isObject(cond) ? Object.keys(cond) : [];
	if (!ops.length || !ops.every((k) => k.startsWith("$"))) return "eq"; // a value (a document value too)
	let kind: Kind = "filter";
	for (const op of ops) {
		const arg = (cond as Filter)[op];
		if (op === "$eq") kind = better(kind, "eq");
		else if (op === "$in" || op === "$all") kind = better(kind, listKind(arg));
		else if (op === "$gt" || op === "$gte" || op === "$lt" || op === "$lte") kind = better(kind, "range");
		else if (op === "$regex") kind = better(kind, arg === PREFIX_REGEX ? "range" : "filter");
		else if (op === "$elemMatch" && isObject(arg) && Object.keys(arg).every((k) => k.startsWith("$"))) kind = better(kind, kindOf(arg));
		// $ne, $nin, $not, $exists, $type, $size, $mod, $elemMatch on subdocuments: filters
	}
	return kind;
}

function addFilter(conj: Conj, filter: unknown): void {
	if (!isObject(filter)) return;
	for (const [key, value] of Object.entries(filter)) {
		if (key === "$and") for (const member of Array.isArray(value) ? value : []) addFilter(conj, member);
		else if (key === "$or") conj.ors.push(Array.isArray(value) ? (value as Filter[]) : []);
		else if (key.startsWith("$")) continue; // $nor, $expr, $where, $comment: filters
		else conj.fields.set(key, better(conj.fields.get(key), kindOf(value)));
	}
}

function conjOf(filter: unknown): Conj {
	const conj: Conj = { fields: new Map(), ors: [] };
	addFilter(conj, filter);
	return conj;
}

const show = (doc: Record<string, unknown>) => JSON.stringify(doc);

/** Whether one index bounds the scan for the conditions (beside any $or), and gives the sort. */
function indexServes(index: IndexSpec, conj: Conj, sort: Array<[string, number]>): { bounded: boolean; sorted: boolean; rangeBeside: boolean; prefix: number } {
	const fields = conj.fields;
	const keys = Object.entries(index.key);
	if (!keys.length || keys.some(([, dir]) => dir !== 1 && dir !== -1)) return { bounded: false, sorted: false, rangeBeside: false, prefix: 0 }; // text, hashed, geo
	let k = 0;
	while (k < keys.length && fields.get(keys[k][0]) === "eq") k++;
	// Fields with an equality condition are sorted already.
	const wanted = sort.filter(([f]) => fields.get(f) !== "eq");
	const sorted =
		wanted.length === 0 ||
		(k + wanted.length <= keys.length &&
			wanted.every(([f], i) => keys[k + i][0] === f) &&
			new Set(wanted.map(([, dir], i) => Math.sign(dir * (keys[k + i][1] as number)))).size === 1);
	// Bounded: an equality prefix, or a range on the index's first field (when sorting, that field
	// must be the first sort field, as the sort check above demands) with every equality field in
	// the index too, and no $or.
	const range = k === 0 && fields.get(keys[0][0]) === "range";
	const alone = conj.ors.length === 0 && [...fields].every(([f, kind]) => kind !== "eq" || f in index.key);
	return { bounded: k >= 1 || (range && alone), sorted, rangeBeside: range && !alone, prefix: k };
}

function servesConj(conj: Conj, sort: Array<[string, number]>, indexes: IndexSpec[]): Verdict {
	if (conj.fields.get("_id") === "eq") return { served: true, reason: "_id equality" };
	let best: { index: IndexSpec; prefix: number } | undefined;
	let bounded: IndexSpec | undefined;
	let rangeBeside: IndexSpec | undefined;
	for (const index of indexes) {
		const r = indexServes(index, conj, sort);
		// The index with the longest equality prefix is named (MongoDB's planner would race them).
		if (r.bounded && r.sorted && (!best || r.prefix > best.prefix)) best = { index, prefix: r.prefix };
		if (r.bounded) bounded ??= index;
		if (r.rangeBeside) rangeBeside ??= index;
	}
	if (best) return { served: true, reason: `index ${show(best.index.key)}` };
	// An $or answered branch by branch, the other conditions pushed into each branch.
	const failures: string[] = [];
	for (const [i, branches] of conj.ors.entries()) {
		if (!branches.length) continue;
		const verdicts = branches.map((branch) => {
			const merged: Conj = { fields: new Map(conj.fields), ors: conj.ors.filter((_, j) => j !== i) };
			addFilter(merged, branch);
			return servesConj(merged, sort, indexes);
		});
		if (verdicts.every((v) => v.served)) return { served: true, reason: `$or branches: ${verdicts.map((v) => v.reason).join("; ")}` };
		failures.push(...verdicts.filter((v) => !v.served).map((v) => `$or branch: ${v.reason}`));
	}
	const reason = bounded
		? `needs an in-memory sort (index ${show(bounded.key)} finds the documents but not in the sort's order)`
		: rangeBeside
			? `collection scan (index ${show(rangeBeside.key)} would only walk a range, the equality or $or conditions not in it)`
			: "collection scan (no index bounds the filter)";
	return { served: false, reason: [reason, ...failures].join("; ") };
}

/** Whether MongoDB would serve the query from one of the indexes (the `_id` index is added). */
export function servedByIndex(query: QueryShape, indexes: IndexSpec[]): Verdict {
	let all = indexes.some((ix) => show(ix.key) === show(ID_INDEX.key)) ? indexes : [ID_INDEX, ...indexes];
	if (query.hint !== undefined) {
		// A hint: MongoDB uses that index and no other.
		all = all.filter((ix) => typeof query.hint === "object" && show(ix.key) === show(query.hint as Record<string, unknown>));
		if (!all.length) return { served: false, reason: `hint ${JSON.stringify(query.hint)} names no declared index (hint by key pattern only)` };
	}
	const sort = Object.entries(query.sort ?? {}).map(([f, dir]): [string, number] => [f, typeof dir === "number" ? dir : NaN]);
	if (sort.some(([, dir]) => dir !== 1 && dir !== -1)) return { served: false, reason: `sort ${show(query.sort!)} is not an index order` };
	return servesConj(conjOf(query.filter ?? {}), sort, all);
}
