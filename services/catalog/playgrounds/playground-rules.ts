// Code playgrounds, as Zulip's: a language of safe characters (at most 40), an RFC 6570 URL
// template (parsed by the uri-template library) whose only variable is `code`, and a name unique
// per language.
import { parse } from "uri-template";
import { isDuplicateKey } from "../../../shared/db";
import { badRequest } from "../../../shared/errors";
import type { CatalogDb } from "../db";
import type { PlaygroundDoc } from "./playground-model";

export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;
/**
 * Zulip keeps a playground's name and a URL template (a linkifier's too) as unbounded text;
 * these bounds are the server's own, refused with Zulip's "too long" wording.
 */
export const MAX_PLAYGROUND_NAME_LENGTH = 200;
export const MAX_URL_TEMPLATE_LENGTH = 2000;
const LANGUAGE_CHARS = /^[ a-zA-Z0-9_+\-./#]*$/;

export type Playground = { id: number; name: string; pygments_language: string; url_template: string };

export const playgroundView = (d: PlaygroundDoc): Playground => ({ id: d._id, name: d.name, pygments_language: d.pygments_language, url_template: d.url_template });

/** The variable names of an RFC 6570 template; null when it is not one. */
export function templateVariables(template: string): Set<string> | null {
	try {
		const names = new Set<string>();
		for (const part of parse(template).ast.parts) if (part.type === "expression") for (const v of part.variables) names.add(v.name);
		return names;
	} catch {
		return null;
	}
}

export function checkPlayground(input: { name: string; pygments_language: string; url_template: string }) {
	const { pygments_language } = input;
	if (pygments_language.length > MAX_PYGMENTS_LANGUAGE_LENGTH) throw badRequest(`pygments_language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`);
	if (!LANGUAGE_CHARS.test(pygments_language)) throw badRequest("Invalid characters in pygments language");
	const name = input.name.trim();
	const language = pygments_language.trim();
	const url_template = input.url_template.trim();
	// Zulip's model validation: a field left blank is refused by name.
	if (!name) throw badRequest("name: This field cannot be blank.");
	if (!language) throw badRequest("pygments_language: This field cannot be blank.");
	const vars = templateVariables(url_template);
	if (!url_template || !vars) throw badRequest("Invalid URL template.");
	if (vars.size !== 1 || !vars.has("code")) throw badRequest('"code" should be the only variable present in the URL template');
	return { name, pygments_language: language, url_template };
}

export async function listPlaygrounds(db: CatalogDb): Promise<Playground[]> {
	return (await db.Playground.find({ realm_id: db.realmId }).sort({ _id: 1 }).lean()).map(playgroundView);
}

export async function addPlayground(db: CatalogDb, input: { name: string; pygments_language: string; url_template: string }): Promise<number> {
	const fields = checkPlayground(input);
	const id = await db.nextId("realm_playground");
	try {
		await db.Playground.create({ _id: id, realm_id: db.realmId, ...fields });
	} catch (err) {
		if (isDuplicateKey(err)) throw badRequest("Realm playground with this Realm, Pygments language and Name already exists.");
		throw err;
	}
	return id;
}

export async function removePlayground(db: CatalogDb, id: number) {
	const res = await db.Playground.deleteOne({ _id: id, realm_id: db.realmId });
	if (!res.deletedCount) throw badRequest("Invalid playground");
}
