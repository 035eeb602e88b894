// GET /messages: anchors, windows before and after them, and narrows, over either a channel's
// whole history (where the caller may read it) or the caller's own received messages.
import { topicFromClient } from "../../shared/topics";
import { SEARCH_INDEX, searchFilter } from "./search";
import type { Identity, TopicPolicies } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { MessagesDb } from "./db";
import { rawFind } from "../../shared/db";
import { badNarrow, CONVERSATION_OPERATORS, namesConversation, type Term } from "./narrow";
import { accessibleMessage } from "./access";
import type { Resolvers } from "./resolvers";
import type { Model } from "mongoose";
import type { MessageDoc } from "./models/message";
import { VIEW_FIELDS } from "./message-view";

/** What the anchor "newest" stands for (Zulip's LARGER_THAN_MAX_MESSAGE_ID). */
export const NEWEST = 10_000_000_000_000_000;
export const MAX_MESSAGES = 5000;

/**
 * GET /messages and POST /messages/flags/narrow (as Zulip): a window reaching both ways around
 * its anchor must include the anchor.
 */
export function checkAnchorExclusion(numBefore: number, numAfter: number, includeAnchor: boolean | undefined): void {
	if (numBefore > 0 && numAfter > 0 && includeAnchor === false) throw badRequest("The anchor can only be excluded at an end of the range");
}

export interface FetchParams {
	anchor?: number | string;
	num_before?: number;
	num_after?: number;
	include_anchor?: boolean;
	use_first_unread_anchor?: boolean;
	message_ids?: number[];
	/**
	 * Only the caller's own rows, never a channel's history, even where the caller may read it
	 * (GET /messages/matches_narrow, as Zulip's messages_in_narrow_backend reads zerver_usermessage).
	 */
	received_only?: boolean;
	/**
	 * Also give the messages themselves (their VIEW_FIELDS) where the window reads them anyway (a
	 * channel's history, unjoined), so GET /messages does not read them a second time.
	 */
	docs?: boolean;
}

interface Plan {
	/** Query the channel's messages (whole history) rather than the caller's received rows. */
	channelHistory: boolean;
	/** Conditions on user_messages (personal history) or messages (channel history). */
	rows: Record<string, unknown>;
	messages: Record<string, unknown>;
	/** A direct-message conversation to narrow to, by its recipient key. */
	dm?: { key: string; negated: boolean };
	/** Direct conversations including this user (dm-including), or only group ones (group-pm-with). */
	dmIncluding?: { userId: number; negated: boolean; groupsOnly: boolean };
	/** Keyword search: a filter on messages, and whether any term is positive (can use the index). */
	search?: { filter: Record<string, unknown>; positive: boolean };
	/** near: an anchor given inside the narrow. */
	near?: number;
	/** The narrow names a channel (first_unread then skips muted topics only, not muted channels). */
	channelNamed: boolean;
	/** has:reaction (true), its negation (false), or both at once (null: nothing matches). */
	hasReaction?: boolean | null;
	/** The names of the channels looked up as readable by the caller. */
	channelNames: Map<number, string>;
}

/**
 * Zulip's check_not_both_channel_and_dm_narrow: terms that only channel messages pass beside terms
 * that only direct messages pass find nothing, and are refused. Negated terms do not count, but
 * a negated is:dm names channel messages.
 */
function checkChannelOrDm(terms: Term[]): void {
	const isDm = (t: Term) => t.operator === "is" && (t.operand === "dm" || t.operand === "private");
	const channel = terms.some((t) => (!t.negated && ["channel", "channels", "topic"].includes(t.operator)) || (t.negated && isDm(t)));
	const dm = terms.some((t) => !t.negated && (["dm", "dm-including", "group-pm-with"].includes(t.operator) || isDm(t)));
	if (channel && dm) throw badNarrow("No message can be both a channel message and direct message");
}

/** A value as Python's str() writes it, for Zulip's messages that quote an operand ("[1, 2]"). */
function pythonStr(v: unknown): string {
	return Array.isArray(v) ? `[${v.map((x) => (typeof x === "string" ? `'${x}'` : String(x))).join(", ")}]` : String(v);
}

