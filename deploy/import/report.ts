// What the export holds that this server does not keep, by table and count, printed at the end of
// every import: nothing is dropped silently. A table the import never reads is listed with its
// count by the orchestrator (import-zulip.ts) from realm.json's own list of tables.

export interface NotKeptLine {
	table: string;
	count: number;
	why: string;
}

export class NotKept {
	private readonly lines = new Map<string, NotKeptLine>();

	/** Counts `count` records (or values) of `table` not kept, for `why`. */
	add(table: string, why: string, count = 1): void {
		if (count <= 0) return;
		const key = `${table}\u0000${why}`;
		const line = this.lines.get(key);
		if (line) line.count += count;
		else this.lines.set(key, { table, count, why });
	}

	all(): NotKeptLine[] {
		return [...this.lines.values()].sort((a, b) => a.table.localeCompare(b.table) || a.why.localeCompare(b.why));
	}

	format(): string {
		const lines = this.all();
		if (!lines.length) return "Everything in the export was kept.\n";
		const width = Math.max(...lines.map((l) => l.table.length));
		const countWidth = Math.max(...lines.map((l) => String(l.count).length));
		return `Not kept (this server has no place for it):\n${lines.map((l) => `  ${l.table.padEnd(width)}  ${String(l.count).padStart(countWidth)}  ${l.why}`).join("\n")}\n`;
	}
}
