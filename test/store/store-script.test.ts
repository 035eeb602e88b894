// `npm run store` (deploy/store.ts): the embedded store alone, in the foreground, until SIGTERM.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { freePort, portAnswers } from "../../shared/store";
import { waitFor } from "../support/processes";

jest.setTimeout(180_000);

test("runs the store until SIGTERM, then stops it", async () => {
	const root = path.resolve(__dirname, "../..");
	const script = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.store as string;
	expect(fs.existsSync(path.join(root, script.split(" ").pop()!))).toBe(true);
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-store-script-"));
	const port = await freePort();
	const child = spawn(path.join(root, "node_modules/.bin/tsx"), ["deploy/store.ts"], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, STORE_PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
	let out = "";
	child.stdout.on("data", (d) => (out += d));
	child.stderr.on("data", (d) => (out += d));
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	try {
		await waitFor(() => portAnswers(port), "the store", 120_000);
		// The address is printed once the store answers.
		await waitFor(async () => out.includes(`MONGO_URL=mongodb://127.0.0.1:${port}/`), "the store's address on its output", 10_000);
		child.kill("SIGTERM");
		expect(await exited).toBe(0);
		expect(await portAnswers(port)).toBe(false);
	} finally {
		child.kill("SIGKILL");
		fs.rmSync(dataDir, { recursive: true, force: true });
	}
});
