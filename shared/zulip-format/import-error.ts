// The one error an import fails with: what is wrong, and where (the export's file, and the table
// and record when it is one record), so an operator can find it in the export.

export class ImportError extends Error {
	constructor(
		readonly file: string,
		message: string,
		readonly where?: { table: string; index: number; id?: unknown },
	) {
		super(`${file}${where ? `, ${where.table}[${where.index}]${where.id !== undefined ? ` (id ${String(where.id)})` : ""}` : ""}: ${message}`);
		this.name = "ImportError";
	}
}
