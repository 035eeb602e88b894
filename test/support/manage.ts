// `npm run manage -- ...` run as an operator runs it: a child process, its output and exit code.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../shared/store";

const ROOT = path.resolve(__dirname, "../..");

export interface Run {
	code: number;
	stdout: string;
	stderr: string;
}

export function manage(env: Record<string, string>, args: string[]): Promise<Run> {
	return new Promise((resolve) => {
		execFile(
			"npm",
			["run", "--silent", "manage", "--", ...args],
			{ cwd: ROOT, env: { ...process.env, PATH: `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, LOG_LEVEL: "warn", ...env } },
			(err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
		);
	});
}

/** A scratch directory and the environment of an embedded store in it, on a prefix that holds nothing (quiet, as in CI). */
export async function scratchManageEnv(name: string): Promise<{ work: string; env: Record<string, string>; remove(): void }> {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), `chat-${name}-`));
	const env = { MONGO_URL: "", TRANSPORTER: "", SERVICES: "", DATA_DIR: path.join(work, "data"), STORE_PORT: String(await freePort()), DB_PREFIX: `m${randomBytes(4).toString("hex")}`, CI: "1" };
	return { work, env, remove: () => fs.rmSync(work, { recursive: true, force: true }) };
}
