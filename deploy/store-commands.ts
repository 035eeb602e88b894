// `npm run manage -- store-check | store-repair | store-backup`: the embedded store's data
// directory checked, salvaged or copied. check and repair run the store's binary on a directory no
// store runs on (deploy/embedded-store/tools.go); backup asks the running store for a checkpoint
// (consistent while it serves), or runs the binary when none runs.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { mongo } from "mongoose";
import { loadConfig } from "../shared/config";
import { buildLauncher, storeAnswers } from "../shared/store";

export const STORE_USAGE = `  npm run manage -- store-check [DIR]              verify the embedded store's data offline (DIR: DATA_DIR, or its store/)
  npm run manage -- store-repair [DIR] --to NEW    salvage what is readable into NEW, reporting what is lost
  npm run manage -- store-backup DEST              a consistent copy of the store's data, also while the server runs
`;

/** The store's data directory (the one holding pebble/) for DIR, or DATA_DIR's when none is given. */
function storeDir(dir: string | undefined): string {
	const base = path.resolve(dir ?? loadConfig().dataDir);
	return fs.existsSync(path.join(base, "pebble")) || !fs.existsSync(path.join(base, "store")) ? base : path.join(base, "store");
}

/** The store a server runs on `dir` (its port), if one answers there. */
async function runningStore(dir: string): Promise<number | undefined> {
	const file = path.join(dir, "running.json");
	if (!fs.existsSync(file)) return undefined;
	const { port } = JSON.parse(fs.readFileSync(file, "utf8")) as { port: number };
	return (await storeAnswers(port)) ? port : undefined;
}

/** Runs the store's binary with a tool's arguments, its report on our output; answers its exit code. */
function runTool(args: string[]): Promise<number> {
	const child = spawn(buildLauncher(), args, { stdio: ["ignore", "inherit", "inherit"] });
	return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

async function refuseRunning(dir: string, what: string): Promise<boolean> {
	if ((await runningStore(dir)) === undefined) return false;
	process.stderr.write(`A store is running on ${dir}: stop the server before ${what} (store-backup works while it runs).\n`);
	return true;
}

export async function storeCheckCommand(args: string[]): Promise<number> {
	const { positionals } = parseArgs({ args, allowPositionals: true });
	const dir = storeDir(positionals[0]);
	if (await refuseRunning(dir, "checking it")) return 2;
	return runTool(["check", "-data", dir]);
}

export async function storeRepairCommand(args: string[]): Promise<number> {
	const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { to: { type: "string" } } });
	const dir = storeDir(positionals[0]);
	if (!values.to) {
		process.stderr.write(`usage:\n${STORE_USAGE}`);
		return 2;
	}
	if (await refuseRunning(dir, "repairing it")) return 2;
	const to = path.resolve(values.to);
	const code = await runTool(["repair", "-data", dir, "-to", to]);
	process.stdout.write(`To use the salvaged data, stop the server and put ${to} in place of ${dir}.\n`);
	return code;
}

export async function storeBackupCommand(args: string[]): Promise<number> {
	const { positionals } = parseArgs({ args, allowPositionals: true });
	if (positionals.length !== 1) {
		process.stderr.write(`usage:\n${STORE_USAGE}`);
		return 2;
	}
	const dest = path.resolve(positionals[0]);
	const dir = storeDir(undefined);
	const port = await runningStore(dir);
	if (port === undefined) return runTool(["backup", "-data", dir, "-to", dest]);
	const client = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${port}/`, { serverSelectionTimeoutMS: 5_000 });
	try {
		await client.db("admin").command({ storeBackup: 1, to: dest });
	} catch (err) {
		process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
		return 1;
	} finally {
		await client.close();
	}
	process.stdout.write(`Backup of the running store written to ${dest}; to restore it, stop the server and put it in place of ${dir}.\n`);
	return 0;
}

/** The commands by name, for deploy/manage.ts. */
export const STORE_COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
	"store-check": storeCheckCommand,
	"store-repair": storeRepairCommand,
	"store-backup": storeBackupCommand,
};
