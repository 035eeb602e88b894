// How the gateway writes answers: JSON with its length, Zulip's success envelope, and the query
// string read flat.
import type { ServerResponse } from "node:http";

export type Headers = Record<string, string | number>;

export function send(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
	sendJson(res, status, JSON.stringify(body), headers);
}

export function sendJson(res: ServerResponse, status: number, json: string, headers: Headers = {}): void {
	if (res.headersSent) return;
	res.writeHead(status, {
		"Content-Type": "application/json",
		"Content-Length": Buffer.byteLength(json),
		...headers,
	});
	res.end(json);
}

/** A plain-text answer (an integration answering its tool in the tool's own terms). */
export function sendText(res: ServerResponse, status: number, text: string, headers: Headers = {}): void {
	if (res.headersSent) return;
	res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(text), ...headers });
	res.end(text);
}

/**
 * The query string as flat name/value pairs (the last of repeated names wins). Parsed here rather
 * than by the gateway library so that no name is dropped or nested: Zulip parameters are flat,
 * and unknown names must be reported back, whatever they are.
 */
export function queryParams(url: string): Record<string, string> {
	const i = url.indexOf("?");
	const out: Record<string, string> = {};
	if (i < 0) return out;
	for (const [k, v] of new URLSearchParams(url.slice(i + 1))) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
	return out;
}

const SUCCESS = '{"result":"success","msg":""';

/**
 * Zulip's success envelope around an action's answer, as JSON, with the parameters nobody read:
 * the gateway's and those the action reports itself (PATCH /settings: unchanged values), last.
 * A plain answer is serialized as it is and spliced in, rather than copied into a new object.
 */
export function successJson(data: Record<string, unknown> | undefined, ignored: string[]): string {
	const plain = data !== null && typeof data === "object" && Object.getPrototypeOf(data) === Object.prototype && typeof data.toJSON !== "function";
	if (plain && !ignored.length && !("ignored_parameters_unsupported" in data) && !("result" in data) && !("msg" in data)) {
		const inner = JSON.stringify(data);
		return inner === "{}" ? `${SUCCESS}}` : `${SUCCESS},${inner.slice(1)}`;
	}
	const out: Record<string, unknown> = { result: "success", msg: "", ...(data ?? {}) };
	const reported = Array.isArray(out.ignored_parameters_unsupported) ? (out.ignored_parameters_unsupported as string[]) : [];
	delete out.ignored_parameters_unsupported;
	if (ignored.length || reported.length) out.ignored_parameters_unsupported = [...ignored, ...reported];
	return JSON.stringify(out);
}
