// One import in a process of its own, for the import figures (import-bench.ts): its peak RSS is
// this process's alone. Arguments: the export, the MongoDB URL, the database prefix; prints one
// JSON line of figures.
import { importZulip } from "../../deploy/import/import-zulip";

async function main(): Promise<void> {
	const [source, mongoUrl, prefix] = process.argv.slice(2);
	const started = performance.now();
	const result = await importZulip({ source, mongoUrl, prefix, url: "http://bench.test" });
	const seconds = (performance.now() - started) / 1000;
	process.stdout.write(
		`${JSON.stringify({ seconds, messages: result.counts.messages, rows: result.counts["per-user message rows"], maxRssKiB: process.resourceUsage().maxRSS })}\n`,
	);
}

main().then(
	() => process.exit(0),
	(err) => {
		process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
		process.exit(1);
	},
);
