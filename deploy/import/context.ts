// What every phase of an import shares: the export, the ID maps, the target, the report.
import type { Model } from "mongoose";
import type { Ids } from "./ids";
import type { Target } from "./import-target";
import type { Progress } from "../progress";
import type { Rec, TableFile } from "../../shared/zulip-format/records";
import type { NotKept } from "./report";

export interface ImportContext {
	/** The export's directory. */
	dir: string;
	/** realm.json. */
	realm: TableFile;
	ids: Ids;
	target: Target;
	notKept: NotKept;
	progress: Progress;
	/** This server's organization ID (one organization per database prefix). */
	realmId: number;
	/** The organization's URL (EXTERNAL_URL). */
	url: string;
	/** The tables of realm.json a phase has read (the others are reported as not kept). */
	read: Set<string>;
}

/** A table of realm.json, marked read. */
export function table(ctx: ImportContext, name: string) {
	ctx.read.add(name);
	return ctx.realm.records(name);
}

export const BATCH = 1000;

/**
 * Inserts documents in batches of BATCH, `parallel` batches at a time, through the collection (the
 * documents are built whole, with the model's types, so Mongoose's per-document casting would only
 * cost time).
 */
export async function insertAll<D>(model: Model<D>, docs: D[], progress?: Progress, parallel = 1): Promise<void> {
	const batches: D[][] = [];
	for (let i = 0; i < docs.length; i += BATCH) batches.push(docs.slice(i, i + BATCH));
	for (let i = 0; i < batches.length; i += parallel) {
		await Promise.all(
			batches.slice(i, i + parallel).map(async (batch) => {
				await model.collection.insertMany(batch as never[], { ordered: true });
				progress?.add(batch.length);
			}),
		);
	}
}

/** Seconds since the epoch, whole (the API's unit), from Zulip's float timestamps. */
export const seconds = (t: number) => Math.floor(t);

/**
 * The user a row of a membership table names, or undefined when the export does not hold that
 * user: Zulip's own exports hold such rows (a user deleted while the export ran), so the row is
 * skipped and counted in the report rather than failing the import.
 */
export function memberOrSkip(ctx: ImportContext, rec: Rec, field: string): number | undefined {
	const id = ctx.ids.users.find(rec.int(field));
	if (id === undefined) ctx.notKept.add(rec.table, "rows naming a user the export does not hold");
	return id;
}
