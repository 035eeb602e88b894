// GET /messages: anchors, windows before and after them, and narrows, over either a channel's
// whole history (where the caller may read it) or the caller's own received messages.
import { topicFromClient } from "../../shared/topics";
import { escapeRegExp } from "../../shared/regexp";
import type { Identity, TopicPolicies } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { MessagesDb } from "./db";
import { badNarrow, type Term } from "./narrow";

/** What the anchor "newest" stands for (Zulip's LARGER_THAN_MAX_MESSAGE_ID). */
export const NEWEST = 10_000_000_000_000_000;
export const MAX_MESSAGES = 5000;

/** Lookups in other services, provided by the service so this module stays free of the bus. */
export interface Resolvers {
	channelIds(names: string[]): Promise<Record<string, number>>;
	userIds(refs: Array<number | string>): Promise<number[]>;
	/** Channels the caller may read, with whether their whole history is open to subscribers. */
	readable(channelIds: number[]): Promise<Array<{ channel_id: number; history_public_to_subscribers: boolean; subscribed: boolean }>>;
	emptyTopicName(): Promise<string>;
	/** Public channels whose history the caller may read (channels:public). */
	publicChannelIds(): Promise<number[]>;
	/** The caller's muted channels and per-topic visibility policies (1 muted, 2 unmuted, 3 followed). */
	topicPolicies(): Promise<TopicPolicies>;
}

export interface FetchParams {
	anchor?: number | string;
	num_before?: number;
	num_after?: number;
	include_anchor?: boolean;
	use_first_unread_anchor?: boolean;
	message_ids?: number[];
}

interface Plan {
	/** Query the channel's messages (whole history) rather than the caller's received rows. */
	channelHistory: boolean;
	/** Conditions on user_messages (personal history) or messages (channel history). */
	rows: Record<string, unknown>;
	messages: Record<string, unknown>;
	/** A direct-message conversation to narrow to, by its recipient key. */
	dm?: { key: string; negated: boolean };
	/** Direct conversations including this user (dm-including). */
	dmIncluding?: { userId: number; negated: boolean };
	/** Keywords every match must contain (search). */
	search?: string[];
	/** near: an anchor given inside the narrow. */
	near?: number;
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
	const search: string[] = [];
	let near: number | undefined;

