import fs from "node:fs";

export default async function globalTeardown(): Promise<void> {
	await globalThis.__TEST_STORE__?.stop();
	if (globalThis.__TEST_DATA_DIR__) fs.rmSync(globalThis.__TEST_DATA_DIR__, { recursive: true, force: true });
}
