// Keyword search (the `search` narrow). Each message stores the stems of its words, the rendered
// content's in `search_words` and the topic's in `topic_words` (kept apart so a topic move rewrites
// only the topic's), behind multikey indexes. A query matches a message holding every stem of its
// keywords in either field; a quoted phrase must also appear as written.
//
// Decisions: words are runs of letters and digits, lowercased and reduced by the Porter2 English
// stemmer (the stemmer Zulip's PostgreSQL search uses), so "running" finds "runs". Unlike
// PostgreSQL, no stop words are dropped: every word, "the" included, can be searched.
import stem from "wink-porter2-stemmer";
import { decodeHTML } from "entities";
import { escapeHtml } from "../../shared/html";
import { escapeRegExp } from "../../shared/regexp";

const WORD = /[\p{L}\p{N}]+/gu;

const stemOf = (word: string) => stem(word.toLowerCase());

/** The distinct stems of a text's words. */
export function stems(text: string): string[] {
	return [...new Set(Array.from(text.matchAll(WORD), (m) => stemOf(m[0])))];
}

/** The stems a message's rendered content is searched by (its text, tags left out). */
export function contentWords(html: string): string[] {
	return stems(decodeHTML(html.replace(/<[^>]*>/g, " ")));
}

export const topicWords = stems;

export interface SearchQuery {
	/** Every stem the message must hold. */
	stems: string[];
	/** Quoted phrases, which must also appear as written (case aside). */
	phrases: string[];
}

/** Keywords and "quoted phrases" of a search operand. */
export function parseSearch(operand: string): SearchQuery {
	const phrases: string[] = [];
	const rest = operand.replace(/"([^"]*)"/g, (_, phrase: string) => {
		if (phrase.trim()) phrases.push(phrase.trim());
		return " ";
	});
	return { stems: stems(rest + " " + phrases.join(" ")), phrases };
}

/** A filter on messages matching the query; null when it holds no word at all (matches all). */
export function searchFilter(q: SearchQuery): Record<string, unknown> | null {
	const conds: object[] = q.stems.map((s) => ({ $or: [{ search_words: s }, { topic_words: s }] }));
	for (const phrase of q.phrases) {
		const re = new RegExp(phrase.split(/\s+/).map(escapeRegExp).join("\\s+"), "i");
		conds.push({ $or: [{ content: re }, { topic: re }] });
	}
	return conds.length ? { $and: conds } : null;
}

/**
 * Wraps each word of `html` whose stem was searched for in Zulip's highlight span. Only text is
 * touched: tags and character references are left whole.
 */
export function highlight(html: string, queries: SearchQuery[]): string {
	const wanted = new Set(queries.flatMap((q) => q.stems));
	return html
		.split(/(<[^>]*>|&#?\w+;)/)
		.map((part, i) => (i % 2 ? part : part.replace(WORD, (w) => (wanted.has(stemOf(w)) ? `<span class="highlight">${w}</span>` : w))))
		.join("");
}

/** The topic, HTML-escaped, with its searched words highlighted (`match_subject`). */
export const highlightTopic = (topic: string, queries: SearchQuery[]) => highlight(escapeHtml(topic), queries);
