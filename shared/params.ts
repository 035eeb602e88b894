// Parameter declarations and the one converter that turns HTTP form/query values into them.
//
// Every action declares its parameters with the helpers below. They produce fastest-validator
// rules, which Moleculer checks on the service's own node, and which travel with the action's
// definition to every gateway, where `convertParams` reads them to decode the raw strings of a
// form-encoded body or query string: integers and booleans from their JSON spelling, lists and
// objects from one JSON-encoded field. What a request sends beyond the declaration is reported
// back in `ignored_parameters_unsupported`.
import { badRequest } from "./errors";

export type Rule = Record<string, any> & { type: string; optional?: boolean };
export type ParamSchema = Record<string, Rule | Rule[] | boolean | string>;

type Opt = { optional?: boolean; default?: unknown };

export const p = {
	int: (o: Opt & { min?: number; max?: number } = {}): Rule => ({ type: "number", integer: true, ...o }),
	bool: (o: Opt = {}): Rule => ({ type: "boolean", ...o }),
	string: (o: Opt & { min?: number; max?: number; empty?: boolean; trim?: boolean } = {}): Rule => ({
		type: "string",
		...o,
	}),
	/** One of fixed values; numeric values are decoded as integers. */
	oneOf: (values: readonly (string | number)[], o: Opt = {}): Rule =>
		values.every((v) => typeof v === "string") ? { type: "string", enum: [...values], ...o } : { type: "enum", values: [...values], ...o },
	intList: (o: Opt & { min?: number; max?: number } = {}): Rule => ({
		type: "array",
		items: { type: "number", integer: true },
		...o,
	}),
	/** A list of strings: `max` bounds its length, `itemMax` each string's. */
	stringList: ({ itemMax, ...o }: Opt & { min?: number; max?: number; itemMax?: number } = {}): Rule => ({
		type: "array",
		items: itemMax === undefined ? "string" : { type: "string", max: itemMax },
		...o,
	}),
	list: (items: Rule, o: Opt & { min?: number; max?: number } = {}): Rule => ({ type: "array", items, ...o }),
	object: (props: Record<string, Rule>, o: Opt = {}): Rule => ({ type: "object", props, ...o }),
	/** Any JSON value (validated by the action itself). */
	json: (o: Opt = {}): Rule => ({ type: "any", json: true, ...o }),
	/** One of several shapes, e.g. an integer or a list of integers. */
	either: (rules: Rule[], o: Opt = {}): Rule => ({ type: "multi", rules, ...o }),
};

/** An action's `params`: unknown keys are stripped before the handler runs. */
export function params(schema: Record<string, Rule>): ParamSchema {
	return { ...schema, $$strict: "remove" };
}

/** The largest value of the integer columns Zulip stores settings in (IntegerField, PositiveIntegerField). */
export const INT32_MAX = 2_147_483_647;

const INT = /^\s*-?\d+\s*$/;

/** Zulip's words for an integer out of range (its `less_than` and `greater_than` templates). */
const outOfRange = (name: string, n: number) => badRequest(n > 0 ? `${name} is too large` : `${name} is too small`);

/**
 * An integer from its decimal spelling. Beyond Number.MAX_SAFE_INTEGER a number no longer holds
 * the integer sent (2^53 + 1 reads as 2^53), so such a value is refused rather than rounded.
 */
function toInt(name: string, raw: string): number {
	const n = Number(raw);
	if (!Number.isSafeInteger(n)) throw outOfRange(name, n);
	return n;
}

function parseJson(name: string, raw: string): unknown {
	try {
		return JSON.parse(raw);
	} catch {
		throw badRequest(`Argument "${name}" is not valid JSON.`);
	}
}