async function plan(actor: Identity, terms: Term[], r: Resolvers): Promise<Plan> {
	const rows: Record<string, unknown> = { user_id: actor.user_id };
	const messages: Record<string, unknown> = {};
	const and = (field: string, value: unknown, negated: boolean, both = true) => {
		const cond = negated ? { $ne: value } : value;
		rows[field] = cond;
		if (both) messages[field] = cond;
	};
	let channelId: number | undefined;
	let dm: Plan["dm"];
	let dmIncluding: Plan["dmIncluding"];
	let publicChannels = false;
	const searches: Array<Record<string, unknown>> = [];
	let positiveSearch = false;
	let hasReaction: boolean | null | undefined;
	let near: number | undefined;

	checkChannelOrDm(terms);
	for (const t of terms) {
		switch (t.operator) {
			case "channel": {
				// As Zulip: an integer is the channel's ID, a string its name (digits too).
				let id = typeof t.operand === "number" ? t.operand : undefined;
				if (typeof t.operand === "string") id = (await r.channelIds([t.operand])).get(t.operand.trim().toLowerCase());
				if (id === undefined) throw badNarrow(`unknown channel ${String(t.operand)}`);
				and("channel_id", id, t.negated);
				if (!t.negated) channelId = id;
				break;
			}
			case "topic": {
				const topic = topicFromClient(t.operand as string, await r.emptyTopicName());
				and("topic_key", topic.toLowerCase(), t.negated);
				break;
			}
			case "sender": {
				// As Zulip: an integer is a user ID, a string an email (digits too).
				const [id] = await r.userIds([t.operand as number | string]).catch(() => {
					throw badNarrow(`unknown user ${String(t.operand)}`);
				});
				and("sender_id", id, t.negated);
				break;
			}
			case "dm": {
				// Zulip's by_dm: a string is one email or several, comma-separated; a list, user IDs.
				const refs = typeof t.operand === "string" ? t.operand.split(",") : (t.operand as number[]);
				const ids = await r.userIds(refs).catch(() => {
					throw badNarrow(`unknown user in ${pythonStr(t.operand)}`);
				});
				dm = { key: `dm:${[...new Set([actor.user_id, ...ids])].sort((a, b) => a - b).join(",")}`, negated: t.negated };
				break;
			}
			case "is": {
				const v = t.operand as string;
				if (v === "dm" || v === "private") and("channel_id", null, t.negated, false);
				else if (v === "unread") rows.flags = t.negated ? "read" : { $ne: "read" };
				else if (v === "starred") rows.flags = t.negated ? { $ne: "starred" } : "starred";
				else if (v === "mentioned") rows.flags = t.negated ? { $ne: "mentioned" } : "mentioned";
				else if (v === "alerted") rows.flags = t.negated ? { $ne: "has_alert_word" } : "has_alert_word";
				else if (v === "muted" || v === "followed") {
					const policies = await r.topicPolicies();
					const matches = v === "followed" ? topicsWithPolicy(policies, FOLLOWED) : mutedConditions(policies, true);
					const cond = matches.length ? { [t.negated ? "$nor" : "$or"]: matches } : t.negated ? {} : { _id: null };
					rows.$and = [...((rows.$and as unknown[]) ?? []), cond];
				} else if (v === "resolved") {
					// Resolved topics start with "✔ "; the anchored pattern can use the topic index.
					const cond = t.negated ? { $not: /^✔ / } : { $regex: /^✔ / };
					rows.topic_key = cond;
					messages.topic_key = cond;
				}
				break;
			}
			case "channels": {
				const ids = await r.publicChannelIds();
				and("channel_id", t.negated ? { $nin: ids } : { $in: ids }, false);
				if (!t.negated) publicChannels = true;
				break;
			}
			case "dm-including":
			case "group-pm-with": {
				const [id] = await r.userIds([t.operand as number | string]).catch(() => {
					throw badNarrow(`unknown user ${String(t.operand)}`);
				});
				dmIncluding = { userId: id, negated: t.negated, groupsOnly: t.operator === "group-pm-with" };
				break;
			}
			case "has":
				// Reactions live in their own collection; the other kinds are copied onto messages and rows.
				// Asking for both has:reaction and its negation finds nothing (null).
				if (t.operand === "reaction") hasReaction = hasReaction === undefined || hasReaction === !t.negated ? !t.negated : null;
				else and(`has_${t.operand as string}`, true, t.negated);
				break;
			case "search": {
				// Decision: a search with no word in it (only punctuation) finds nothing.
				const filter = searchFilter(t.search!) ?? { _id: null };
				searches.push(t.negated ? { $nor: [filter] } : filter);
				positiveSearch ||= !t.negated;
				break;
			}
			case "near":
				near = Number(t.operand);
				break;
			case "id": {
				const id = Number(t.operand);
				rows.message_id = t.negated ? { $ne: id } : id;
				messages._id = t.negated ? { $ne: id } : id;
				break;
			}
		}
	}

	// Channel history is searched when the narrow names one channel whose history the caller may
	// read, or all public channels; flags and conversations live in the caller's own rows.
	const personalOnly = "flags" in rows || "$and" in rows || dm !== undefined || dmIncluding !== undefined;
	let channelHistory = false;
	const channelNames = new Map<number, string>();
	if (!personalOnly && publicChannels) {
		channelHistory = true;
		messages.channel_id = rows.channel_id;
	} else if (channelId !== undefined && !personalOnly) {
		const [readable] = await r.readable([channelId]);
		channelHistory = !!readable && readable.history_public_to_subscribers;
		if (readable) channelNames.set(readable.channel_id, readable.name);
	}
	const search = searches.length ? { filter: { $and: searches }, positive: positiveSearch } : undefined;
	return { channelHistory, rows, messages, dm, dmIncluding, search, near, channelNamed: channelId !== undefined, hasReaction, channelNames };
}

