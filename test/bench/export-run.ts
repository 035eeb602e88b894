// One export in a process of its own, for the import and export figures (import-bench.ts): its
// peak RSS is this process's alone. Arguments: the MongoDB URL, the database prefix, the .tar.gz to
// write; prints one JSON line of figures.
import { exportZulip } from "../../deploy/export/export-zulip";

async function main(): Promise<void> {
	const [mongoUrl, prefix, out] = process.argv.slice(2);
	const started = performance.now();
	const { stats, bytes } = await exportZulip({ out, mongoUrl, prefix });
	const seconds = (performance.now() - started) / 1000;
	process.stdout.write(`${JSON.stringify({ seconds, messages: stats.zerver_message, rows: stats.zerver_usermessage, bytes, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
}

main().then(
	() => process.exit(0),
	(err) => {
		process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
		process.exit(1);
	},
);
