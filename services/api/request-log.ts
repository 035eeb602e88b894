// What the gateway logs of a refused or failed request, and the request ID that ties a log line
// to an answer. Every answer carries `X-Request-Id`: the client's (or its reverse proxy's) own
// when it sent a plausible one, a new one otherwise.
//
// Levels: a client error (4xx) is the client's, not the server's: info, with the route, status
// and Zulip's code; a 503 (a dependency away for a while) warn; any other 5xx error, with its
// cause. Never a body, a query string or a credential: the route is the route table's pattern.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
interface Logger {
	info(o: object, msg: string): void;
	warn(o: object, msg: string): void;
	error(o: object, msg: string): void;
}

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const requests = new WeakMap<ServerResponse, { id: string; method: string; url: string }>();

/** Gives each request its ID, in the answer's headers, before `handler` runs. */
export function withRequestId(handler: Handler): Handler {
	return (req, res) => {
		const given = req.headers["x-request-id"];
		const id = typeof given === "string" && SANE_ID.test(given) ? given : randomUUID();
		res.setHeader("X-Request-Id", id);
		// moleculer-web takes the context's requestID (carried to every service the request calls)
		// from these headers, and names it in the answer: the same ID throughout.
		req.headers["x-request-id"] = id;
		delete req.headers["x-correlation-id"];
		// Read now: moleculer-web rewrites req.url on the way.
		requests.set(res, { id, method: req.method ?? "", url: req.url ?? "" });
		handler(req, res);
	};
}

/** Logs an error answer: `routeOf` names the route without the path's values. */
export function logErrorAnswer(logger: Logger, res: ServerResponse, status: number, code: string, err: unknown, routeOf: (method: string, url: string) => string): void {
	const r = requests.get(res);
	const fields = { request_id: r?.id, method: r?.method, route: r ? routeOf(r.method, r.url) : undefined, status, code };
	if (status < 500) logger.info(fields, "request refused");
	else if (status === 503) logger.warn({ ...fields, err }, "request refused: service unavailable");
	else logger.error({ ...fields, err }, "request failed");
}
