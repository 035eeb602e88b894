// A small HTTP client that speaks to the gateway the way Zulip clients do: parameters
// form-encoded (or in the query string for GET), lists and objects as one JSON-encoded field.
export interface Response {
	status: number;
	body: any;
	headers: Headers;
}

export interface RequestOptions {
	auth?: { email: string; api_key: string } | string | null;
	/** Sent as a JSON body instead of form-encoded. */
	json?: boolean;
	headers?: Record<string, string>;
}

export function encodeParams(params: Record<string, unknown>): URLSearchParams {
	const out = new URLSearchParams();
	for (const [k, v] of Object.entries(params)) {
		if (v === undefined) continue;
		out.append(k, typeof v === "string" ? v : JSON.stringify(v));
	}
	return out;
}

/** The value of a JSON text; undefined when the text is not JSON. */
export function jsonOf(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

export function client(baseUrl: string, defaultAuth?: RequestOptions["auth"]) {
	async function request(method: string, path: string, params: Record<string, unknown> = {}, opts: RequestOptions = {}): Promise<Response> {
		const headers: Record<string, string> = { ...(opts.headers ?? {}) };
		const auth = opts.auth === undefined ? defaultAuth : opts.auth;
		if (typeof auth === "string") headers.Authorization = auth;
		else if (auth) headers.Authorization = `Basic ${Buffer.from(`${auth.email}:${auth.api_key}`).toString("base64")}`;
		let url = `${baseUrl}${path}`;
		let body: string | undefined;
		if (method === "GET") {
			const qs = encodeParams(params).toString();
			if (qs) url += `?${qs}`;
		} else if (opts.json) {
			headers["Content-Type"] = "application/json";
			body = JSON.stringify(params);
		} else {
			headers["Content-Type"] = "application/x-www-form-urlencoded";
			body = encodeParams(params).toString();
		}
		const res = await fetch(url, { method, headers, body });
		const text = await res.text();
		// Not JSON: the text, for the assertion to show.
		return { status: res.status, body: jsonOf(text) ?? text, headers: res.headers };
	}
	return {
		request,
		get: (path: string, params?: Record<string, unknown>, opts?: RequestOptions) => request("GET", path, params, opts),
		post: (path: string, params?: Record<string, unknown>, opts?: RequestOptions) => request("POST", path, params, opts),
		patch: (path: string, params?: Record<string, unknown>, opts?: RequestOptions) => request("PATCH", path, params, opts),
		delete: (path: string, params?: Record<string, unknown>, opts?: RequestOptions) => request("DELETE", path, params, opts),
	};
}

export type Client = ReturnType<typeof client>;

/** Asserts a Zulip error envelope. */
export function expectError(res: Response, status: number, code: string, msg?: string | RegExp): void {
	expect({ status: res.status, result: res.body?.result, code: res.body?.code }).toEqual({ status, result: "error", code });
	if (msg !== undefined) expect(res.body.msg).toEqual(typeof msg === "string" ? msg : expect.stringMatching(msg));
}

export function expectSuccess(res: Response): void {
	expect({ status: res.status, result: res.body?.result, msg: res.body?.msg }).toEqual({ status: 200, result: "success", msg: "" });
}

/** POST /messages, asserting success; the new message's ID. */
export async function sendMessage(c: Client, params: Record<string, unknown>): Promise<number> {
	const res = await c.post("/messages", params);
	expectSuccess(res);
	return res.body.id;
}

/** Notification Bot's address, as messages show their sender. */
export const NOTIFICATION_BOT_EMAIL = "notification-bot@zulip.com";

/**
 * Deletes what Notification Bot posted in a channel (its creation notice, notices of its
 * changes), for tests that count a channel's own messages. `c` must be allowed to delete any
 * message and see the channel's history (an administrator subscribed to it).
 */
export async function dropNotices(c: Client, channel: number | string): Promise<void> {
	const res = await c.get("/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow: [{ operator: "channel", operand: channel }] });
	expectSuccess(res);
	for (const m of res.body.messages as Array<{ id: number; sender_email: string }>) {
		if (m.sender_email === NOTIFICATION_BOT_EMAIL) expectSuccess(await c.delete(`/messages/${m.id}`));
	}
}
