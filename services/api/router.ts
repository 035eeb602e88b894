// Matches a request's method and path (below /api/v1) against the route table, as Django resolves
// Zulip's urls.py: the routes that share a path string are one pattern with several methods; the
// path resolves to the first pattern, in table order, that matches it, whatever the method; then
// that pattern's methods decide, and any other method is a 405 even where a later pattern would
// take the path with it (GET /users/me/presence is a 405, not GET /users/{user_id_or_email}/presence).
//
// The patterns are built once into a tree of path segments: a literal segment is one map lookup,
// a `{name}` segment a branch of its own (digits only for a name ending in `_id`, Django's
// `<int:name>`), and a last `{name...}` takes the rest of the path, slashes included (`<path:name>`).
import type { Route } from "./routes";

/** The routes of one path string: Zulip's `rest_path(path, GET=..., POST=...)`. */
interface Pattern {
	order: number;
	/** The names of its parameters in path order. */
	names: string[];
	methods: Map<string, Route>;
	/** Its methods in table order, for a 405's Allow header. */
	allowed: string[];
}

interface Node {
	literal: Map<string, Node>;
	/** `{name_id}`: digits only. */
	digits?: Node;
	/** `{name}`: any non-empty segment. */
	any?: Node;
	/** `{name...}`: one or more segments to the end of the path. */
	rest?: Node;
	patterns: Pattern[];
}

export type Match =
	| { kind: "found"; route: Route; pathParams: Record<string, string> }
	| { kind: "wrong-method"; allowed: string[] }
	| { kind: "none" };

const NONE: Match = { kind: "none" };
const DIGITS = /^\d+$/;

const node = (): Node => ({ literal: new Map(), patterns: [] });

interface Candidate {
	pattern: Pattern;
	values: string[];
}

export class Router {
	private root = node();

	constructor(routes: Route[]) {
		const byPath = new Map<string, Pattern>();
		for (const route of routes) {
			let pattern = byPath.get(route.path);
			if (!pattern) {
				pattern = { order: byPath.size, names: [], methods: new Map(), allowed: [] };
				byPath.set(route.path, pattern);
				this.insert(route.path, pattern);
			}
			if (pattern.methods.has(route.method)) continue;
			pattern.methods.set(route.method, route);
			pattern.allowed.push(route.method);
		}
	}

	private insert(path: string, pattern: Pattern): void {
		let at = this.root;
		for (const segment of path.split("/").slice(1)) {
			const param = /^\{(\w+)(\.\.\.)?\}$/.exec(segment);
			if (!param) {
				let next = at.literal.get(segment);
				if (!next) at.literal.set(segment, (next = node()));
				at = next;
				continue;
			}
			pattern.names.push(param[1]);
			if (param[2]) at = at.rest ??= node();
			else at = param[1].endsWith("_id") ? (at.digits ??= node()) : (at.any ??= node());
		}
		at.patterns.push(pattern);
	}

	match(method: string, path: string): Match {
		if (path.charCodeAt(0) !== 47 /* "/" */) return NONE;
		// One trailing slash is allowed.
		const end = path.length > 1 && path.endsWith("/") ? path.length - 1 : path.length;
		const segments = path.slice(1, end).split("/");
		const found: Candidate[] = [];
		collect(this.root, segments, 0, [], found);
		if (found.length > 1) found.sort((a, b) => a.pattern.order - b.pattern.order);

		for (const { pattern, values } of found) {
			const pathParams = decodeParams(pattern.names, values);
			// A parameter that is not valid percent-encoding: this pattern does not match.
			if (!pathParams) continue;
			const route = pattern.methods.get(method);
			if (!route) return { kind: "wrong-method", allowed: pattern.allowed.slice() };
			return { kind: "found", route, pathParams };
		}
		return NONE;
	}
}

/** Every pattern the segments from `i` on reach from `at`, with the raw parameter values on the way (`values` is a stack). */
function collect(at: Node, segments: string[], i: number, values: string[], out: Candidate[]): void {
	if (i === segments.length) {
		for (const pattern of at.patterns) out.push({ pattern, values: values.length ? values.slice() : values });
		return;
	}
	const segment = segments[i];
	const literal = at.literal.get(segment);
	if (literal) collect(literal, segments, i + 1, values, out);
	if (!segment) return;
	if (at.any) descend(at.any, segments, i, values, out);
	if (at.digits && DIGITS.test(segment)) descend(at.digits, segments, i, values, out);
	if (at.rest) {
		values.push(segments.slice(i).join("/"));
		for (const pattern of at.rest.patterns) out.push({ pattern, values: values.slice() });
		values.pop();
	}
}

function descend(branch: Node, segments: string[], i: number, values: string[], out: Candidate[]): void {
	values.push(segments[i]);
	collect(branch, segments, i + 1, values, out);
	values.pop();
}

function decodeParams(names: string[], values: string[]): Record<string, string> | null {
	const out: Record<string, string> = {};
	try {
		for (let i = 0; i < names.length; i++) out[names[i]] = decodeURIComponent(values[i]);
	} catch {
		return null;
	}
	return out;
}