export interface FetchResult {
	/** Message IDs in ascending order, with the caller's flags. */
	ids: number[];
	flags: Map<number, string[]>;
	/** With `docs`: the messages the window read, by ID (some or all of `ids`). */
	docs: Map<number, MessageDoc>;
	/** The names of channels the narrow had looked up (readable by the caller), for message objects. */
	channelNames: Map<number, string>;
	anchor?: number;
	found_anchor: boolean;
	found_oldest: boolean;
	found_newest: boolean;
	history_limited: boolean;
}

/**
 * `with`: the conversation a message is in now (it may have moved), in place of the narrow's own
 * channel, topic and dm terms. A message the caller cannot see is ignored when the narrow names a
 * conversation by itself, and refused otherwise (Zulip's rules).
 */
async function applyWith(db: MessagesDb, actor: Identity, terms: Term[], r: Resolvers): Promise<Term[]> {
	const term = terms.find((t) => t.operator === "with");
	if (!term) return terms;
	const rest = terms.filter((t) => t !== term);
	const id = Number(term.operand);
	const m = await accessibleMessage(db, actor.user_id, id, r.readable).catch(() => null);
	if (!m) {
		if (namesConversation(rest)) return rest;
		throw badNarrow("Invalid 'with' operator");
	}
	const conversation: Term[] =
		m.channel_id !== null
			? [
					{ operator: "channel", operand: m.channel_id, negated: false },
					// The stored topic: the empty topic is "", which the topic term reads as itself.
					{ operator: "topic", operand: m.topic, negated: false },
				]
			: [{ operator: "dm", operand: m.dm_user_ids, negated: false }];
	return [...conversation, ...rest.filter((t) => !CONVERSATION_OPERATORS.has(t.operator))];
}

export async function fetchMessages(db: MessagesDb, actor: Identity, terms: Term[], q: FetchParams, r: Resolvers): Promise<FetchResult> {
	const p = await plan(actor, await applyWith(db, actor, terms, r), r);
	if (q.received_only) p.channelHistory = false;
	// A direct-message narrow names a conversation: its recipient ID, if it has one yet.
	if (p.dm) {
		const rec = await db.Recipient.findOne({ key: p.dm.key }).lean();
		if (!rec && !p.dm.negated) return emptyResult(q);
		if (rec) p.rows.recipient_id = p.dm.negated ? { $ne: rec._id } : rec._id;
	}
	// dm-including: every direct conversation whose participants include both users.
	if (p.dmIncluding) {
		// group-pm-with (Zulip's by_group_pm_with): only conversations of three or more.
		const found = await db.Recipient.find({ user_ids: { $all: [actor.user_id, p.dmIncluding.userId] } }, { _id: 1, user_ids: 1 }).lean();
		const ids = found.filter((k) => !p.dmIncluding!.groupsOnly || k.user_ids.length > 2).map((k) => k._id);
		p.rows.recipient_id = p.dmIncluding.negated ? { $nin: ids } : { $in: ids };
		if (!p.dmIncluding.negated) p.rows.channel_id = null;
	}

	if (p.near !== undefined && !q.message_ids) q = { ...q, anchor: p.near };

	const docs = new Map<number, MessageDoc>();
	const { ids, personal } = windowsFor(db, p, q.docs ? docs : undefined);

	let result: FetchResult;
	if (q.message_ids) {
		const found = await ids({ $in: q.message_ids }, 1, q.message_ids.length);
		result = { ids: found, flags: new Map(), docs, channelNames: p.channelNames, found_anchor: false, found_oldest: false, found_newest: false, history_limited: false };
	} else {
		const numBefore = q.num_before!;
		const numAfter = q.num_after!;
		let anchor = parseAnchor(q);
		if (anchor === "first_unread") {
			// Unread messages are always the caller's own, so their rows are searched even in channel
			// history. Muted topics are skipped, and muted channels unless the narrow names one.
			const muted = mutedConditions(await r.topicPolicies(), !p.channelNamed);
			const [unread] = await personal(both(p.rows, { flags: { $ne: "read" }, ...(muted.length ? { $nor: muted } : {}) }))({ $gte: 0 }, 1, 1);
			anchor = unread ?? NEWEST;
		}

		const includeAnchor = q.include_anchor ?? true;
		const [before, at, after] = await Promise.all([
			ids({ $lt: anchor }, -1, numBefore),
			includeAnchor && anchor > 0 && anchor < NEWEST ? ids({ $eq: anchor }, 1, 1) : Promise.resolve([]),
			ids({ $gt: anchor }, 1, numAfter),
		]);
		result = {
			ids: [...before.reverse(), ...at, ...after],
			flags: new Map(),
			docs,
			channelNames: p.channelNames,
			anchor,
			found_anchor: at.length === 1,
			found_oldest: before.length < numBefore || anchor === 0,
			found_newest: after.length < numAfter || anchor === NEWEST,
			history_limited: false,
		};
	}

	// The caller's flags; a message seen through channel history but never received is "historical".
	const rows = await rawFind<{ message_id: number; flags: string[] }>(db.UserMessage, { user_id: actor.user_id, message_id: { $in: result.ids } }, { projection: { message_id: 1, flags: 1 } });
	const flags = new Map(rows.map((row) => [row.message_id, row.flags]));
	for (const id of result.ids) result.flags.set(id, flags.get(id) ?? ["read", "historical"]);
	return result;
}

