// Query recording for the index coverage test (test/indexes): with QUERY_LOG naming a file, each
// service connection appends the shape of every query it sends, and of every index it creates,
// as one JSON line. Shapes keep field names and operators and replace values by "?", so the same
// query made with other values is written once (lines already in the file are not repeated).
// Without QUERY_LOG nothing is recorded and command monitoring stays off.
import fs from "node:fs";
import type { Connection } from "mongoose";

/** One line of the log. `db` is the service's database without its deployment prefix. */
export interface QueryRecord {
	db: string;
	coll: string;
	/** find, count, distinct, aggregate, update, delete, findAndModify, or createIndexes. */
	cmd: string;
	filter?: unknown;
	sort?: unknown;
	projection?: unknown;
	limit?: unknown;
	/** find: the index the query names (hint), which alone may serve it. */
	hint?: unknown;
	/** distinct: the field. */
	field?: string;
	/** aggregate: the stage names. */
	stages?: string[];
	/** createIndexes: one index. */
	key?: Record<string, unknown>;
	unique?: boolean;
}

/** The placeholder for a literal value. */
export const VALUE = "?";
/** A case-sensitive regular expression anchored at the start (an index range); any other. */
export const PREFIX_REGEX = "?regex:prefix";
export const OTHER_REGEX = "?regex";

const logFile = process.env.QUERY_LOG || undefined;

/** Connection options that turn command monitoring on when queries are recorded. */
export const queryLogOptions = (): { monitorCommands?: true } => (logFile ? { monitorCommands: true } : {});

let written: Set<string> | undefined;

function append(record: QueryRecord): void {
	if (!logFile) return;
	if (!written) {
		// Other processes (and other test files) append to the same file: their lines count as written.
		let existing = "";
		try {
			existing = fs.readFileSync(logFile, "utf8");
		} catch {
			/* no log yet */
		}
		written = new Set(existing.split("\n").filter(Boolean));
	}
	const line = JSON.stringify(record);
	if (written.has(line)) return;
	written.add(line);
	fs.appendFileSync(logFile, line + "\n");
}

/** Records the commands of a service's connection (made with queryLogOptions()). */
export function recordQueries(conn: Connection, service: string): void {
	if (!logFile) return;
	conn.getClient().on("commandStarted", (event) => {
		for (const record of describeCommand(service, event.commandName, event.command)) append(record);
	});
}

type Doc = Record<string, unknown>;

const isRegex = (v: unknown): v is { source?: string; pattern?: string; flags?: string; options?: string } =>
	v instanceof RegExp || (typeof v === "object" && v !== null && (v as { _bsontype?: string })._bsontype === "BSONRegExp");

function regexShape(pattern: string, options: string): string {
	// MongoDB bounds an index scan by a regex only when it is case-sensitive and starts with ^
	// (and not multi-line, where ^ also matches after each newline).
	return pattern.startsWith("^") && !/[im]/.test(options) ? PREFIX_REGEX : OTHER_REGEX;
}

function regexOf(v: { source?: string; pattern?: string; flags?: string; options?: string }): string {
	return v instanceof RegExp ? regexShape(v.source, v.flags) : regexShape(v.pattern ?? "", v.options ?? "");
}

const isPlainObject = (v: unknown): v is Doc => typeof v === "object" && v !== null && !Array.isArray(v) && !isRegex(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));

const isOperatorObject = (v: unknown): v is Doc => isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith("$"));

/** Distinct shapes of a list, in first-seen order. */
function distinctShapes(items: unknown[]): unknown[] {
	const seen = new Map<string, unknown>();
	for (const item of items) seen.set(JSON.stringify(item), item);
	return [...seen.values()];
}

/** The shape of a filter document: fields and logical operators kept, values replaced. */
export function filterShape(filter: unknown): unknown {
	if (!isPlainObject(filter)) return VALUE;
	const out: Doc = {};
	for (const [key, value] of Object.entries(filter)) {
		if (key === "$and" || key === "$or" || key === "$nor") out[key] = Array.isArray(value) ? distinctShapes(value.map(filterShape)) : VALUE;
		else if (key.startsWith("$")) out[key] = VALUE; // $expr, $where, $text, $comment
		else out[key] = conditionShape(value);
	}
	return out;
}

/** The shape of one field's condition: a value, a regex, or an operator object. */
function conditionShape(cond: unknown): unknown {
	if (isRegex(cond)) return regexOf(cond);
	if (!isOperatorObject(cond)) return VALUE;
	const out: Doc = {};
	for (const [op, arg] of Object.entries(cond)) {
		if (op === "$regex") out[op] = isRegex(arg) ? regexOf(arg) : regexShape(String(arg), String(cond.$options ?? ""));
		else if (op === "$options") continue;
		else if (op === "$not") out[op] = conditionShape(arg);
		else if (op === "$elemMatch") out[op] = isOperatorObject(arg) ? conditionShape(arg) : filterShape(arg);
		else if (Array.isArray(arg)) out[op] = distinctShapes([VALUE, ...arg.map((v) => (isRegex(v) ? regexOf(v) : VALUE))]);
		else out[op] = VALUE;
	}
	return out;
}

/**
 * Sort, projection and index keys are shapes already, unless they hold values ($meta,
 * expressions). The driver passes sorts and index keys as Maps (to keep their order).
 */
function keysShape(doc: unknown): Record<string, unknown> | undefined {
	const entries = doc instanceof Map ? [...doc.entries()] : isPlainObject(doc) ? Object.entries(doc) : undefined;
	return entries && Object.fromEntries(entries.map(([k, v]) => [String(k), typeof v === "number" || typeof v === "boolean" ? v : VALUE]));
}

function describeCommand(service: string, name: string, command: Doc): QueryRecord[] {
	const base = (coll: unknown) => ({ db: service, coll: String(coll), cmd: name });
	switch (name) {
		case "find":
			return [{ ...base(command.find), filter: filterShape(command.filter ?? {}), sort: keysShape(command.sort), projection: keysShape(command.projection), limit: command.limit === undefined ? undefined : VALUE, hint: typeof command.hint === "string" ? command.hint : keysShape(command.hint) }];
		case "count":
			return [{ ...base(command.count), filter: filterShape(command.query ?? {}) }];
		case "distinct":
			return [{ ...base(command.distinct), field: String(command.key), filter: filterShape(command.query ?? {}) }];
		case "aggregate": {
			const pipeline = Array.isArray(command.pipeline) ? (command.pipeline as Doc[]) : [];
			const first = pipeline[0];
			const match = first && "$match" in first ? first.$match : undefined;
			const next = match === undefined ? first : pipeline[1];
			const sort = next && "$sort" in next ? next.$sort : undefined;
			return [{ ...base(command.aggregate), filter: match === undefined ? undefined : filterShape(match), sort: keysShape(sort), stages: pipeline.map((s) => Object.keys(s)[0]) }];
		}
		case "update":
			return ((command.updates as Doc[] | undefined) ?? []).map((u) => ({ ...base(command.update), filter: filterShape(u.q ?? {}) }));
		case "delete":
			return ((command.deletes as Doc[] | undefined) ?? []).map((d) => ({ ...base(command.delete), filter: filterShape(d.q ?? {}) }));
		case "findAndModify":
			return [{ ...base(command.findAndModify), filter: filterShape(command.query ?? {}), sort: keysShape(command.sort) }];
		case "createIndexes":
			return ((command.indexes as Doc[] | undefined) ?? []).map((ix) => ({ ...base(command.createIndexes), key: keysShape(ix.key), unique: ix.unique === true }));
		default:
			return [];
	}
}
