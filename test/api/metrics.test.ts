// Prometheus metrics (METRICS_PORT): a node answers /metrics with Moleculer's per-action request
// counts, errors and latency, and the gateway's HTTP figures; with metrics off the gateway's
// request handler is left as it is.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ServiceBroker } from "moleculer";
import { freePort } from "../../shared/store";
import { observeHttp } from "../../services/api/http-metrics";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let metricsUrl: string;

beforeAll(async () => {
	const port = await freePort();
	app = await startTestApp({ metricsPort: port });
	owner = client(app.baseUrl, app.owner);
	metricsUrl = `http://127.0.0.1:${port}/metrics`;
});

afterAll(() => app.stop());

/** The value of the sample `name{...}` whose labels include every one given. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
	for (const line of text.split("\n")) {
		const m = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
		if (!m || m[1] !== name) continue;
		const have = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
		if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
	}
	return undefined;
}

test("/metrics counts each action's requests, errors and latency, and the gateway's HTTP requests", async () => {
	for (let i = 0; i < 3; i++) expectSuccess(await owner.get("/users/me"));
	expectError(await owner.get("/users/987654"), 400, "BAD_REQUEST", "No such user");
	expectError(await owner.get("/no/such/endpoint"), 404, "NOT_FOUND");

	const res = await fetch(metricsUrl);
	expect(res.status).toBe(200);
	expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
	const text = await res.text();

	expect(sample(text, "moleculer_request_total", { action: "users.me" })).toBe(3);
	expect(sample(text, "moleculer_request_time_count", { action: "users.me" })).toBe(3);
	expect(sample(text, "moleculer_request_time_sum", { action: "users.me" })).toBeGreaterThan(0);
	expect(sample(text, "moleculer_request_error_total", { action: "users.get", errorType: "BAD_REQUEST" })).toBe(1);

	expect(sample(text, "http_requests_total", { method: "GET", route: "users.me", status: "200" })).toBe(3);
	expect(sample(text, "http_requests_total", { method: "GET", route: "users.get", status: "400" })).toBe(1);
	expect(sample(text, "http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
	expect(sample(text, "http_request_time_count", { method: "GET", route: "users.me" })).toBe(3);
	expect(sample(text, "http_request_time_bucket", { method: "GET", route: "users.me", le: "+Inf" })).toBe(3);
});

test("metrics off (no METRICS_PORT): the gateway's handler is the one given, nothing wraps it", () => {
	const broker = new ServiceBroker({ logger: false, metrics: false });
	const handler = (_req: IncomingMessage, _res: ServerResponse) => undefined;
	expect(observeHttp(broker, handler, () => "x")).toBe(handler);
});
