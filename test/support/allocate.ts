// A child process for the store tests: allocates IDs from one counter, all at once, and prints
// them as JSON. Usage: tsx test/support/allocate.ts <mongo url> <database prefix> <count>
import { connectServiceDb, counters } from "../../shared/db";

async function main(): Promise<void> {
	const [url, prefix, count] = process.argv.slice(2);
	const conn = await connectServiceDb(url, prefix, "alloc");
	const next = counters(conn);
	const ids = await Promise.all(Array.from({ length: Number(count) }, () => next("thing")));
	process.stdout.write(JSON.stringify(ids));
	await conn.close();
}

main().catch((err) => {
	process.stderr.write(String(err?.stack ?? err));
	process.exit(1);
});
