// The organization's linkifiers applied to text: in message content (a link around each match,
// as Zulip renders them) and in topics (`topic_links`). Patterns passed the safe-subset check of
// shared/linkifier-pattern.ts when they were saved; a match must stand alone, as in Zulip: after
// the start, whitespace or one of ' " ( , : < and before the end or a character that is not a
// letter or digit.
import type MarkdownIt from "markdown-it";
import { parse } from "uri-template";
import { translatePattern } from "../linkifier-pattern";
import type { Linkifier } from "../org-events";

export interface CompiledLinkifier {
	regex: RegExp;
	expand: (values: Record<string, unknown>) => string;
}

export interface LinkMatch {
	start: number;
	end: number;
	text: string;
	url: string;
}

/** Compiles the list; an entry that no longer compiles (saved by an older rule) is skipped. */
export function compileLinkifiers(list: Linkifier[]): CompiledLinkifier[] {
	const out: CompiledLinkifier[] = [];
	for (const l of list) {
		try {
			const source = translatePattern(l.pattern);
			const regex = new RegExp(`(?<=^|[\\s'"(,:<])(?:${source})(?=$|[^\\p{L}\\p{N}])`, "gu");
			out.push({ regex, expand: parse(l.url_template).expand });
		} catch {
			/* refused at save time; nothing to apply */
		}
	}
	return out;
}

/**
 * Every match of the linkifiers in this text, by position, none overlapping: where two overlap the
 * earlier linkifier in the organization's order wins, as in Zulip.
 */
export function linkifierMatches(text: string, linkifiers: CompiledLinkifier[]): LinkMatch[] {
	const taken: LinkMatch[] = [];
	for (const l of linkifiers) {
		for (const m of text.matchAll(l.regex)) {
			const start = m.index;
			const end = start + m[0].length;
			if (end === start || taken.some((t) => start < t.end && t.start < end)) continue;
			taken.push({ start, end, text: m[0], url: l.expand({ ...m.groups }) });
		}
	}
	return taken.sort((a, b) => a.start - b.start);
}

/** A markdown-it core rule: text outside links and code becomes links where linkifiers match. */
export function linkifierPlugin(md: MarkdownIt): void {
	md.core.ruler.after("linkify", "zulip_linkifiers", (state) => {
		const linkifiers = (state.env as { linkifiers?: CompiledLinkifier[] }).linkifiers;
		if (!linkifiers?.length) return;
		for (const block of state.tokens) {
			if (block.type !== "inline" || !block.children) continue;
			const children: typeof block.children = [];
			let depth = 0;
			for (const t of block.children) {
				if (t.type === "link_open") depth++;
				if (t.type === "link_close") depth--;
				const matches = depth === 0 && t.type === "text" ? linkifierMatches(t.content, linkifiers) : [];
				if (!matches.length) {
					children.push(t);
					continue;
				}
				let pos = 0;
				const text = (content: string) => {
					const tok = new state.Token("text", "", 0);
					tok.content = content;
					children.push(tok);
				};
				for (const m of matches) {
					if (m.start > pos) text(t.content.slice(pos, m.start));
					const open = new state.Token("link_open", "a", 1);
					open.attrs = [["href", m.url], ["title", m.url]];
					children.push(open);
					text(m.text);
					children.push(new state.Token("link_close", "a", -1));
					pos = m.end;
				}
				if (pos < t.content.length) text(t.content.slice(pos));
			}
			block.children = children;
		}
	});
}

/** The organization's linkifiers as this process last heard of them (one organization per server). */
let current: { list: Linkifier[]; compiled: CompiledLinkifier[] } | null = null;

export function setLinkifiers(list: Linkifier[]): void {
	current = { list, compiled: compileLinkifiers(list) };
}

/** Compiled, or null until they have been loaded. */
export function currentLinkifiers(): CompiledLinkifier[] | null {
	return current?.compiled ?? null;
}