function decode(name: string, rule: Rule, raw: string): unknown {
	// A nullable parameter takes JSON's null.
	if (rule.nullable && raw.trim() === "null") return null;
	switch (rule.type) {
		case "string":
			return raw;
		case "number":
			if (INT.test(raw)) return toInt(name, raw);
			if (!rule.integer && raw.trim() !== "" && Number.isFinite(Number(raw))) return Number(raw);
			throw badRequest(`${name} is not an integer`);
		case "boolean":
			if (raw === "true") return true;
			if (raw === "false") return false;
			throw badRequest(`${name} is not a boolean`);
		case "enum":
			if (rule.values.every((v: unknown) => typeof v === "number")) {
				if (INT.test(raw)) return toInt(name, raw);
				throw badRequest(`${name} is not an integer`);
			}
			return raw;
		case "multi": {
			// Try the shapes in a fixed order: JSON containers, integers, then plain strings.
			const types: string[] = rule.rules.map((r: Rule) => r.type);
			const trimmed = raw.trim();
			if ((types.includes("array") || types.includes("object") || types.includes("any")) && /^[[{"]|^null$/.test(trimmed)) {
				return parseJson(name, raw);
			}
			if ((types.includes("number") || types.includes("enum")) && INT.test(raw)) {
				// Too large for an integer, a string where one is allowed: the action reads it as Zulip
				// reads it (an anchor past every ID is the newest, a time limit "Bad value for ...").
				if (!Number.isSafeInteger(Number(raw)) && types.includes("string")) return raw;
				return toInt(name, raw);
			}
			if (types.includes("boolean") && (raw === "true" || raw === "false")) return raw === "true";
			if (types.includes("string")) {
				// Zulip declares these Json[str] | Json[int] (or similar): its web app sends the string
				// JSON-encoded (`"unlimited"`), other clients plainly (`unlimited`). Both mean the same.
				if (trimmed.startsWith('"')) {
					try {
						const s: unknown = JSON.parse(trimmed);
						if (typeof s === "string") return s;
					} catch {
						/* a plain string that happens to start with a quote */
					}
				}
				return raw;
			}
			return parseJson(name, raw);
		}
		default:
			// array, object, any: one JSON-encoded field.
			return parseJson(name, raw);
	}
}

/** The deepest nesting of lists and objects one parameter may hold (no API needs more than 4). */
export const MAX_DEPTH = 16;
/** The most values (list elements, object entries, nested ones included) one parameter may hold. */
export const MAX_VALUES = 10_000;

/**
 * The guards every decoded value passes, in one walk that uses no recursion (so no input can
 * exhaust the stack): nesting at most MAX_DEPTH deep, at most MAX_VALUES values, no NUL byte in
 * any string or key (no text the API stores may hold one), and no integral number beyond
 * Number.MAX_SAFE_INTEGER (a JSON body's 2^63 or 1e308 arrives already rounded: refused too).
 */
function checkValue(name: string, value: unknown, takesNumbers = true): void {
	const stack: Array<[unknown, number]> = [[value, 0]];
	let count = 0;
	while (stack.length) {
		const [v, depth] = stack.pop()!;
		if (typeof v === "string") {
			if (v.includes("\u0000")) throw badRequest(`${name} contains a null byte`);
			continue;
		}
		if (typeof v === "number") {
			// A number where only a string is taken is the validator's "is not a string", as in Zulip.
			if (Number.isInteger(v) && !Number.isSafeInteger(v) && (takesNumbers || depth > 0)) throw outOfRange(name, v);
			continue;
		}
		if (!v || typeof v !== "object") continue;
		if (depth >= MAX_DEPTH) throw badRequest(`${name} is nested too deeply (limit: ${MAX_DEPTH} levels)`);
		const entries = Array.isArray(v) ? v : Object.entries(v);
		count += entries.length;
		if (count > MAX_VALUES) throw badRequest(`${name} has too many elements (limit: ${MAX_VALUES})`);
		if (Array.isArray(v)) {
			for (const x of v) stack.push([x, depth + 1]);
		} else {
			for (const [k, x] of entries as Array<[string, unknown]>) {
				if (k.includes("\u0000")) throw badRequest(`${name} contains a null byte`);
				stack.push([x, depth + 1]);
			}
		}
	}
}

function acceptsNull(rule: Rule | string): boolean {
	if (typeof rule === "string") return rule.split("|")[0] === "any";
	if (rule.nullable === true || rule.type === "any") return true;
	return rule.type === "multi" && (rule.rules as Rule[]).some(acceptsNull);
}

function typeMismatch(path: string, rule: Rule | string): Error {
	const type = typeof rule === "string" ? rule.split("|")[0] : rule.type;
	if (type === "string") return badRequest(`${path} is not a string`);
	if (type === "number") return badRequest(`${path} is not an integer`);
	if (type === "boolean") return badRequest(`${path} is not a boolean`);
	if (type === "array") return badRequest(`${path} is not a list`);
	if (type === "object") return badRequest(`${path} is not a dict`);
	return badRequest(`Invalid ${path}`);
}

/**
 * JSON's null is a value only where the declaration says so (`nullable`, or any JSON): anywhere
 * else, at any depth, it is the wrong type, named as Zulip names it (`subscriptions[0]["name"]
 * is not a string`). The validator would otherwise let null through as "not given".
 */
function refuseNulls(path: string, rule: Rule | string, value: unknown): void {
	if (value === null) {
		if (!acceptsNull(rule)) throw typeMismatch(path, rule);
		return;
	}
	if (typeof rule !== "object") return;
	if (rule.type === "array" && Array.isArray(value) && rule.items) {
		value.forEach((x, i) => refuseNulls(`${path}[${i}]`, rule.items as Rule | string, x));
	} else if (rule.type === "object" && value && typeof value === "object" && !Array.isArray(value) && rule.props) {
		for (const [k, r] of Object.entries(rule.props as Record<string, Rule>)) {
			if (Object.hasOwn(value, k)) refuseNulls(`${path}["${k}"]`, r, (value as Record<string, unknown>)[k]);
		}
	}
}

export interface Converted {
	params: Record<string, unknown>;
	ignored: string[];
}

/**
 * Decodes `raw` (strings from a form body or query, or values already typed by a JSON body)
 * following `schema`. Keys the schema does not declare are left out and listed in `ignored`.
 */
export function convertParams(schema: ParamSchema | undefined, raw: Record<string, unknown>): Converted {
	const out: Record<string, unknown> = {};
	const ignored: string[] = [];
	for (const [name, value] of Object.entries(raw)) {
		// Own keys only: "constructor" or "__proto__" must never reach Object.prototype.
		const rule = schema && Object.hasOwn(schema, name) ? schema[name] : undefined;
		if (rule === undefined || name.startsWith("$$")) {
			ignored.push(name);
			continue;
		}
		const r: Rule | undefined = Array.isArray(rule)
			? { type: "multi", rules: rule }
			: typeof rule === "object"
				? rule
				: typeof rule === "string"
					? { type: rule.split("|")[0] }
					: undefined;
		// A repeated form field arrives as an array of strings; Zulip takes the last one.
		const v = Array.isArray(value) && r?.type !== "array" && value.every((x) => typeof x === "string") ? value[value.length - 1] : value;
		const decoded = r && typeof v === "string" ? decode(name, r, v) : v;
		checkValue(name, decoded, r?.type !== "string");
		if (r) refuseNulls(name, r, decoded);
		out[name] = decoded;
	}
	return { params: out, ignored };
}