type Filter = Record<string, unknown>;

const MUTED = 1;
const UNMUTED = 2;
const FOLLOWED = 3;
const topicsWithPolicy = (policies: TopicPolicies, policy: number) =>
	policies.topics.filter((t) => t.visibility_policy === policy).map((t) => ({ channel_id: t.channel_id, topic_key: t.topic_key }));

/**
 * Conditions, any of which makes a message muted for the caller: a muted topic, and (with
 * `channels`) a muted channel's topic that is not unmuted or followed.
 */
function mutedConditions(policies: TopicPolicies, channels: boolean): Filter[] {
	const out: Filter[] = topicsWithPolicy(policies, MUTED);
	if (channels && policies.muted_channel_ids.length) {
		const visible = [...topicsWithPolicy(policies, UNMUTED), ...topicsWithPolicy(policies, FOLLOWED)];
		out.push({ channel_id: { $in: policies.muted_channel_ids }, ...(visible.length ? { $nor: visible } : {}) });
	}
	return out;
}
/** Message IDs matching a narrow beyond a bound on the ID field, in one direction, up to a limit. */
export type Window = (cond: Filter, dir: 1 | -1, limit: number) => Promise<number[]>;
type Found = Record<string, any>;

/**
 * Both filters. Kept flat where their fields differ, so the query reads as written; `$and` only
 * where both name one field (MongoDB and the embedded store merge `$and` members alike).
 */
const both = (a: Filter, b: Filter): Filter => (Object.keys(b).some((k) => k in a) ? { $and: [a, b] } : { ...a, ...b });

/**
 * The window over one collection's ID field (indexes serve the filter with the ID as sort). With
 * `hint`, that index serves it: a planner scoring indexes by the fields they pin may otherwise
 * take a channel's index for a search, and walk the channel instead of the matches.
 */
function window(model: Model<any>, field: string, filter: Filter, hint?: object, sink?: Map<number, MessageDoc>): Window {
	return async (cond, dir, limit) => {
		if (limit <= 0) return [];
		const docs = await rawFind<Found>(model, both(filter, { [field]: cond }), { projection: sink ? VIEW_FIELDS : { [field]: 1 }, sort: { [field]: dir }, limit, hint });
		if (sink) for (const d of docs) sink.set(d._id as number, d as MessageDoc);
		return docs.map((d) => d[field] as number);
	};
}

/** Messages matching a positive search, newest or oldest first, from the search index. */
const searchWindow = (db: MessagesDb, messages: Filter, search: Filter, sink?: Map<number, MessageDoc>) => window(db.Message, "_id", both(messages, search), SEARCH_INDEX, sink);

async function idSet(model: Model<any>, field: string, filter: Filter): Promise<Set<number>> {
	const docs = await rawFind<Found>(model, filter, { projection: { [field]: 1 } });
	return new Set(docs.map((d) => d[field] as number));
}

const JOIN_PAGE = 1000;

