// This server's own exports (export-zulip) keep Zulip's feature level 339 row shapes and put the
// fields newer than that level, which this server keeps, in a table of their own
// (services/uploads/export/fl339-shapes.ts NEWER_FIELDS_TABLE): they are merged back into their
// rows before any phase reads them, so a round trip through this server's export keeps them.
import { NEWER_FIELDS_TABLE } from "../../services/uploads/export/fl339-shapes";
import { table, type ImportContext } from "./context";
import type { Rec } from "./records";

export function mergeNewerFields(ctx: ImportContext): void {
	const rows = table(ctx, NEWER_FIELDS_TABLE);
	const byTable = new Map<string, Map<number, Rec>>();
	for (const r of rows) {
		const name = r.str("table");
		let index = byTable.get(name);
		if (!index) byTable.set(name, (index = new Map(ctx.realm.records(name).map((x) => [x.int("id"), x]))));
		const target = index.get(r.int("id"));
		if (!target) return r.fail(`names ${name} row ${r.int("id")}, which the export does not hold`);
		const fields = r.raw.fields;
		if (!fields || typeof fields !== "object" || Array.isArray(fields)) return r.fail(`"fields" must be an object`);
		Object.assign(target.raw, fields);
	}
}
