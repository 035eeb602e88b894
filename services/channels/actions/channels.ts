// GET /streams, GET and PATCH /streams/{stream_id}, DELETE /streams/{stream_id} (archiving),
// GET /get_stream_id and GET /streams/{stream_id}/members. The rules live in ../stream-filters.ts,
// ../stream-update.ts, ../access.ts and ../channel-rules.ts.
import { call, requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { TOPIC_PARAM_MAX } from "../../../shared/param-bounds";
import type { ChannelsArchived } from "../../../shared/org-events";
import type { ChannelsDb } from "../db";
import { subscriptionKey } from "../models/subscription";
import { hasMetadataAccess } from "../access";
import { channelView } from "../channel-view";
import { activeSubs, allChannels, subscribersOf, visibleChannel } from "../channel-lookup";
import { announceDefaults, channelArchived, channelUpdated } from "../channel-events";
import { archiveChannel, updateStream, type StreamChanges } from "../stream-update";
import { checkFilters, listedChannels, type StreamFilters } from "../stream-filters";
import { archiveNotice, updateNotices } from "../notification-bot";
import { channelSettingParams } from "./channel-settings";

export function channelActions(db: ChannelsDb) {
	return {
		list: {
			params: params({
				include_public: p.bool({ optional: true }),
				include_web_public: p.bool({ optional: true }),
				include_subscribed: p.bool({ optional: true }),
				exclude_archived: p.bool({ optional: true }),
				include_all: p.bool({ optional: true }),
				include_default: p.bool({ optional: true }),
				include_owner_subscribed: p.bool({ optional: true }),
				include_can_access_content: p.bool({ optional: true }),
				include_all_active: p.bool({ optional: true }),
			}),
			async handler(ctx: Ctx<StreamFilters>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				checkFilters(actor, q);
				const graph = await db.graphs.get();
				const [channels, subs] = await Promise.all([allChannels(db), activeSubs(db, actor.user_id)]);
				let ownerSubs = new Set<number>();
				if (q.include_owner_subscribed && actor.is_bot) {
					const [bot] = (await call(ctx, "users.resolvePrincipals", { principals: [actor.user_id] })).users;
					if (bot?.bot_owner_id) ownerSubs = await activeSubs(db, bot.bot_owner_id);
				}
				const picked = listedChannels(graph, actor, channels, q, subs, ownerSubs);
				return { streams: picked.map((c) => channelView(graph, c)) };
			},
		},

		get: {
			params: params({ stream_id: p.int() }),
			async handler(ctx: Ctx<{ stream_id: number }>) {
				const { graph, channel } = await visibleChannel(db, ctx, ctx.params.stream_id);
				return { stream: channelView(graph, channel) };
			},
		},

		getId: {
			params: params({ stream: p.string({ max: TOPIC_PARAM_MAX }) }),
			async handler(ctx: Ctx<{ stream: string }>) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				const channel = await db.Channel.findOne({ realm_id: db.realmId, name_key: ctx.params.stream.trim().toLowerCase() }).lean();
				const subscribed = !!channel && !!(await db.Subscription.exists({ _id: subscriptionKey(actor.user_id, channel._id), active: true }));
				if (!channel || !hasMetadataAccess(graph, actor, channel, subscribed)) throw badRequest(`Invalid channel name '${ctx.params.stream}'`);
				return { stream_id: channel._id };
			},
		},

		members: {
			params: params({ stream_id: p.int() }),
			async handler(ctx: Ctx<{ stream_id: number }>) {
				const { graph, channel } = await visibleChannel(db, ctx, ctx.params.stream_id);
				return { subscribers: (await subscribersOf(db, graph, [channel._id])).get(channel._id) };
			},
		},

		archive: {
			params: params({ stream_id: p.int() }),
			async handler(ctx: Ctx<{ stream_id: number }>) {
				const { actor, graph, channel } = await visibleChannel(db, ctx, ctx.params.stream_id);
				await archiveChannel(db, graph, actor, channel);
				// Nor does it remain an announcement or moderation request channel (Zulip clears those first).
				await call(ctx, "users.clearChannelSettings", { channel_id: channel._id });
				// An archived channel stops being a default one; Zulip says so before the channel's own events.
				if (channel.is_default) await announceDefaults(db, ctx);
				await ctx.broadcast("channels.archived", { channel_ids: [channel._id], streams: [await channelArchived(db, graph, channel)] } satisfies ChannelsArchived);
				await archiveNotice(ctx, channel);
				return {};
			},
		},

		update: {
			params: params({
				stream_id: p.int(),
				description: p.string({ optional: true }),
				new_name: p.string({ optional: true }),
				is_private: p.bool({ optional: true }),
				is_archived: p.bool({ optional: true }),
				folder_id: { ...p.int({ optional: true }), nullable: true },
				...channelSettingParams,
			}),
			async handler(ctx: Ctx<StreamChanges & { stream_id: number }>) {
				const { stream_id, ...changes } = ctx.params;
				const { actor, graph, channel, subscribed } = await visibleChannel(db, ctx, stream_id);
				const set = await updateStream(db, graph, actor, channel, subscribed, changes);
				const after = Object.keys(set).length ? await db.Channel.findById(channel._id).lean() : null;
				if (Object.keys(set).length) await ctx.broadcast("channels.updated", await channelUpdated(db, graph, channel, after ?? channel, set));
				if (set.is_default !== undefined && set.is_default !== channel.is_default) await announceDefaults(db, ctx);
				if (after) await updateNotices(ctx, graph, actor, channel, after, changes, set);
				return {};
			},
		},
	};
}
