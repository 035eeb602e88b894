// HTML some tools put in their payloads, as text: what Python's HTMLParser hands to handle_data
// (Zulip's strip_tags): tags and comments dropped, character references decoded.
import { decodeHTML } from "entities";

export function stripTags(html: string): string {
	return decodeHTML(html.replace(/<!--[\s\S]*?(-->|$)/g, "").replace(/<[a-zA-Z/!?][^>]*>/g, ""));
}

/** Python's textwrap.wrap(text, width): greedy, words longer than a line kept whole on their own. */
function wrap(text: string, width: number): string {
	const lines: string[] = [];
	let line = "";
	for (const word of text.split(" ").filter((w) => w !== "")) {
		if (line && line.length + 1 + word.length > width) {
			lines.push(line);
			line = word;
		} else line = line ? `${line} ${word}` : word;
	}
	if (line) lines.push(line);
	return lines.join("\n");
}

/**
 * HTML descriptions as Zulip's convert_html_to_markdown renders them with html2text, for what
 * ticketing tools send: paragraphs (`div`, `p`) wrapped at 78 columns, line breaks, links and
 * images, an image's query string dropped and its file name as the link text. Other markup is
 * reduced to its text.
 */
export function htmlToMarkdown(html: string): string {
	const inline = (fragment: string) =>
		fragment
			.replace(/<!--[\s\S]*?(-->|$)/g, "")
			.replace(/<img\b[^>]*?\bsrc="([^"]*)"[^>]*>/gi, (_, src: string) => `\u0000![](${decodeHTML(src)})\u0000`)
			.replace(/<a\b[^>]*?\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_, href: string, text: string) => `\u0000[${decodeHTML(stripTagsRaw(text)).trim()}](${decodeHTML(href)})\u0000`)
			.replace(/<br\s*\/?>/gi, "\u0001")
			.replace(/<[a-zA-Z/!?][^>]*>/g, "");
	const blocks = html.split(/<\/?(?:div|p)\b[^>]*>/i).map((block) =>
		inline(block)
			.split("\u0001")
			.map((part) => wrap(decodeHTML(part).replace(/\s+/g, " ").replace(/\u0000/g, ""), 78))
			.join("  \n")
			.replace(/\n+$/, ""),
	);
	const markdown = blocks.filter((b) => b !== "").join("\n\n").trim();
	return markdown.replace(/!\[\]\((\S*)\/(\S*)\?(\S*)\)/g, "[$2]($1/$2)");
}

const stripTagsRaw = (html: string) => html.replace(/<[a-zA-Z/!?][^>]*>/g, "");
