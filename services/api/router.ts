// Matches a request's method and path (below /api/v1) against the route table, built once into a
// tree of path segments: a literal segment is one map lookup, a `{name}` segment a branch of its
// own (digits only for a name ending in `_id`), and a last `{name...}` takes the rest of the path,
// slashes included (Django's `<path:name>`). Where several routes match the same path, the table's
// order decides, as routes.ts says.
import type { Route } from "./routes";

/** A route ending at a node, with the names of its parameters in path order. */
interface Leaf {
	order: number;
	route: Route;
	names: string[];
}

interface Node {
	literal: Map<string, Node>;
	/** `{name_id}`: digits only. */
	digits?: Node;
	/** `{name}`: any non-empty segment. */
	any?: Node;
	/** `{name...}`: one or more segments to the end of the path. */
	rest?: Node;
	leaves: Leaf[];
}

export type Match =
	| { kind: "found"; route: Route; pathParams: Record<string, string> }
	| { kind: "wrong-method"; allowed: string[] }
	| { kind: "none" };

const NONE: Match = { kind: "none" };
const DIGITS = /^\d+$/;

const node = (): Node => ({ literal: new Map(), leaves: [] });

interface Candidate {
	leaf: Leaf;
	values: string[];
}

export class Router {
	private root = node();

	constructor(routes: Route[]) {
		routes.forEach((route, order) => {
			let at = this.root;
			const names: string[] = [];
			for (const segment of route.path.split("/").slice(1)) {
				const param = /^\{(\w+)(\.\.\.)?\}$/.exec(segment);
				if (!param) {
					let next = at.literal.get(segment);
					if (!next) at.literal.set(segment, (next = node()));
					at = next;
					continue;
				}
				names.push(param[1]);
				if (param[2]) at = at.rest ??= node();
				else at = param[1].endsWith("_id") ? (at.digits ??= node()) : (at.any ??= node());
			}
			at.leaves.push({ order, route, names });
		});
	}

	match(method: string, path: string): Match {
		if (path.charCodeAt(0) !== 47 /* "/" */) return NONE;
		// One trailing slash is allowed.
		const end = path.length > 1 && path.endsWith("/") ? path.length - 1 : path.length;
		const segments = path.slice(1, end).split("/");
		const found: Candidate[] = [];
		collect(this.root, segments, 0, [], found);
		if (!found.length) return NONE;
		if (found.length > 1) found.sort((a, b) => a.leaf.order - b.leaf.order);

		let allowed: string[] | undefined;
		for (const { leaf, values } of found) {
			if (leaf.route.method !== method) {
				allowed ??= [];
				if (!allowed.includes(leaf.route.method)) allowed.push(leaf.route.method);
				continue;
			}
			const pathParams = decodeParams(leaf.names, values);
			// A parameter that is not valid percent-encoding matches no route.
			if (!pathParams) continue;
			return { kind: "found", route: leaf.route, pathParams };
		}
		return allowed ? { kind: "wrong-method", allowed } : NONE;
	}
}

/** Every leaf the segments from `i` on reach from `at`, with the raw parameter values on the way (`values` is a stack). */
function collect(at: Node, segments: string[], i: number, values: string[], out: Candidate[]): void {
	if (i === segments.length) {
		for (const leaf of at.leaves) out.push({ leaf, values: values.length ? values.slice() : values });
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
		for (const leaf of at.rest.leaves) out.push({ leaf, values: values.slice() });
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
