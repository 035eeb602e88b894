// `npm run manage -- store-check | store-repair | store-backup`: the embedded store's data
// directory checked, salvaged or copied. check and repair run the store's binary on a directory no
// store runs on (deploy/embedded-store/tools.go); backup asks the running store for a checkpoint
// (consistent while it serves), or runs the binary when none runs.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { mongo } from "mongoose";
import { loadConfig } from "../shared/config";
import { buildLauncher, storeAnswers } from "../shared/store";
import { EXIT, type Command, type Parsed } from "./command-line";

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

async function storeCheck({ positionals }: Parsed): Promise<number> {
	const dir = storeDir(positionals[0]);
	if (await refuseRunning(dir, "checking it")) return EXIT.USAGE;
	return runTool(["check", "-data", dir]);
}

async function storeRepair({ positionals, values }: Parsed): Promise<number> {
	const dir = storeDir(positionals[0]);
	if (await refuseRunning(dir, "repairing it")) return EXIT.USAGE;
	const to = path.resolve(String(values.to));
	const code = await runTool(["repair", "-data", dir, "-to", to]);
	process.stdout.write(`To use the salvaged data, stop the server and put ${to} in place of ${dir}.\n`);
	return code;
}

async function storeBackup({ positionals }: Parsed): Promise<number> {
	const dest = path.resolve(positionals[0]);
	const dir = storeDir(undefined);
	const port = await runningStore(dir);
	if (port === undefined) return runTool(["backup", "-data", dir, "-to", dest]);
	const client = await mongo.MongoClient.connect(`mongodb://127.0.0.1:${port}/`, { serverSelectionTimeoutMS: 5_000 });
	try {
		await client.db("admin").command({ storeBackup: 1, to: dest });
	} catch (err) {
		process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
		return EXIT.FAILED;
	} finally {
		await client.close();
	}
	process.stdout.write(`Backup of the running store written to ${dest}; to restore it, stop the server and put it in place of ${dir}.\n`);
	return EXIT.OK;
}

export const STORE_COMMANDS: Command[] = [
	{
		name: "store-check",
		args: "[DIR]",
		summary: "verifies the embedded store's data offline (DIR: DATA_DIR, or its store/)",
		options: {},
		positionals: { min: 0, max: 1, what: "data directory" },
		run: storeCheck,
	},
	{
		name: "store-repair",
		args: "[DIR] --to NEW",
		summary: "salvages what is readable of the embedded store's data into NEW, reporting what is lost",
		options: { to: { type: "string" } },
		positionals: { min: 0, max: 1, what: "data directory" },
		required: ["to"],
		run: storeRepair,
	},
	{
		name: "store-backup",
		args: "DEST",
		summary: "a consistent copy of the embedded store's data, also while the server runs",
		options: {},
		positionals: { min: 1, max: 1, what: "destination directory" },
		run: storeBackup,
	},
];
