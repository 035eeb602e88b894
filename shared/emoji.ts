// Unicode emoji names and codepoints, from iamcal's emoji data (the `emoji-datasource` package,
// as Zulip uses). Codes are the API's form: lowercase hex codepoints joined by dashes, without
// the variation selector FE0F (as Zulip writes them: heart is "2764", not "2764-fe0f").
import data from "emoji-datasource/emoji.json";

interface Entry {
	unified: string;
	short_names: string[];
}

const byName = new Map<string, string>();
const namesByCode = new Map<string, string[]>();

for (const e of data as Entry[]) {
	const code = normalizeEmojiCode(e.unified);
	namesByCode.set(code, e.short_names);
	for (const name of e.short_names) byName.set(name, code);
}

/** A code in the API's form; a fully qualified code (with FE0F) names the same emoji. */
export function normalizeEmojiCode(code: string): string {
	return code.toLowerCase().replace(/-fe0f/g, "");
}

/** The code for an emoji name ("smile" -> "1f604"), or undefined. */
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
