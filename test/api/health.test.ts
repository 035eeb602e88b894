// Each node's health endpoint (HEALTH_PORT): alive while the process runs, ready only while the
// node can serve, and unready from the moment it starts draining.
import { freePort } from "../../shared/store";
import { startTestApp, type TestApp } from "../support/app";

let app: TestApp;
let base: string;

beforeAll(async () => {
	const port = await freePort();
	app = await startTestApp({ healthPort: port });
	base = `http://127.0.0.1:${port}`;
});

test("/healthz and /readyz answer 200 with their checks; anything else is 404", async () => {
	const live = await fetch(`${base}/healthz`);
	expect(live.status).toBe(200);
	expect(await live.json()).toEqual({ status: "ok", checks: { alive: true } });
	const ready = await fetch(`${base}/readyz`);
	expect(ready.status).toBe(200);
	expect(await ready.json()).toEqual({ status: "ok", checks: { started: true, transporter: true, databases: true, accepting: true } });
	expect((await fetch(`${base}/other`)).status).toBe(404);
});

test("a draining node is unready at once, while it still answers", async () => {
	const stopping = app.stop();
	const ready = await fetch(`${base}/readyz`);
	expect(ready.status).toBe(503);
	expect(((await ready.json()) as { checks: { accepting: boolean } }).checks.accepting).toBe(false);
	await stopping;
	await expect(fetch(`${base}/healthz`)).rejects.toThrow();
});
