// `npm run manage -- ...` run as an operator runs it: a child process, its output and exit code.
import { execFile } from "node:child_process";
import path from "node:path";

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
