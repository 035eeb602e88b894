// Linkifiers, as Zulip's (models/linkifiers.py, actions/realm_linkifiers.py): a pattern in the safe
// subset of shared/linkifier-pattern.ts, an RFC 6570 URL template whose variables are exactly the
// pattern's named groups, once per pattern; applied in their order.
import { isDuplicateKey } from "../../../shared/db";
import { badRequest } from "../../../shared/errors";
import { groupNames, PatternError, translatePattern } from "../../../shared/linkifier-pattern";
import type { Linkifier } from "../../../shared/org-events";
import type { CatalogDb } from "../db";
import { templateVariables } from "../playgrounds/playground-rules";

/** Zulip's ValidationFailureError: the first message, and every message by field. */
/** Zulip keeps a pattern as unbounded text; this bound is the server's own. */
export const MAX_PATTERN_LENGTH = 1000;

const invalid = (field: string, msg: string) => badRequest(msg, { errors: { [field]: [msg] } });

export function checkLinkifier(input: { pattern: string; url_template: string }) {
	const pattern = input.pattern.trim();
	const url_template = input.url_template.trim();
	const vars = templateVariables(url_template);
	if (!url_template || !vars) throw invalid("url_template", "Invalid URL template.");
	let groups: Set<string>;
	try {
		groups = groupNames(translatePattern(pattern));
	} catch (err) {
		if (err instanceof PatternError) throw invalid("__all__", `Bad regular expression: ${err.message}`);
		throw err;
	}
	const first = (s: string[]) => s.sort()[0];
	const notInPattern = [...vars].filter((v) => !groups.has(v));
	if (notInPattern.length) throw invalid("__all__", `Group '${first(notInPattern)}' in URL template is not present in linkifier pattern.`);
	const notInTemplate = [...groups].filter((g) => !vars.has(g));
	if (notInTemplate.length) throw invalid("__all__", `Group '${first(notInTemplate)}' in linkifier pattern is not present in URL template.`);
	return { pattern, url_template };
}

const duplicate = () => invalid("__all__", "Linkifier with this Pattern and Realm already exists.");
const notFound = () => badRequest("Linkifier not found.");

export async function listLinkifiers(db: CatalogDb): Promise<Linkifier[]> {
	const docs = await db.Linkifier.find({ realm_id: db.realmId }).sort({ order: 1, _id: 1 }).lean();
	return docs.map((d) => ({ pattern: d.pattern, url_template: d.url_template, id: d._id }));
}

export async function addLinkifier(db: CatalogDb, input: { pattern: string; url_template: string }): Promise<number> {
	const fields = checkLinkifier(input);
	const id = await db.nextId("realm_filter");
	try {
		// As Zulip: a new linkifier comes last (order 0 ties are broken by ID, so after the others).
		const last = await db.Linkifier.findOne({ realm_id: db.realmId }).sort({ order: -1, _id: -1 }).lean();
		await db.Linkifier.create({ _id: id, realm_id: db.realmId, ...fields, order: last ? last.order + 1 : 0 });
	} catch (err) {
		if (isDuplicateKey(err)) throw duplicate();
		throw err;
	}
	return id;
}

export async function updateLinkifier(db: CatalogDb, id: number, input: { pattern: string; url_template: string }) {
	if (!(await db.Linkifier.exists({ _id: id, realm_id: db.realmId }))) throw notFound();
	const fields = checkLinkifier(input);
	try {
		const res = await db.Linkifier.updateOne({ _id: id, realm_id: db.realmId }, { $set: fields });
		if (!res.matchedCount) throw notFound();
	} catch (err) {
		if (isDuplicateKey(err)) throw duplicate();
		throw err;
	}
}

export async function removeLinkifier(db: CatalogDb, id: number) {
	const res = await db.Linkifier.deleteOne({ _id: id, realm_id: db.realmId });
	if (!res.deletedCount) throw notFound();
}

export async function reorderLinkifiers(db: CatalogDb, ids: number[]) {
	const set = new Set(ids);
	if (set.size < ids.length) throw badRequest("The ordered list must not contain duplicated linkifiers");
	const existing = await db.Linkifier.find({ realm_id: db.realmId }, { _id: 1 }).lean();
	if (existing.length !== set.size || existing.some((l) => !set.has(l._id))) throw badRequest("The ordered list must enumerate all existing linkifiers exactly once");
	if (!ids.length) return false;
	await db.Linkifier.bulkWrite(ids.map((_id, order) => ({ updateOne: { filter: { _id, realm_id: db.realmId }, update: { $set: { order } } } })));
	return true;
}
