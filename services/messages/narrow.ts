// Narrows: parsing the `narrow` parameter and turning its terms into store filters.
import { apiError } from "../../shared/errors";
import { parseSearch, type SearchQuery } from "./search";

/**
 * Decision: a search names at most 100 distinct words. Each word is a condition of the query, and
 * no person searches with more; the limit keeps a huge operand from becoming a huge query.
 */
export const MAX_SEARCH_WORDS = 100;

/** Decision: a narrow has at most 50 terms; some need a lookup in another service each. */
export const MAX_TERMS = 50;

/**
 * Decision: a string operand is at most 2,000 characters (Zulip sets no limit). Channel names,
 * topics and emails are far shorter; a long direct-message list is sent as user IDs.
 */
export const MAX_OPERAND_LENGTH = 2000;

export interface Term {
	operator: string;
	operand: unknown;
	negated: boolean;
	/** A search term's words, parsed (and stemmed) once. */
	search?: SearchQuery;
}

export const badNarrow = (what: string) => apiError(400, "BAD_NARROW", `Invalid narrow operator: ${what}`);

/** Older names of operators, mapped to the current ones. */
const ALIASES = new Map(Object.entries({ stream: "channel", streams: "channels", subject: "topic", "pm-with": "dm", "group-pm-with": "dm-including" }));
const OPERATORS = new Set(["channel", "channels", "topic", "sender", "dm", "dm-including", "is", "id", "near", "with", "has", "search"]);
const HAS_OPERANDS = new Set(["link", "image", "attachment", "reaction"]);
const IS_OPERANDS = new Set(["dm", "private", "unread", "starred", "mentioned", "alerted", "resolved", "muted", "followed"]);

/** Accepts objects `{operator, operand, negated}` or `[operator, operand]` pairs. */
export function parseNarrow(raw: unknown): Term[] {
	if (raw === undefined || raw === null || raw === "") return [];
	if (!Array.isArray(raw)) throw badNarrow("narrow is not a list");
	if (raw.length > MAX_TERMS) throw badNarrow(`too many terms (limit: ${MAX_TERMS})`);
	const terms = raw.map((item): Term => {
		let operator: unknown;
		let operand: unknown;
		let negated: unknown = false;
		if (Array.isArray(item)) {
			if (item.length !== 2) throw badNarrow("malformed term");
			[operator, operand] = item;
		} else if (item && typeof item === "object") {
			({ operator, operand, negated = false } = item as Record<string, unknown>);
		} else throw badNarrow("malformed term");
		if (typeof operator !== "string" || typeof negated !== "boolean") throw badNarrow("malformed term");
		if (typeof operand === "string" && operand.length > MAX_OPERAND_LENGTH) throw badNarrow(`operand too long (limit: ${MAX_OPERAND_LENGTH} characters)`);
		const op = ALIASES.get(operator) ?? operator;
		if (!OPERATORS.has(op)) throw badNarrow(`unknown operator '${operator}'`);
		if (op === "is" && (typeof operand !== "string" || !IS_OPERANDS.has(operand))) throw badNarrow(`unknown 'is' operand '${String(operand)}'`);
		if (op === "topic" && typeof operand !== "string") throw badNarrow("topic must be a string");
		if (op === "with" && !(Number.isInteger(operand) || (typeof operand === "string" && /^\d+$/.test(operand)))) throw badNarrow("Invalid 'with' operator");
		if ((op === "id" || op === "near") && !(Number.isInteger(operand) || (typeof operand === "string" && /^\d+$/.test(operand)))) throw badNarrow(`${op} must be a message ID`);
		if (op === "channels" && operand !== "public") throw badNarrow(`unknown 'channels' operand '${String(operand)}'`);
		if (op === "has" && (typeof operand !== "string" || !HAS_OPERANDS.has(operand))) throw badNarrow(`unknown 'has' operand '${String(operand)}'`);
		if (op === "search" && (typeof operand !== "string" || !operand.trim())) throw badNarrow("search needs keywords");
		if (op === "search") {
			const search = parseSearch(operand as string, { words: MAX_SEARCH_WORDS, error: () => badNarrow(`search has too many words (limit: ${MAX_SEARCH_WORDS})`) });
			return { operator: op, operand, negated, search };
		}
		return { operator: op, operand, negated };
	});
	if (terms.filter((t) => t.operator === "with").length > 1) throw apiError(400, "BAD_NARROW", "Invalid narrow operator combination: Duplicate 'with' operators.");
	return terms;
}

/** Whether the narrow names one conversation by itself: a direct one, or a channel and a topic. */
export function namesConversation(terms: Term[]): boolean {
	const has = (op: string) => terms.some((t) => t.operator === op);
	return has("dm") || (has("channel") && has("topic"));
}

/** Operators a `with` term replaces with the conversation its message is in now. */
export const CONVERSATION_OPERATORS = new Set(["channel", "topic", "dm"]);
