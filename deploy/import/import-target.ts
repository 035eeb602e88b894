// Where an import writes: each service's own database (`<prefix>_<service>`), through the
// services' own Mongoose models, so documents have the shapes and indexes the services expect.
//
// Decision (how data gets in): the import writes the collections directly, in bulk, rather than
// calling the services' actions. The actions check a caller and announce each change, one item
// at a time: a message send through them would render again (the export holds the rendering),
// deliver events and cost a bus round trip per message, and there is no caller yet for most of
// what an export holds (a channel created by a user who does not exist). Bulk writes of the
// models' own documents, with the fields the services derive computed by the services' own
// functions (search words, per-user message rows), are one write per thousand records.
//
// Decision (no half-imported organization): the target database prefix must hold nothing yet:
// every service database is checked empty before the first write, and when the import fails the
// databases it wrote are dropped again, so the prefix is as empty as before. The server started
// on that prefix afterwards finds the organization and its owner and serves them; nothing has to
// reach a running server (none runs on an empty prefix: a server's first start would have
// created an organization there), so no change is relayed (services/users/change-relay.ts).
import { ensureIndexes } from "../../shared/db";
import { connectServiceDbs, serviceModels, TARGET_SERVICES, type Models, type ServiceConns } from "../service-dbs";

/** The models whose indexes are built after the import's bulk writes. */
const LATE_INDEXES = new Set(["Message", "UserMessage"]);

export { TARGET_SERVICES, type Models };

export interface Target {
	prefix: string;
	conns: ServiceConns;
	m: Models;
	/** Raises a service's ID counter for `entity` to at least `seq` (the next ID is seq + 1). */
	raiseCounter(service: (typeof TARGET_SERVICES)[number], entity: string, seq: number): Promise<void>;
	/** Builds the indexes left for after the bulk load. */
	finishIndexes(): Promise<void>;
	/** Drops every database the import wrote: the prefix is empty again. */
	dropAll(): Promise<void>;
	close(): Promise<void>;
}

export async function openTarget(mongoUrl: string, prefix: string): Promise<Target> {
	const { conns, close } = await connectServiceDbs(mongoUrl, prefix);
	try {
		for (const s of TARGET_SERVICES) {
			for (const c of await conns[s].db!.listCollections({}, { nameOnly: true }).toArray()) {
				if (await conns[s].db!.collection(c.name).estimatedDocumentCount()) {
					throw new Error(
						`The database ${prefix}_${s} already holds data (${c.name}): an import goes into a database prefix that holds no organization yet; set DB_PREFIX to a new one.`,
					);
				}
			}
		}
		const m = serviceModels(conns);
		// The big collections get their indexes after the bulk load (finishIndexes): one build is
		// cheaper than keeping five indexes current through millions of inserts. Their rows are
		// checked for duplicates as they are read (messages.ts), as a unique index would.
		for (const s of TARGET_SERVICES) for (const model of Object.values(conns[s].models)) if (!LATE_INDEXES.has(model.modelName)) await model.createIndexes();
		await m.store.ensureIndexes();
		return {
			prefix,
			conns,
			m,
			async raiseCounter(service, entity, seq) {
				await conns[service].db!.collection<{ _id: string; seq: number }>("counters").updateOne({ _id: entity }, { $max: { seq } }, { upsert: true });
			},
			async finishIndexes() {
				for (const s of TARGET_SERVICES) await ensureIndexes(conns[s]);
			},
			async dropAll() {
				for (const s of TARGET_SERVICES) await conns[s].db!.dropDatabase();
			},
			close,
		};
	} catch (err) {
		await close();
		throw err;
	}
}