	for (const t of terms) {
		switch (t.operator) {
			case "channel": {
				let id = typeof t.operand === "number" ? t.operand : typeof t.operand === "string" && /^\d+$/.test(t.operand) ? Number(t.operand) : undefined;
				if (id === undefined) {
					if (typeof t.operand !== "string") throw badNarrow("channel must be an ID or a name");
					id = (await r.channelIds([t.operand]))[t.operand.trim().toLowerCase()];
					if (id === undefined) throw badNarrow(`unknown channel '${t.operand}'`);
				}
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
				const ref = typeof t.operand === "string" && /^\d+$/.test(t.operand) ? Number(t.operand) : t.operand;
				if (typeof ref !== "number" && typeof ref !== "string") throw badNarrow("sender must be a user ID or an email");
				const [id] = await r.userIds([ref]).catch(() => {
					throw badNarrow("unknown user");
				});
				and("sender_id", id, t.negated);
				break;
			}
			case "dm": {
				const refs = Array.isArray(t.operand) ? t.operand : typeof t.operand === "string" ? t.operand.split(",").map((s) => s.trim()) : [t.operand];
				const ids = await r.userIds(refs as Array<number | string>).catch(() => {
					throw badNarrow("unknown user");
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
					const { muted_channel_ids, topics } = await r.topicPolicies();
					const pick = (policy: number) => topics.filter((t) => t.visibility_policy === policy).map((t) => ({ channel_id: t.channel_id, topic_key: t.topic_key }));
					// Muted: a muted topic, or a muted channel's topic that is not unmuted. Followed: a followed topic.
					const matches =
						v === "followed"
							? pick(3)
							: [...pick(1), ...(muted_channel_ids.length ? [{ channel_id: { $in: muted_channel_ids }, $nor: [{ $or: pick(2).length ? pick(2) : [{ _id: null }] }] }] : [])];
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
			case "dm-including": {
				const ref = typeof t.operand === "string" && /^\d+$/.test(t.operand) ? Number(t.operand) : t.operand;
				const [id] = await r.userIds([ref as number | string]).catch(() => {
					throw badNarrow("unknown user");
				});
				dmIncluding = { userId: id, negated: t.negated };
				break;
			}
			case "has":
				and(`has_${t.operand as string}`, true, t.negated);
				break;
			case "search":
				search.push(...(t.operand as string).toLowerCase().split(/\s+/).filter(Boolean));
				break;
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
	if (!personalOnly && publicChannels) {
		channelHistory = true;
		messages.channel_id = rows.channel_id;
	} else if (channelId !== undefined && !personalOnly) {
		const [readable] = await r.readable([channelId]);
		channelHistory = !!readable && readable.history_public_to_subscribers;
	}
	return { channelHistory, rows, messages, dm, dmIncluding, search: search.length ? search : undefined, near };
}

export interface FetchResult {
	/** Message IDs in ascending order, with the caller's flags. */
	ids: number[];
	flags: Map<number, string[]>;
	anchor?: number;
	found_anchor: boolean;
	found_oldest: boolean;
	found_newest: boolean;
	history_limited: boolean;
}

export async function fetchMessages(db: MessagesDb, actor: Identity, terms: Term[], q: FetchParams, r: Resolvers): Promise<FetchResult> {
	const p = await plan(actor, terms, r);
	// A direct-message narrow names a conversation: its recipient ID, if it has one yet.
	if (p.dm) {
		const rec = await db.Recipient.findOne({ key: p.dm.key }).lean();
		if (!rec && !p.dm.negated) return emptyResult(q);
		if (rec) p.rows.recipient_id = p.dm.negated ? { $ne: rec._id } : rec._id;
	}
	// dm-including: every direct conversation whose participants include both users.
	if (p.dmIncluding) {
		const both = [actor.user_id, p.dmIncluding.userId];
		const keys = await db.Recipient.find({ key: { $regex: /^dm:/ } }).lean();
		const ids = keys.filter((k) => both.every((u) => k.key.slice(3).split(",").includes(String(u)))).map((k) => k._id);
		p.rows.recipient_id = p.dmIncluding.negated ? { $nin: ids } : { $in: ids };
		if (!p.dmIncluding.negated) p.rows.channel_id = null;
	}

	// Keyword search runs over the messages themselves, limited to what the caller may see.
	let useMessages = p.channelHistory;
	let base: Record<string, unknown> = p.channelHistory ? { ...p.messages } : { ...p.rows };
	if (p.search) {
		const words = p.search.map((w) => new RegExp(escapeRegExp(w), "i"));
		const matches = { $and: words.map((w) => ({ $or: [{ content: w }, { topic: w }] })) };
		if (p.channelHistory) base = { $and: [base, matches] };
		else {
			const mine = (await db.UserMessage.find(p.rows, { message_id: 1 }).lean()).map((x) => x.message_id);
			base = { $and: [{ _id: { $in: mine } }, matches] };
			useMessages = true;
		}
	}
	if (p.near !== undefined && !q.message_ids) q = { ...q, anchor: p.near };

	const idField = useMessages ? "_id" : "message_id";
	const model = (useMessages ? db.Message : db.UserMessage) as unknown as {
		find(f: object, proj: object): { sort(s: object): { limit(n: number): { lean(): Promise<Array<Record<string, number>>> } } };
	};
	const ids = async (cond: object, dir: 1 | -1, limit: number): Promise<number[]> => {
		if (limit <= 0) return [];
		// The window's bounds are combined with the narrow's own conditions (which may name an ID).
		const filter = idField in base ? { $and: [base, { [idField]: cond }] } : { ...base, [idField]: cond };
		const docs = await model.find(filter, { [idField]: 1 }).sort({ [idField]: dir }).limit(limit).lean();
		return docs.map((d) => d[idField]);
	};

	let result: FetchResult;
	if (q.message_ids) {
		const found = await ids({ $in: q.message_ids }, 1, q.message_ids.length);
		result = { ids: found, flags: new Map(), found_anchor: false, found_oldest: false, found_newest: false, history_limited: false };
	} else {
		const numBefore = q.num_before!;
		const numAfter = q.num_after!;
		let anchor: number;
		const raw = q.use_first_unread_anchor ? "first_unread" : q.anchor;
		if (raw === "newest") anchor = NEWEST;
		else if (raw === "oldest") anchor = 0;
		else if (raw === "first_unread") {
			const unread = await db.UserMessage.findOne({ ...p.rows, flags: { $ne: "read" } }, { message_id: 1 }).sort({ message_id: 1 }).lean();
			anchor = unread ? unread.message_id : NEWEST;
		} else if (typeof raw === "number" || (typeof raw === "string" && /^\d+$/.test(raw))) anchor = Number(raw);
		else throw badRequest(`Invalid anchor`);

		const includeAnchor = q.include_anchor ?? true;
		const [before, at, after] = await Promise.all([
			ids({ $lt: anchor }, -1, numBefore),
			includeAnchor && anchor > 0 && anchor < NEWEST ? ids({ $eq: anchor }, 1, 1) : Promise.resolve([]),
			ids({ $gt: anchor }, 1, numAfter),
		]);
		result = {
			ids: [...before.reverse(), ...at, ...after],
			flags: new Map(),
			anchor,
			found_anchor: at.length === 1,
			found_oldest: before.length < numBefore || anchor === 0,
			found_newest: after.length < numAfter || anchor === NEWEST,
			history_limited: false,
		};
	}

	// The caller's flags; a message seen through channel history but never received is "historical".
	const rows = await db.UserMessage.find({ user_id: actor.user_id, message_id: { $in: result.ids } }, { message_id: 1, flags: 1 }).lean();
	const flags = new Map(rows.map((row) => [row.message_id, row.flags]));
	for (const id of result.ids) result.flags.set(id, flags.get(id) ?? ["read", "historical"]);
	return result;
}


function emptyResult(q: FetchParams): FetchResult {
	return { ids: [], flags: new Map(), anchor: q.message_ids ? undefined : 0, found_anchor: false, found_oldest: true, found_newest: true, history_limited: false };
}
