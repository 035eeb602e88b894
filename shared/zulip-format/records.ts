// The export's JSON files and their records, read with checks: a record with a field missing or of
// the wrong type is an ImportError naming the file, table, record index and id.
import fs from "node:fs";
import path from "node:path";
import { ImportError } from "./import-error";

type Raw = Record<string, unknown>;

/** One record of a table, with typed accessors that fail with where it is. */
export class Rec {
	constructor(
		readonly file: string,
		readonly table: string,
		readonly index: number,
		readonly raw: Raw,
	) {}

	fail(message: string): never {
		throw new ImportError(this.file, message, { table: this.table, index: this.index, id: this.raw.id });
	}

	private bad(field: string, want: string): never {
		this.fail(`"${field}" must be ${want}, not ${JSON.stringify(this.raw[field]) ?? "missing"}`);
	}

	int(field: string): number {
		const v = this.raw[field];
		if (typeof v !== "number" || !Number.isInteger(v)) this.bad(field, "an integer");
		return v;
	}

	optInt(field: string): number | null {
		return this.raw[field] === null || this.raw[field] === undefined ? null : this.int(field);
	}

	num(field: string): number {
		const v = this.raw[field];
		if (typeof v !== "number" || !Number.isFinite(v)) this.bad(field, "a number");
		return v;
	}

	optNum(field: string): number | null {
		return this.raw[field] === null || this.raw[field] === undefined ? null : this.num(field);
	}

	str(field: string): string {
		const v = this.raw[field];
		if (typeof v !== "string") this.bad(field, "a string");
		return v;
	}

	optStr(field: string): string | null {
		return this.raw[field] === null || this.raw[field] === undefined ? null : this.str(field);
	}

	bool(field: string): boolean {
		const v = this.raw[field];
		if (typeof v !== "boolean") this.bad(field, "true or false");
		return v;
	}

	optBool(field: string): boolean | null {
		return this.raw[field] === null || this.raw[field] === undefined ? null : this.bool(field);
	}

	/** A list of integers (a many-to-many field). */
	ints(field: string): number[] {
		const v = this.raw[field];
		if (!Array.isArray(v) || v.some((x) => typeof x !== "number" || !Number.isInteger(x))) this.bad(field, "a list of integers");
		return v as number[];
	}
}

/** Reads a JSON file of the export; `required` false answers undefined for a file that is absent. */
export function readJson(dir: string, name: string, required = true): Raw | unknown[] | undefined {
	const file = path.join(dir, name);
	if (!fs.existsSync(file)) {
		if (!required) return undefined;
		throw new ImportError(name, "missing from the export");
	}
	try {
		return JSON.parse(fs.readFileSync(file, "utf8")) as Raw | unknown[];
	} catch (err) {
		throw new ImportError(name, `not valid JSON (${err instanceof Error ? err.message : String(err)})`);
	}
}

/** The tables of one JSON file (realm.json, a messages file): each table a list of records. */
export class TableFile {
	private readonly tables: Raw;

	constructor(
		readonly name: string,
		data: unknown,
	) {
		if (!data || typeof data !== "object" || Array.isArray(data)) throw new ImportError(name, "must be a JSON object of tables");
		this.tables = data as Raw;
	}

	static read(dir: string, name: string): TableFile {
		return new TableFile(name, readJson(dir, name));
	}

	/** The names of the tables the file holds (lists), in its order. */
	names(): string[] {
		return Object.keys(this.tables).filter((k) => Array.isArray(this.tables[k]));
	}

	has(table: string): boolean {
		return Array.isArray(this.tables[table]);
	}

	count(table: string): number {
		return this.has(table) ? (this.tables[table] as unknown[]).length : 0;
	}

	/** A table's records; an absent table is an error only when `required`. */
	records(table: string, required = false): Rec[] {
		const list = this.tables[table];
		if (list === undefined && !required) return [];
		if (!Array.isArray(list)) throw new ImportError(this.name, `the table ${table} is ${list === undefined ? "missing" : "not a list"}`);
		return list.map((raw, i) => {
			if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new ImportError(this.name, "not an object", { table, index: i });
			return new Rec(this.name, table, i, raw as Raw);
		});
	}

	/** Drops the file's data once read (the messages files: memory stays flat). */
	release(): void {
		for (const k of Object.keys(this.tables)) delete this.tables[k];
	}
}
