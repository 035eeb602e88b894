// GET /messages and GET /messages/{message_id}: anchors, windows, narrows, and search
// highlighting; GET /users/me/{stream_id}/topics. The rules live in ../fetch-rules.ts, ../narrow.ts,
// ../search.ts and ../topics.ts.
import { apiError, badRequest } from "../../../shared/errors";
import { requireUser } from "../../../shared/actions";
import { escapeHtml } from "../../../shared/html";
import { p, params } from "../../../shared/params";
import { checkAnchorExclusion, fetchMessages, MAX_MESSAGES } from "../fetch-rules";
import { parseNarrow } from "../narrow";
import { VIEW_FIELDS } from "../message-view";
import { highlight, highlightTopic, stemmer } from "../search";
import { channelTopics } from "../topics";
import { checkMatchIds, narrowMatches } from "../narrow-matches";
import { topicForClient } from "../../../shared/topics";
import type { MessageDoc } from "../models/message";
import { rawFind } from "../../../shared/db";
import type { Ctx, GetParams, ServiceDeps } from "./deps";

export function fetchActions({ db, resolvers, accessibleMessage, views }: ServiceDeps) {
	return {
		list: {
			params: params({
				anchor: p.either([p.int(), p.string()], { optional: true }),
				num_before: p.int({ optional: true, min: 0 }),
				num_after: p.int({ optional: true, min: 0 }),
				include_anchor: p.bool({ optional: true }),
				use_first_unread_anchor: p.bool({ optional: true }),
				narrow: p.json({ optional: true }),
				client_gravatar: p.bool({ optional: true }),
				apply_markdown: p.bool({ optional: true }),
				message_ids: p.intList({ optional: true }),
				allow_empty_topic_name: p.bool({ optional: true }),
			}),
			async handler(ctx: Ctx<GetParams>) {
				const actor = requireUser(ctx);
				// As Zulip's get_messages_backend: num_before and num_after default to 0.
				const q = { ...ctx.params, num_before: ctx.params.num_before ?? 0, num_after: ctx.params.num_after ?? 0 };
				if (q.message_ids) {
					// Zulip's check: a window or an anchor asked for beside message_ids (a count of 0 or
					// include_anchor alone is no window), named with its fixed list of parameters.
					if (q.num_before || q.num_after || q.anchor !== undefined || q.use_first_unread_anchor) {
						const parameters = "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor";
						throw apiError(400, "BAD_REQUEST", `Unsupported parameter combination: ${parameters}`, { parameters });
					}
				} else {
					// As Zulip: use_first_unread_anchor wins over any anchor given with it (older clients
					// send both), and without either the anchor is missing.
					if (q.anchor === undefined && !q.use_first_unread_anchor) throw badRequest("Missing 'anchor' argument.");
					if (q.num_before + q.num_after > MAX_MESSAGES) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES}).`);
					checkAnchorExclusion(q.num_before, q.num_after, q.include_anchor);
				}
				const terms = parseNarrow(q.narrow);
				const result = await fetchMessages(db, actor, terms, { ...q, docs: true }, resolvers(ctx));
				// The window gave the messages where it read them; the others are read here, in its order.
				const missing = result.ids.filter((id) => !result.docs.has(id));
				if (missing.length) for (const m of await rawFind<MessageDoc>(db.Message, { _id: { $in: missing } }, { projection: VIEW_FIELDS })) result.docs.set(m._id, m);
				const docs = result.ids.flatMap((id) => result.docs.get(id) ?? []);
				const views_ = await views(ctx, docs, result.flags, q, result.channelNames);
				const searched = terms.filter((t) => t.operator === "search" && !t.negated).map((t) => t.search!);
				if (searched.length) {
					const stemOf = stemmer();
					const byId = new Map(docs.map((d) => [d._id, d]));
					for (const v of views_) {
						const m = byId.get(v.id as number)!;
						v.match_content = highlight(q.apply_markdown === false ? escapeHtml(m.content) : m.rendered_content, searched, stemOf);
						v.match_subject = highlightTopic(v.subject as string, searched, stemOf);
					}
				}
				const out: Record<string, unknown> = {
					found_anchor: result.found_anchor,
					found_oldest: result.found_oldest,
					found_newest: result.found_newest,
					history_limited: result.history_limited,
					messages: views_,
				};
				if (!q.message_ids) out.anchor = result.anchor;
				return out;
			},
		},

		/** GET /messages/matches_narrow. */
		matchesNarrow: {
			// Zulip's narrow here is a list, null refused (GET /messages takes null as no narrow).
			params: params({ msg_ids: p.intList(), narrow: p.list({ type: "any" }) }),
			async handler(ctx: Ctx<{ msg_ids: number[]; narrow: unknown[] }>) {
				const actor = requireUser(ctx);
				checkMatchIds(ctx.params.msg_ids);
				const terms = parseNarrow(ctx.params.narrow);
				return { messages: await narrowMatches(db, actor, terms, ctx.params.msg_ids, resolvers(ctx)) };
			},
		},

		/** GET /users/me/{stream_id}/topics. */
		topics: {
			params: params({ stream_id: p.int(), allow_empty_topic_name: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ stream_id: number; allow_empty_topic_name?: boolean }>) {
				const actor = requireUser(ctx);
				const r = resolvers(ctx);
				// As Zulip: a channel the caller cannot read is as unknown as a missing one.
				const [channel] = await r.readable([ctx.params.stream_id]);
				if (!channel) throw badRequest("Invalid channel ID");
				const [topics, emptyName] = await Promise.all([channelTopics(db, actor.user_id, channel.channel_id, channel.history_public_to_subscribers), r.emptyTopicName()]);
				const allowEmpty = ctx.params.allow_empty_topic_name ?? false;
				return { topics: topics.map((t) => ({ name: topicForClient(t.topic, allowEmpty, emptyName), max_id: t.max_id })) };
			},
		},

		get: {
			params: params({ message_id: p.int(), apply_markdown: p.bool({ optional: true }), allow_empty_topic_name: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ message_id: number; apply_markdown?: boolean; allow_empty_topic_name?: boolean }>) {
				const actor = requireUser(ctx);
				const m = await accessibleMessage(ctx, actor, ctx.params.message_id);
				const row = await db.UserMessage.findOne({ user_id: actor.user_id, message_id: m._id }, { flags: 1 }).lean();
				// Seen through an open channel history without being received: "historical".
				const flags = new Map([[m._id, row ? row.flags : ["read", "historical"]]]);
				const [message] = await views(ctx, [m], flags, { ...ctx.params, client_gravatar: false });
				return { raw_content: m.content, message };
			},
		},
	};
}
