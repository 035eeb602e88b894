// GET /messages/matches_narrow: which of some messages match a narrow, each with its content and
// topic highlighted as a search narrow highlights them (Zulip's messages_in_narrow_backend).
//
// As Zulip, only the caller's own rows count (a message of a channel whose history the caller may
// read but never received does not match), and the narrow is read by the GET /messages machinery
// (fetch-rules.ts) bounded by the given IDs: the query walks the caller's rows of those IDs, or,
// for a keyword search, the search index at those IDs.
import type { Identity } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { MessagesDb } from "./db";
import { fetchMessages, MAX_MESSAGES } from "./fetch-rules";
import type { Term } from "./narrow";
import type { Resolvers } from "./resolvers";
import { highlight, highlightTopic, stemmer } from "./search";

export interface NarrowMatch {
	match_content: string;
	match_subject: string;
}

/**
 * Decision: at most 5,000 IDs (GET /messages' MAX_MESSAGES_PER_FETCH, with its error), a bound
 * Zulip does not set here; a client asks about the few messages that just arrived.
 */
export function checkMatchIds(ids: number[]): void {
	if (ids.length > MAX_MESSAGES) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES}).`);
}

/** The matching messages by ID (as strings, Zulip's dict keys), in ascending order. */
export async function narrowMatches(db: MessagesDb, actor: Identity, terms: Term[], ids: number[], r: Resolvers): Promise<Record<string, NarrowMatch>> {
	const unique = [...new Set(ids)];
	if (!unique.length) return {};
	const found = await fetchMessages(db, actor, terms, { message_ids: unique, received_only: true }, r);
	const docs = await db.Message.find({ _id: { $in: found.ids } }, { rendered_content: 1, topic: 1 }).sort({ _id: 1 }).lean();
	const searched = terms.filter((t) => t.operator === "search" && !t.negated).map((t) => t.search!);
	const stemOf = stemmer();
	const out: Record<string, NarrowMatch> = {};
	for (const m of docs) {
		out[String(m._id)] = { match_content: highlight(m.rendered_content, searched, stemOf), match_subject: highlightTopic(m.topic, searched, stemOf) };
	}
	return out;
}
