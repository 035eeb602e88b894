// Narrows: parsing the `narrow` parameter and turning its terms into store filters.
import { apiError, badRequest } from "../../shared/errors";
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

/**
 * Zulip's legacy operator names (NarrowBuilder's by_method_map), mapped to the current ones.
 * Zulip reads underscores only in these two (`dm_including` is unknown there, and here).
 * `group-pm-with` is kept apart: group conversations only, unlike `dm-including`.
 */
const ALIASES = new Map(Object.entries({ stream: "channel", streams: "channels", "pm-with": "dm", pm_with: "dm", group_pm_with: "group-pm-with" }));
const OPERATORS = new Set(["channel", "channels", "topic", "sender", "dm", "dm-including", "group-pm-with", "is", "in", "id", "near", "with", "has", "search"]);
const HAS_OPERANDS = new Set(["link", "image", "attachment", "reaction"]);
const IS_OPERANDS = new Set(["dm", "private", "unread", "starred", "mentioned", "alerted", "resolved", "muted", "followed"]);

// Zulip's NarrowParameter.validate_terms: the operand's shape by the operator as sent (aliases
// with underscores are not in these lists there, so they take a string only).
const ID_OPERATORS = new Set(["channel", "stream", "id", "sender", "group-pm-with", "dm-including", "with"]);
const IDS_OPERATORS = new Set(["pm-with", "dm"]);

/** Zulip's message for a term that is neither a pair of strings nor an object with both keys. */
const badTerm = (i: number, why: string) => badRequest(`Invalid narrow[${i}]: Value error, ${why}`);

/** One term's operand checked as Zulip's validators check it (check_string_or_int and the others). */
function checkOperand(operator: string, operand: unknown): void {
	if (ID_OPERATORS.has(operator)) {
		if (typeof operand !== "string" && !Number.isInteger(operand)) throw badRequest("operand is not a string or integer");
	} else if (IDS_OPERATORS.has(operator)) {
		if (typeof operand === "string") return;
		if (!Array.isArray(operand)) throw badRequest("operand is not a string or an integer list");
		const i = operand.findIndex((v) => !Number.isInteger(v));
		if (i >= 0) throw badRequest(`operand[${i}] is not an integer`);
	} else if (typeof operand !== "string") throw badRequest("operand is not a string");
	else if (operator === "search" && !operand.trim()) throw badRequest("operand cannot be blank.");
}

/**
 * Accepts objects `{operator, operand, negated}` or `[operator, operand]` pairs of strings, as
 * Zulip's NarrowParameter: every term's shape is checked first (400 BAD_REQUEST with Zulip's
 * messages), then the operators and operands (400 BAD_NARROW).
 */
export function parseNarrow(raw: unknown): Term[] {
	if (raw === undefined || raw === null || raw === "") return [];
	if (!Array.isArray(raw)) throw badNarrow("narrow is not a list");
	if (raw.length > MAX_TERMS) throw badNarrow(`too many terms (limit: ${MAX_TERMS})`);
	const shaped = raw.map((item: unknown, i): { operator: string; operand: unknown; negated: boolean } => {
		let term: { operator: string; operand: unknown; negated: boolean };
		if (Array.isArray(item)) {
			if (item.length !== 2 || item.some((x) => typeof x !== "string")) throw badTerm(i, "element is not a string pair");
			term = { operator: item[0] as string, operand: item[1], negated: false };
		} else if (item && typeof item === "object") {
			const o = item as Record<string, unknown>;
			if (o.operand === undefined || o.operand === null) throw badTerm(i, "operand is missing");
			if (o.operator === undefined || o.operator === null) throw badTerm(i, "operator is missing");
			if (typeof o.operator !== "string") throw badRequest(`narrow[${i}]["operator"] is not a string`);
			if (o.negated !== undefined && typeof o.negated !== "boolean") throw badRequest(`narrow[${i}]["negated"] is not a boolean`);
			term = { operator: o.operator, operand: o.operand, negated: (o.negated as boolean | undefined) ?? false };
		} else throw badTerm(i, "dict or list required");
		checkOperand(term.operator, term.operand);
		return term;
	});
	const terms = shaped.map(({ operator, operand, negated }): Term => {
		if (typeof operand === "string" && operand.length > MAX_OPERAND_LENGTH) throw badNarrow(`operand too long (limit: ${MAX_OPERAND_LENGTH} characters)`);
		const op = ALIASES.get(operator) ?? operator;
		if (!OPERATORS.has(op)) throw badNarrow(`unknown operator ${operator}`);
		if (op === "is" && !IS_OPERANDS.has(operand as string)) throw badNarrow(`unknown 'is' operand ${String(operand)}`);
		if (op === "in" && operand !== "home" && operand !== "all") throw badNarrow(`unknown 'in' operand ${String(operand)}`);
		if (op === "id" && !/^\d+$/.test(String(operand))) throw badNarrow("Invalid message ID");
		if (op === "with" && !/^\d+$/.test(String(operand))) throw badNarrow("Invalid 'with' operator");
		if (op === "near" && !/^\d+$/.test(operand as string)) throw badNarrow("near must be a message ID");
		if (op === "channels" && operand !== "public") throw badNarrow(`unknown channels operand ${String(operand)}`);
		if (op === "has" && !HAS_OPERANDS.has(operand as string)) throw badNarrow(`unknown 'has' operand ${String(operand)}`);
		if (op === "search") {
			const search = parseSearch(operand as string, { words: MAX_SEARCH_WORDS, error: () => badNarrow(`search has too many words (limit: ${MAX_SEARCH_WORDS})`) });
			return { operator: op, operand, negated, search };
		}
		// in:home is every message but the muted ones (Zulip's exclude_muting_conditions), is:muted
		// turned around; in:all narrows nothing, negated or not.
		if (op === "in") return operand === "home" ? { operator: "is", operand: "muted", negated: !negated } : { operator: "in", operand, negated: false };
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