/** The IDs `lead` yields that `keep` accepts, read a page at a time until the limit is reached. */
/** Which of a page of IDs pass a condition another collection answers. */
type Check = (ids: number[]) => Promise<Set<number>>;

/** The IDs every check passes (each check sees only the survivors of the ones before). */
function allOf(checks: Check[]): Check {
	return async (ids) => {
		let left = ids;
		for (const check of checks) {
			if (!left.length) break;
			const passed = await check(left);
			left = left.filter((id) => passed.has(id));
		}
		return new Set(left);
	};
}

export function joined(lead: Window, keep: Check, pageSize = JOIN_PAGE): Window {
	return async (cond, dir, limit) => {
		const out: number[] = [];
		let bound = cond;
		while (out.length < limit) {
			const page = await lead(bound, dir, pageSize);
			const kept = await keep(page);
			out.push(...page.filter((id) => kept.has(id)).slice(0, limit - out.length));
			if (page.length < pageSize) break;
			// Each page starts past the last; that bound is stricter than the window's own in its direction.
			bound = { ...cond, [dir === 1 ? "$gt" : "$lt"]: page[page.length - 1] };
		}
		return out;
	};
}

/**
 * The windows a narrow is read through. Channel history reads the channel's messages; otherwise
 * the caller's own rows are read (`personal`, also used for first_unread). What another
 * collection answers is checked a page at a time (joined): a keyword search is led by its index
 * when a keyword is searched for, and checked against the rows; otherwise the rows lead and the
 * messages are checked. has:reaction is checked against the reactions.
 */
function windowsFor(db: MessagesDb, p: Plan, sink?: Map<number, MessageDoc>): { ids: Window; personal: (rows: Filter) => Window } {
	const search = p.search;
	const reactions: Check | undefined =
		p.hasReaction === undefined
			? undefined
			: async (ids) => {
					if (p.hasReaction === null) return new Set<number>();
					const reacted = new Set<number>(await db.Reaction.distinct("message_id", { message_id: { $in: ids } }));
					return new Set(ids.filter((id) => reacted.has(id) === p.hasReaction));
				};
	const led = (lead: Window, checks: Array<Check | undefined>): Window => {
		const present = checks.filter((c): c is Check => c !== undefined);
		return present.length ? joined(lead, allOf(present)) : lead;
	};
	const personal = (rows: Filter): Window => {
		const rowsHave: Check = (ids) => idSet(db.UserMessage, "message_id", both(rows, { message_id: { $in: ids } }));
		if (search?.positive) return led(searchWindow(db, p.messages, search.filter), [rowsHave, reactions]);
		const messagesMatch: Check | undefined = search && ((ids) => idSet(db.Message, "_id", both({ _id: { $in: ids } }, search.filter)));
		return led(window(db.UserMessage, "message_id", rows), [messagesMatch, reactions]);
	};
	// Unjoined, the history window reads just the page's messages: it reads their VIEW_FIELDS too (sink).
	const keep = reactions ? undefined : sink;
	const history = !search
		? window(db.Message, "_id", p.messages, undefined, keep)
		: search.positive
			? searchWindow(db, p.messages, search.filter, keep)
			: window(db.Message, "_id", both(p.messages, search.filter), undefined, keep);
	const ids = p.channelHistory ? led(history, [reactions]) : personal(p.rows);
	return { ids, personal };
}

/** The anchor as a message ID, or first_unread (to be looked up); Zulip's parse_anchor_value. */
function parseAnchor(q: FetchParams): number | "first_unread" {
	const raw = q.use_first_unread_anchor ? "first_unread" : q.anchor;
	if (raw === "newest") return NEWEST;
	if (raw === "oldest") return 0;
	if (raw === "first_unread") return raw;
	// As Zulip: below zero reads as the oldest, beyond the largest ID as the newest.
	if (typeof raw === "number" || (typeof raw === "string" && /^-?\d+$/.test(raw))) return Math.min(Math.max(Number(raw), 0), NEWEST);
	throw badRequest(`Invalid anchor`);
}

/** A narrow nothing can match: the anchor as asked (first_unread, with nothing unread, is the newest). */
function emptyResult(q: FetchParams): FetchResult {
	if (q.message_ids) return { ids: [], flags: new Map(), docs: new Map(), channelNames: new Map(), found_anchor: false, found_oldest: true, found_newest: true, history_limited: false };
	const anchor = parseAnchor(q);
	return { ids: [], flags: new Map(), docs: new Map(), channelNames: new Map(), anchor: anchor === "first_unread" ? NEWEST : anchor, found_anchor: false, found_oldest: true, found_newest: true, history_limited: false };
}
