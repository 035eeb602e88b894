// JSON as Zulip's Python reads and writes it, where the difference shows: orjson.loads tells
// 1.0 (a float) from 1 (an int), which Zulip's validators refuse or accept; json.dumps writes
// ", " and ": " between items and escapes every character outside printable ASCII.

/** A JSON number written with a fraction or an exponent: a float to Python, never an int. */
export class PyFloat {
	constructor(readonly value: number) {}
}

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

/** JSON.parse, with floats as PyFloat; throws SyntaxError as JSON.parse does. */
export function parsePyJson(text: string): unknown {
	const reviver: Reviver = (_key, value, context) => (typeof value === "number" && context?.source !== undefined && /[.eE]/.test(context.source) ? new PyFloat(value) : value);
	return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** Python's repr of a float: shortest digits, exponent form below 1e-4 and from 1e16, ".0" on integers. */
function floatRepr(n: number): string {
	if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
	const [mantissa, exp] = n.toExponential().split("e");
	const e = Number(exp);
	if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
	const fixed = String(n);
	return /[.e]/.test(fixed) ? fixed : `${fixed}.0`;
}

function pyString(s: string): string {
	let out = '"';
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		const ch = s[i];
		if (ch === '"') out += '\\"';
		else if (ch === "\\") out += "\\\\";
		else if (ch === "\n") out += "\\n";
		else if (ch === "\r") out += "\\r";
		else if (ch === "\t") out += "\\t";
		else if (ch === "\b") out += "\\b";
		else if (ch === "\f") out += "\\f";
		// UTF-16 code units are what Python's ensure_ascii writes too (surrogate pairs for astral characters).
		else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, "0")}`;
		else out += ch;
	}
	return `${out}"`;
}

/** Python's json.dumps(value) with its default settings. */
export function pyJsonDumps(value: unknown): string {
	if (value === null || value === undefined) return "null";
	if (value instanceof PyFloat) return floatRepr(value.value);
	if (typeof value === "boolean") return value ? "true" : "false";
	if (typeof value === "number") return Number.isInteger(value) ? String(value) : floatRepr(value);
	if (typeof value === "string") return pyString(value);
	if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
	return `{${Object.entries(value as Record<string, unknown>)
		.map(([k, v]) => `${pyString(k)}: ${pyJsonDumps(v)}`)
		.join(", ")}}`;
}
