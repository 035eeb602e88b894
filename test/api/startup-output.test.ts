// What `npm start` prints: readable lines and the start banner (the API's URL, the owner's
// zuliprc, how to add users) with pretty output, and nothing but JSON lines otherwise (here stdout
// is a pipe, as under a log collector).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { startServerNode, waitFor, type Proc } from "../support/processes";

const dirs: string[] = [];
const procs: Proc[] = [];

afterAll(async () => {
	await Promise.all(procs.map((p) => p.stop()));
	for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<{ proc: Proc; dataDir: string; url: string }> {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-start-"));
	dirs.push(dataDir);
	const port = await freePort();
	const proc = startServerNode({ MONGO_URL: process.env.TEST_MONGO_URL!, DB_PREFIX: `s${randomBytes(4).toString("hex")}`, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", EXTERNAL_URL: `http://127.0.0.1:${port}`, ...env });
	procs.push(proc);
	await waitFor(async () => proc.output().includes("Listening on"), "the server to listen");
	return { proc, dataDir, url: `http://127.0.0.1:${port}/api/v1` };
}

test("pretty output: readable log lines, then the banner once the server listens", async () => {
	const { proc, dataDir, url } = await start({ LOG_FORMAT: "pretty" });
	await waitFor(async () => proc.output().includes("Their zuliprc"), "the banner", 60_000);
	const out = proc.output();
	expect(out).toContain(`Team chat server ready: ${url}`);
	expect(out).toContain(`(a zuliprc for any Zulip client): ${path.join(dataDir, "zuliprc")}`);
	expect(out).toContain("npm run manage -- create-user --email");
	expect(out).toContain("npm run manage -- zuliprc --email");
	expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*server: Listening on/m);
	expect(out.split("\n").filter((l) => l.startsWith('{"level"'))).toEqual([]);
	expect(fs.existsSync(path.join(dataDir, "zuliprc"))).toBe(true);
});

test("stdout not a terminal (LOG_FORMAT auto): JSON lines only, no banner", async () => {
	const { proc } = await start({ LOG_FORMAT: "" });
	await new Promise((r) => setTimeout(r, 300));
	const lines = proc.output().trim().split("\n");
	expect(lines.length).toBeGreaterThan(5);
	for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
	expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContainEqual(expect.stringMatching(/^Listening on http/));
	expect(proc.output()).not.toContain("Team chat server ready");
});
