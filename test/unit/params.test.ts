// The parameter converter: decoding form strings by each declared type.
import { convertParams, p, params } from "../../shared/params";

const schema = params({
	n: p.int(),
	b: p.bool(),
	s: p.string(),
	role: p.oneOf([100, 200]),
	kind: p.oneOf(["a", "b"]),
	ids: p.intList(),
	to: p.either([p.int(), p.intList(), p.string()]),
	obj: p.object({ x: p.int() }),
});

const bad = (raw: Record<string, unknown>) => {
	try {
		convertParams(schema, raw);
	} catch (e) {
		return { code: (e as { type: string }).type, msg: (e as Error).message };
	}
	throw new Error("expected an error");
};

test("decodes each declared type from its form spelling", () => {
	const { params: out, ignored } = convertParams(schema, {
		n: "42",
		b: "false",
		s: "17",
		role: "200",
		kind: "a",
		ids: "[1,2]",
		obj: '{"x":1}',
		extra: "1",
	});
	expect(out).toEqual({ n: 42, b: false, s: "17", role: 200, kind: "a", ids: [1, 2], obj: { x: 1 } });
	expect(ignored).toEqual(["extra"]);
});

test("values already typed by a JSON body pass through for the validator", () => {
	expect(convertParams(schema, { n: 5, b: true, ids: [3] }).params).toEqual({ n: 5, b: true, ids: [3] });
});

test("either-shaped parameters pick the shape the text has", () => {
	expect(convertParams(schema, { to: "7" }).params.to).toBe(7);
	expect(convertParams(schema, { to: "[7,8]" }).params.to).toEqual([7, 8]);
	expect(convertParams(schema, { to: "general" }).params.to).toBe("general");
});

test("a string of an either-shaped parameter may come JSON-encoded, as Zulip's web app sends it", () => {
	const retention = params({ days: p.either([p.string(), p.int()]) });
	expect(convertParams(retention, { days: '"unlimited"' }).params.days).toBe("unlimited");
	expect(convertParams(retention, { days: "unlimited" }).params.days).toBe("unlimited");
	expect(convertParams(retention, { days: "30" }).params.days).toBe(30);
	// Not a JSON string after all: kept as sent.
	expect(convertParams(retention, { days: '"half' }).params.days).toBe('"half');
	expect(convertParams(schema, { to: '"general"' }).params.to).toBe("general");
	// A plain string parameter is never decoded.
	expect(convertParams(schema, { s: '"quoted"' }).params.s).toBe('"quoted"');
});

test("a repeated form field takes the last value", () => {
	expect(convertParams(schema, { n: ["1", "2"] }).params.n).toBe(2);
});

test("wrong spellings name the parameter", () => {
	expect(bad({ n: "4.5" })).toEqual({ code: "BAD_REQUEST", msg: "n is not an integer" });
	expect(bad({ n: "" })).toEqual({ code: "BAD_REQUEST", msg: "n is not an integer" });
	expect(bad({ b: "True" })).toEqual({ code: "BAD_REQUEST", msg: "b is not a boolean" });
	expect(bad({ role: "admin" })).toEqual({ code: "BAD_REQUEST", msg: "role is not an integer" });
	expect(bad({ ids: "[1," })).toEqual({ code: "BAD_REQUEST", msg: 'Argument "ids" is not valid JSON.' });
});

test("$$strict is a declaration flag, never a parameter", () => {
	expect(convertParams(schema, { $$strict: "x" }).ignored).toEqual(["$$strict"]);
});

describe("guards on every decoded value", () => {
	const guarded = params({ ids: p.intList({ optional: true }), any: p.json({ optional: true }), name: p.string({ optional: true }), subs: p.list(p.object({ name: p.string(), color: p.string({ optional: true }) }), { optional: true }), maybe: { type: "string", optional: true, nullable: true } });
	const refusal = (raw: Record<string, unknown>) => {
		try {
			convertParams(guarded, raw);
		} catch (e) {
			return { code: (e as { type: string }).type, msg: (e as Error).message };
		}
		throw new Error("expected an error");
	};

	test("nesting deeper than the limit is a 400, from a form field or a JSON body, without exhausting the stack", () => {
		expect(refusal({ any: "[".repeat(10_000) + "]".repeat(10_000) })).toEqual({ code: "BAD_REQUEST", msg: "any is nested too deeply (limit: 16 levels)" });
		let deep: unknown = 1;
		for (let i = 0; i < 20_000; i++) deep = { a: deep };
		expect(refusal({ any: deep })).toEqual({ code: "BAD_REQUEST", msg: "any is nested too deeply (limit: 16 levels)" });
		expect(convertParams(guarded, { any: "[[[[1]]]]" }).params).toEqual({ any: [[[[1]]]] });
	});

	test("a parameter holding more than 10,000 values is a 400", () => {
		expect(refusal({ ids: JSON.stringify(Array.from({ length: 100_000 }, (_, i) => i)) })).toEqual({ code: "BAD_REQUEST", msg: "ids has too many elements (limit: 10000)" });
		expect((convertParams(guarded, { ids: Array.from({ length: 10_000 }, (_, i) => i) }).params.ids as number[]).length).toBe(10_000);
	});

	test("JSON null where the declaration takes no null is the wrong type, at any depth", () => {
		expect(refusal({ name: null })).toEqual({ code: "BAD_REQUEST", msg: "name is not a string" });
		expect(refusal({ ids: "null" })).toEqual({ code: "BAD_REQUEST", msg: "ids is not a list" });
		expect(refusal({ ids: [1, null] })).toEqual({ code: "BAD_REQUEST", msg: "ids[1] is not an integer" });
		expect(refusal({ subs: [{ name: "a", color: null }] })).toEqual({ code: "BAD_REQUEST", msg: 'subs[0]["color"] is not a string' });
		expect(convertParams(guarded, { maybe: null, any: null, name: "null" }).params).toEqual({ maybe: null, any: null, name: "null" });
	});

	test("NUL bytes in nested keys and values are refused", () => {
		expect(refusal({ any: { "a\u0000": 1 } })).toEqual({ code: "BAD_REQUEST", msg: "any contains a null byte" });
		expect(refusal({ subs: [{ name: "a\u0000" }] })).toEqual({ code: "BAD_REQUEST", msg: "subs contains a null byte" });
	});
});
