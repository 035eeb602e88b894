// Unicode emoji names and codepoints: Zulip's name table (a canonical name and any aliases per
// code point, e.g. 1f44d is "+1", also "thumbs_up" and "like"), kept in zulip-emoji-names.json
// and built from Zulip's data by deploy/tools/zulip-emoji-names.py (see the file's "source").
// Codes are the API's form: lowercase hex codepoints joined by dashes, without the variation
// selector FE0F (as Zulip writes them: heart is "2764", not "2764-fe0f").
import table from "./zulip-emoji-names.json";

const byName = new Map<string, string>();
const namesByCode = new Map<string, string[]>();

for (const [code, names] of Object.entries(table.names as Record<string, string[]>)) {
	namesByCode.set(code, names);
	for (const name of names) byName.set(name, code);
}

/** A code in the API's form; a fully qualified code (with FE0F) names the same emoji. */
export function normalizeEmojiCode(code: string): string {
	return code.toLowerCase().replace(/-fe0f/g, "");
}

/** The code for an emoji name or alias ("smile" -> "1f642", "thumbs_up" -> "1f44d"), or undefined. */
export function emojiCode(name: string): string | undefined {
	return byName.get(name);
}

/** The names an emoji code is known by (the first is its canonical name). */
export function emojiNames(code: string): string[] | undefined {
	return namesByCode.get(normalizeEmojiCode(code));
}

/** The emoji itself, as text. */
export function emojiText(code: string): string {
	return String.fromCodePoint(...code.split("-").map((h) => parseInt(h, 16)));
}

/** Every emoji code in the table, in its order. */
export function allEmojiCodes(): string[] {
	return [...namesByCode.keys()];
}
