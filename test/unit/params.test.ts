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
