// Keyword search (the `search` narrow). Each message stores the stems of its words: the rendered
// content's in `search_words`, the topic's in `topic_words` (kept apart so an edit or a move
// replaces one of them), and both together in `words`, behind one multikey index { words, _id }.
// A query matches a message holding every stem of its keywords; a quoted phrase must also appear
// as written. The index is walked newest first from the first stem, so a search reads about as
// many entries as it finds messages, however long the history (fetch-rules.ts names the index).
//
// Decisions: words are runs of letters and digits, lowercased and reduced by the Porter2 English
// stemmer (the stemmer Zulip's PostgreSQL search uses), so "running" finds "runs". Unlike
// PostgreSQL, no stop words are dropped: every word, "the" included, can be searched.
import stem from "wink-porter2-stemmer";
import { decodeHTML } from "entities";
import { escapeHtml } from "../../shared/html";
import { escapeRegExp } from "../../shared/regexp";

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Decision: words longer than this (in UTF-16 units) are neither indexed nor searched, as
 * PostgreSQL ignores words over 2,047 bytes: nobody searches for a base64 blob, and the index
 * stays small.
 */
export const MAX_WORD_LENGTH = 100;
/**
 * Decision: words longer than this are compared lowercased, as written, without stemming. The
 * stemmer's time grows with the square of a word's length (10,000 characters take 0.5 s); up to
 * 64 characters it takes about 0.05 ms, and no English word that long has a suffix worth removing.
 */
export const MAX_STEM_LENGTH = 64;

/** A word's stem (or the word itself, see MAX_STEM_LENGTH), remembering each word it was asked. */
export type Stemmer = (word: string) => string;

/** A stemmer with its own cache: one per request or per text, so each distinct word is stemmed once. */
export function stemmer(): Stemmer {
	const cache = new Map<string, string>();
	return (word) => {
		let s = cache.get(word);
		if (s === undefined) {
			const lower = word.toLowerCase();
			s = lower.length > MAX_STEM_LENGTH ? lower : stem(lower);
			cache.set(word, s);
		}
		return s;
	};
}

/** The distinct words of a text that can be indexed (at most MAX_WORD_LENGTH long), lowercased. */
export function words(text: string): string[] {
	const out = new Set<string>();
	for (const m of text.matchAll(WORD)) if (m[0].length <= MAX_WORD_LENGTH) out.add(m[0].toLowerCase());
	return [...out];
}

/** The distinct stems of a text's words. */
export function stems(text: string, stemOf: Stemmer = stemmer()): string[] {
	return [...new Set(words(text).map(stemOf))];
}

/** The stems a message's rendered content is searched by (its text, tags left out). */
export function contentWords(html: string): string[] {
	return stems(decodeHTML(html.replace(/<[^>]*>/g, " ")));
}

export const topicWords = (topic: string) => stems(topic);

/** What keyword search looks up: the content's stems and the topic's, each once. */
export const allWords = (contentStems: string[], topicStems: string[]) => [...new Set([...contentStems, ...topicStems])];

/** A message's search fields, from its rendered content and its topic. */
export function searchFields(html: string, topic: string): { search_words: string[]; topic_words: string[]; words: string[] } {
	const search_words = contentWords(html);
	const topic_words = topicWords(topic);
	return { search_words, topic_words, words: allWords(search_words, topic_words) };
}

export interface SearchQuery {
	/** Every stem the message must hold. */
	stems: string[];
	/** Quoted phrases, which must also appear as written (case aside). */
	phrases: string[];
}

/**
 * Keywords and "quoted phrases" of a search operand. With a limit, throws its error before any
 * stemming when the operand holds more distinct words than it allows.
 */
export function parseSearch(operand: string, limit?: { words: number; error: () => Error }, stemOf: Stemmer = stemmer()): SearchQuery {
	const phrases: string[] = [];
	const rest = operand.replace(/"([^"]*)"/g, (_, phrase: string) => {
		if (phrase.trim()) phrases.push(phrase.trim());
		return " ";
	});
	const found = words(rest + " " + phrases.join(" "));
	if (limit && found.length > limit.words) throw limit.error();
	return { stems: [...new Set(found.map(stemOf))], phrases };
}

/** The index a search led by its words walks (the messages model declares it). */
export const SEARCH_INDEX = { words: 1, _id: 1 } as const;

/** A filter on messages matching the query; null when it holds no word at all (matches all). */
export function searchFilter(q: SearchQuery): Record<string, unknown> | null {
	const conds: object[] = q.stems.map((s) => ({ words: s }));
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
export function highlight(html: string, queries: SearchQuery[], stemOf: Stemmer = stemmer()): string {
	const wanted = new Set(queries.flatMap((q) => q.stems));
	const matches = (w: string) => w.length <= MAX_WORD_LENGTH && wanted.has(stemOf(w));
	return html
		.split(/(<[^>]*>|&#?\w+;)/)
		.map((part, i) => (i % 2 ? part : part.replace(WORD, (w) => (matches(w) ? `<span class="highlight">${w}</span>` : w))))
		.join("");
}

/** The topic, HTML-escaped, with its searched words highlighted (`match_subject`). */
export const highlightTopic = (topic: string, queries: SearchQuery[], stemOf: Stemmer = stemmer()) => highlight(escapeHtml(topic), queries, stemOf);
