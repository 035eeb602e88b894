// Import and export figures (BENCH_ONLY=import): `import-zulip` of Zulip's sample export, and of an export of
// BENCH_IMPORT_MESSAGES messages (default 200,000) generated here in the sample's shapes: the
// sample's organization (users, channels, subscriptions, groups, emoji, the uploaded file), and
// its messages repeated with new IDs, each copy with the same per-user rows and flags as its
// original, written 1,000 to a file as Zulip does. Each import runs in a process of its own
// (import-run.ts): messages per second, per-user rows per second, and that process's peak RSS,
// which stays flat as the export grows when messages are read file by file. Each imported
// organization is then exported again (`export-zulip`, export-run.ts, a process of its own too):
// messages per second written, and its peak RSS, flat when messages are read a file's worth at a
// time.
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { formatTable } from "./bench-support";
import { manageNodeOptions } from "../support/processes";

export const IMPORT_SETTINGS = ["BENCH_IMPORT_MESSAGES"];

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE = path.resolve(ROOT, "test/fixtures/zulip-export-fl339.tar.gz");
const PER_FILE = 1000;

export interface ImportFigure {
	/** "import" or "export". */
	direction: string;
	export: string;
	messages: number;
	rows: number;
	seconds: number;
	maxRssKiB: number;
}

type Row = Record<string, unknown> & { id: number };

/** Writes an export of `count` messages in the sample's shapes into `into`; answers its directory. */
function generateExport(sampleDir: string, into: string, count: number): string {
	const dir = path.join(into, "generated");
	fs.mkdirSync(dir, { recursive: true });
	for (const f of fs.readdirSync(sampleDir)) {
		if (/^messages-\d+\.json$/.test(f)) continue;
		fs.cpSync(path.join(sampleDir, f), path.join(dir, f), { recursive: true });
	}
	const sample = JSON.parse(fs.readFileSync(path.join(sampleDir, "messages-000001.json"), "utf8")) as { zerver_message: Row[]; zerver_usermessage: Row[] };
	const rowsOf = new Map<number, Row[]>();
	for (const r of sample.zerver_usermessage) (rowsOf.get(r.message as number) ?? rowsOf.set(r.message as number, []).get(r.message as number)!).push(r);
	const originals = [...sample.zerver_message].sort((a, b) => a.id - b.id);
	const maxId = originals[originals.length - 1].id;
	let rowId = 0;
	for (let file = 0; file * PER_FILE < count; file++) {
		const messages: Row[] = [];
		const rows: Row[] = [];
		for (let i = file * PER_FILE; i < Math.min(count, (file + 1) * PER_FILE); i++) {
			const original = originals[i % originals.length];
			// The first copy keeps the sample's IDs (reactions and the attachment name them).
			const id = i < originals.length ? original.id : maxId + i;
			messages.push({ ...original, id });
			for (const r of rowsOf.get(original.id) ?? []) rows.push({ ...r, id: ++rowId, message: id });
		}
		const name = `messages-${String(file + 1).padStart(6, "0")}.json`;
		fs.writeFileSync(path.join(dir, name), JSON.stringify({ zerver_message: messages, zerver_usermessage: rows }));
	}
	return dir;
}

type Measured = Omit<ImportFigure, "direction" | "export">;

/** Runs one of the bench's scripts in a process of its own; answers the JSON line it prints last. */
function runScript(script: string, args: string[]): Promise<Measured> {
	return new Promise((resolve, reject) => {
		execFile(path.join(ROOT, "node_modules/.bin/tsx"), [script, ...args], { cwd: ROOT, env: { ...process.env, CI: "1", NODE_OPTIONS: manageNodeOptions() }, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
			if (err) return reject(new Error(`${script} failed: ${stderr}`));
			resolve(JSON.parse(stdout.trim().split("\n").pop()!) as Measured);
		});
	});
}

/** Imports `source` into a new prefix, then exports that prefix to `work`: both figures. */
async function roundTrip(source: string, label: string, mongoUrl: string, work: string): Promise<ImportFigure[]> {
	const prefix = `imp${randomBytes(4).toString("hex")}`;
	const imported = await runScript("test/bench/import-run.ts", [source, mongoUrl, prefix]);
	const out = path.join(work, `${prefix}.tar.gz`);
	const exported = await runScript("test/bench/export-run.ts", [mongoUrl, prefix, out]);
	fs.rmSync(out, { force: true });
	return [
		{ direction: "import", export: label, ...imported },
		{ direction: "export", export: label, ...exported },
	];
}

export async function importFigures(mongoUrl: string, work: string): Promise<ImportFigure[]> {
	const count = Number(process.env.BENCH_IMPORT_MESSAGES ?? 200_000);
	const unpacked = path.join(work, "import-sample");
	fs.mkdirSync(unpacked, { recursive: true });
	execFileSync("tar", ["xzf", SAMPLE, "-C", unpacked]);
	const sampleDir = path.join(unpacked, fs.readdirSync(unpacked).find((d) => fs.existsSync(path.join(unpacked, d, "realm.json")))!);
	const figures: ImportFigure[] = [];
	figures.push(...(await roundTrip(SAMPLE, "sample (.tar.gz)", mongoUrl, work)));
	const generated = generateExport(sampleDir, path.join(work, "import-generated"), count);
	figures.push(...(await roundTrip(generated, "generated", mongoUrl, work)));
	fs.rmSync(path.join(work, "import-generated"), { recursive: true, force: true });
	return figures;
}

export function importTable(figures: ImportFigure[], info: { store: string; command: string; cores: number }): string {
	const rows = [
		["", "export", "messages", "per-user rows", "seconds", "messages/s", "rows/s", "peak RSS (MiB)"],
		...figures.map((f) => [
			f.direction,
			f.export,
			String(f.messages),
			String(f.rows),
			f.seconds.toFixed(1),
			String(Math.round(f.messages / f.seconds)),
			String(Math.round(f.rows / f.seconds)),
			(f.maxRssKiB / 1024).toFixed(0),
		]),
	];
	return `Import and export of Zulip exports (npm run manage -- import-zulip, then export-zulip of what was imported, to a .tar.gz), store: ${info.store}, ${info.cores} cores\n${info.command}\n\n${formatTable(rows)}`;
}
