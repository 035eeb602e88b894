// POST /messages/flags, /messages/flags/narrow, /mark_all_as_read, /mark_stream_as_read and
// /mark_topic_as_read. Each change is announced as messages.flagsChanged for the user's clients.
import { requireUser, type Identity } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { NAME_MAX, TOPIC_PARAM_MAX } from "../../../shared/param-bounds";
import { topicFromClient } from "../../../shared/topics";
import { checkAccess } from "../access";
import { checkAnchorExclusion, fetchMessages, MAX_MESSAGES } from "../fetch-rules";
import { checkFlag, markRead, updateFlags, type FlagOp } from "../flag-rules";
import { parseNarrow } from "../narrow";
import { unreadDetails } from "../unread-details";
import type { Ctx, ServiceDeps } from "./deps";

/** mark_all_as_read stops after this long and answers `complete: false`; the client repeats. */
const MARK_ALL_BUDGET_MS = 20_000;
/**
 * Marking a channel or topic read has no way to report partial work, so it runs to the end: its
 * call may take longer than the broker's usual request timeout on a slow store.
 */
const MARK_IN_CHANNEL_TIMEOUT_MS = 10 * 60_000;

interface FlagParams {
	op: FlagOp;
	flag: string;
}

const flagParams = { op: p.oneOf(["add", "remove"]), flag: p.string({ max: NAME_MAX }) };

export function flagActions({ db, resolvers }: ServiceDeps) {
	/**
	 * Applies a flag change to messages the user names or a narrow selected. Removing `read`
	 * skips messages in channels the user is not subscribed to (an unread message is always in
	 * a subscribed channel) and reports those channels.
	 */
	async function applyChange(ctx: Ctx<any>, actor: Identity, ids: number[], { op, flag }: FlagParams) {
		const r = resolvers(ctx);
		let ignoredChannels: number[] | undefined;
		if (flag === "read" && op === "remove") {
			const inChannels = await db.Message.find({ _id: { $in: ids }, channel_id: { $ne: null } }, { channel_id: 1 }).lean();
			const channelIds = [...new Set(inChannels.map((m) => m.channel_id!))];
			const subscribed = new Set((channelIds.length ? await r.readable(channelIds) : []).filter((c) => c.subscribed).map((c) => c.channel_id));
			ignoredChannels = channelIds.filter((c) => !subscribed.has(c)).sort((a, b) => a - b);
			const skipped = new Set(inChannels.filter((m) => !subscribed.has(m.channel_id!)).map((m) => m._id));
			ids = ids.filter((id) => !skipped.has(id));
		}
		const access = await checkAccess(db, actor.user_id, ids, r.readable);
		const changed = await updateFlags(db, actor.user_id, op, flag, [...access.received], access.unreceived);
		if (changed.length) {
			// Marked unread: the clients need each message's conversation to count it again.
			const details = flag === "read" && op === "remove" ? { message_details: await unreadDetails(db, actor.user_id, changed, r) } : {};
			await ctx.broadcast("messages.flagsChanged", { user_id: actor.user_id, op, flag, message_ids: changed, all: false, ...details });
		}
		return { changed, ignoredChannels };
	}

	/** Marks rows read in batches and announces it; `filter` always names the user. */
	async function markAllIn(ctx: Ctx<any>, actor: Identity, filter: Record<string, unknown>, budgetMs?: number) {
		const done = await markRead(db, { user_id: actor.user_id, ...filter }, budgetMs);
		if (done.ids.length) await ctx.broadcast("messages.flagsChanged", { user_id: actor.user_id, op: "add", flag: "read", message_ids: done.ids, all: false });
		return done;
	}

	/** A channel whose content the user may access, or "Invalid channel ID". */
	async function accessibleChannel(ctx: Ctx<any>, id: number) {
		const [channel] = await resolvers(ctx).readable([id]);
		if (!channel) throw badRequest("Invalid channel ID");
		return channel;
	}

	return {
		updateFlags: {
			params: params({ messages: p.intList(), ...flagParams }),
			async handler(ctx: Ctx<FlagParams & { messages: number[] }>) {
				const actor = requireUser(ctx);
				checkFlag(ctx.params.flag);
				const { changed, ignoredChannels } = await applyChange(ctx, actor, ctx.params.messages, ctx.params);
				return ignoredChannels ? { messages: changed, ignored_because_not_subscribed_channels: ignoredChannels } : { messages: changed };
			},
		},

		updateFlagsForNarrow: {
			params: params({
				anchor: p.either([p.int(), p.string()]),
				include_anchor: p.bool({ optional: true }),
				num_before: p.int({ min: 0 }),
				num_after: p.int({ min: 0 }),
				narrow: p.json({ optional: true }),
				...flagParams,
			}),
			async handler(ctx: Ctx<FlagParams & { anchor: number | string; include_anchor?: boolean; num_before: number; num_after: number; narrow?: unknown }>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				checkFlag(q.flag);
				checkAnchorExclusion(q.num_before, q.num_after, q.include_anchor);
				// As Zulip does, the range is bounded so one request is one bounded update.
				const numBefore = Math.min(q.num_before, Math.max(MAX_MESSAGES - q.num_after, MAX_MESSAGES / 2));
				const numAfter = Math.min(q.num_after, Math.max(MAX_MESSAGES - numBefore, MAX_MESSAGES / 2));
				const terms = parseNarrow(q.narrow ?? []);
				const found = await fetchMessages(db, actor, terms, { anchor: q.anchor, include_anchor: q.include_anchor, num_before: numBefore, num_after: numAfter }, resolvers(ctx));
				const { changed } = found.ids.length ? await applyChange(ctx, actor, found.ids, q) : { changed: [] };
				return {
					processed_count: found.ids.length,
					updated_count: changed.length,
					first_processed_id: found.ids[0] ?? null,
					last_processed_id: found.ids.at(-1) ?? null,
					found_oldest: found.found_oldest,
					found_newest: found.found_newest,
				};
			},
		},

		markAllAsRead: {
			params: params({}),
			async handler(ctx: Ctx) {
				const done = await markAllIn(ctx, requireUser(ctx), {}, MARK_ALL_BUDGET_MS);
				return { complete: done.complete };
			},
		},

		markChannelAsRead: {
			timeout: MARK_IN_CHANNEL_TIMEOUT_MS,
			params: params({ stream_id: p.int() }),
			async handler(ctx: Ctx<{ stream_id: number }>) {
				const actor = requireUser(ctx);
				await accessibleChannel(ctx, ctx.params.stream_id);
				await markAllIn(ctx, actor, { channel_id: ctx.params.stream_id });
				return {};
			},
		},

		markTopicAsRead: {
			timeout: MARK_IN_CHANNEL_TIMEOUT_MS,
			params: params({ stream_id: p.int(), topic_name: p.string({ max: TOPIC_PARAM_MAX }) }),
			async handler(ctx: Ctx<{ stream_id: number; topic_name: string }>) {
				const actor = requireUser(ctx);
				await accessibleChannel(ctx, ctx.params.stream_id);
				const topic = topicFromClient(ctx.params.topic_name, await resolvers(ctx).emptyTopicName());
				const where = { channel_id: ctx.params.stream_id, topic_key: topic.toLowerCase() };
				if (!(await db.UserMessage.exists({ user_id: actor.user_id, ...where }))) throw badRequest(`No such topic '${ctx.params.topic_name}'`);
				await markAllIn(ctx, actor, where);
				return {};
			},
		},
	};
}
