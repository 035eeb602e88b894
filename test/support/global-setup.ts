// Starts one embedded store (a real MongoDB-wire server) for the whole test run, unless
// MONGO_URL points the tests at a MongoDB server. Each test file then uses its own databases.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildLauncher, freePort, startEmbeddedStore, type RunningStore } from "../../shared/store";

declare global {
	var __TEST_STORE__: RunningStore | undefined;
	var __TEST_DATA_DIR__: string | undefined;
}

export default async function globalSetup(): Promise<void> {
	if (process.env.MONGO_URL) {
		process.env.TEST_MONGO_URL = process.env.MONGO_URL;
		return;
	}
	buildLauncher({ info: (...a) => process.stderr.write(`${a.join(" ")}\n`), warn: () => undefined });
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-test-store-"));
	const store = await startEmbeddedStore({ dataDir, port: await freePort() });
	globalThis.__TEST_STORE__ = store;
	globalThis.__TEST_DATA_DIR__ = dataDir;
	process.env.TEST_MONGO_URL = store.url;
}
