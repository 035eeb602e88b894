// A recording push notification bouncer on localhost: it answers Zulip's bouncer endpoints
// (/api/v1/remotes/push/...) as zilencer does on success, records every request (method, path,
// basic-auth credentials, User-Agent, and the form or JSON body), and can be told to fail the
// next requests (a 5xx, or a 4xx with Zulip's error body) to exercise retries and errors.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface BouncerRequest {
	method: string;
	path: string;
	/** [user, password] of the basic auth header. */
	auth: [string, string] | null;
	userAgent: string;
	contentType: string;
	/** The form fields (register, unregister) or the JSON body (notify, test_notification). */
	body: Record<string, any>;
}

export interface Failure {
	status: number;
	body?: Record<string, unknown>;
}

export interface TestBouncer {
	url: string;
	requests: BouncerRequest[];
	/** Requests made to one endpoint (e.g. "push/notify"). */
	to(endpoint: string): BouncerRequest[];
	/** The next `n` requests (to `endpoint`, or any) get this answer. */
	fail(failure: Failure, n?: number, endpoint?: string): void;
	/** Tokens the bouncer's `deleted_devices` reports in its next notify answer. */
	deleteOnNextNotify(devices: { android_devices?: string[]; apple_devices?: string[] }): void;
	reset(): void;
	stop(): Promise<void>;
}

export async function startBouncer(): Promise<TestBouncer> {
	const requests: BouncerRequest[] = [];
	let failures: Array<Failure & { endpoint?: string }> = [];
	let deleted: { android_devices: string[]; apple_devices: string[] } = { android_devices: [], apple_devices: [] };
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => {
			const text = Buffer.concat(chunks).toString("utf8");
			const contentType = req.headers["content-type"] ?? "";
			const body = contentType.startsWith("application/json") ? (JSON.parse(text) as Record<string, any>) : Object.fromEntries(new URLSearchParams(text));
			const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
			const decoded = basic ? Buffer.from(basic[1], "base64").toString("utf8") : null;
			const path = req.url ?? "";
			requests.push({
				method: req.method ?? "",
				path,
				auth: decoded ? [decoded.slice(0, decoded.indexOf(":")), decoded.slice(decoded.indexOf(":") + 1)] : null,
				userAgent: req.headers["user-agent"] ?? "",
				contentType,
				body,
			});
			const endpoint = path.replace(/^\/api\/v1\/remotes\//, "");
			const i = failures.findIndex((f) => !f.endpoint || f.endpoint === endpoint);
			if (i >= 0) {
				const [f] = failures.splice(i, 1);
				res.writeHead(f.status, { "Content-Type": "application/json" }).end(JSON.stringify(f.body ?? { result: "error", msg: "Internal server error", code: "BAD_REQUEST" }));
				return;
			}
			let answer: Record<string, unknown> = { result: "success", msg: "" };
			if (endpoint === "push/notify") {
				const android = (body.android_devices as string[] | undefined) ?? [];
				const apple = (body.apple_devices as string[] | undefined) ?? [];
				answer = { ...answer, total_android_devices: android.length, total_apple_devices: apple.length, deleted_devices: deleted, realm: null };
				deleted = { android_devices: [], apple_devices: [] };
			}
			res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(answer));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		to: (endpoint) => requests.filter((r) => r.path === `/api/v1/remotes/${endpoint}`),
		fail(failure, n = 1, endpoint) {
			for (let k = 0; k < n; k++) failures.push({ ...failure, endpoint });
		},
		deleteOnNextNotify(devices) {
			deleted = { android_devices: devices.android_devices ?? [], apple_devices: devices.apple_devices ?? [] };
		},
		reset() {
			requests.length = 0;
			failures = [];
		},
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
