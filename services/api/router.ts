// Matches a request's method and path (below /api/v1) against the route table.
import type { Route } from "./routes";

interface Compiled {
	route: Route;
	regex: RegExp;
	names: string[];
}

export type Match =
	| { kind: "found"; route: Route; pathParams: Record<string, string> }
	| { kind: "wrong-method"; allowed: string[] }
	| { kind: "none" };

export class Router {
	private compiled: Compiled[];

	constructor(routes: Route[]) {
		this.compiled = routes.map((route) => {
			const names: string[] = [];
			const pattern = route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_m, name: string) => {
				names.push(name);
				return name.endsWith("_id") ? "(\\d+)" : "([^/]+)";
			});
			return { route, names, regex: new RegExp(`^${pattern}/?$`) };
		});
	}

	match(method: string, path: string): Match {
		const allowed: string[] = [];
		for (const c of this.compiled) {
			const m = c.regex.exec(path);
			if (!m) continue;
			if (c.route.method !== method) {
				allowed.push(c.route.method);
				continue;
			}
			const pathParams = decodeParams(c.names, m);
			// A parameter that is not valid percent-encoding matches no route.
			if (!pathParams) continue;
			return { kind: "found", route: c.route, pathParams };
		}
		return allowed.length ? { kind: "wrong-method", allowed: [...new Set(allowed)] } : { kind: "none" };
	}
}

function decodeParams(names: string[], m: RegExpExecArray): Record<string, string> | null {
	const out: Record<string, string> = {};
	try {
		names.forEach((name, i) => {
			out[name] = decodeURIComponent(m[i + 1]);
		});
	} catch {
		return null;
	}
	return out;
}
