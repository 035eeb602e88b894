// What the messages service asks of the channels service: where a message goes and who may post
// it, what the caller may do with messages in a channel, the channels whose history the caller
// may read, channel names and IDs, the caller's topic policies, and a channel's first message
// after deletions.
import { requireUser, type ChannelTarget, type Ctx } from "../../../shared/actions";
import type { ChannelFirstMessageChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import type { ChannelsDb } from "../db";
import { subscriptionKey } from "../models/subscription";
import { hasContentAccess, hasMetadataAccess, messagePermissions } from "../access";
import { cachedChannels, cachedSubscriptions, invalidChannel, subscribersOf } from "../channel-lookup";
import { postableChannel, sendTargetOf } from "../send-targets";
import { firstMessageDeleted } from "../first-message";

export function messageSupportActions(db: ChannelsDb) {
	return {
		/**
		 * For the messages service: may the caller post to this channel (by ID or name), and
		 * who receives the message. One call per message sent.
		 */
		sendTarget: {
			visibility: "public",
			params: params({ channel: p.either([p.int(), p.string()]) }),
			async handler(ctx: Ctx<{ channel: number | string }>) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				const { channel, mutedBySender, subscribers } = await postableChannel(db, graph, actor, ctx.params.channel);
				return { ...sendTargetOf(channel, subscribers), muted_by_sender: mutedBySender };
			},
		},

		/**
		 * For the messages service: a channel that Notification Bot announces a move or a
		 * resolved topic in. The caller has already been allowed the move, so nothing is checked
		 * beyond the channel existing.
		 */
		notificationTarget: {
			visibility: "public",
			params: params({ channel_id: p.int() }),
			async handler(ctx: Ctx<{ channel_id: number }>): Promise<ChannelTarget> {
				const channel = await db.Channel.findOne({ _id: ctx.params.channel_id, realm_id: db.realmId }).lean();
				if (!channel) throw invalidChannel();
				return sendTargetOf(channel, (await subscribersOf(db, await db.graphs.get(), [channel._id])).get(channel._id)!);
			},
		},

		/**
		 * For the messages service: what the caller may do with messages in a channel, from
		 * the channel's group settings and the organization's (the spec's permission rules).
		 */
		messagePermissions: {
			visibility: "public",
			params: params({ channel_id: p.int() }),
			async handler(ctx: Ctx<{ channel_id: number }>) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				const channel = await db.Channel.findOne({ _id: ctx.params.channel_id, realm_id: db.realmId }).lean();
				if (!channel) throw invalidChannel();
				const subscribed = !!(await db.Subscription.exists({ _id: subscriptionKey(actor.user_id, channel._id), active: true }));
				return messagePermissions(graph, actor, channel, subscribed);
			},
		},

		/** For the messages service: the channels whose history the caller may read. */
		readableChannels: {
			visibility: "public",
			params: params({ channel_ids: p.intList() }),
			async handler(ctx: Ctx<{ channel_ids: number[] }>) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				// From the node's cache (read-cache.ts): no store read in the steady state.
				const [channels, subs] = await Promise.all([cachedChannels(db, ctx.params.channel_ids), cachedSubscriptions(db, actor.user_id)]);
				return {
					channels: channels
						.filter((c) => hasContentAccess(graph, actor, c, subs.has(c._id)))
						.map((c) => ({ channel_id: c._id, name: c.name, history_public_to_subscribers: c.history_public_to_subscribers, subscribed: subs.has(c._id) })),
				};
			},
		},

		/** For the messages service (is:muted, is:followed): the caller's muted channels and topic policies. */
		topicPolicies: {
			visibility: "public",
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = requireUser(ctx);
				const [muted, topics] = await Promise.all([
					db.Subscription.find({ user_id: actor.user_id, active: true, is_muted: true }, { channel_id: 1 }).lean(),
					db.UserTopic.find({ user_id: actor.user_id }).lean(),
				]);
				return {
					muted_channel_ids: muted.map((s) => s.channel_id),
					topics: topics.map((t) => ({ channel_id: t.channel_id, topic_key: t.topic.toLowerCase(), visibility_policy: t.visibility_policy })),
				};
			},
		},

		/** For the messages service (channels:public): public channels whose history the caller may read. */
		publicChannels: {
			visibility: "public",
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				const [channels, subs] = await Promise.all([db.Channel.find({ realm_id: db.realmId, invite_only: false }).lean(), cachedSubscriptions(db, actor.user_id)]);
				return { channel_ids: channels.filter((c) => c.history_public_to_subscribers && hasContentAccess(graph, actor, c, subs.has(c._id))).map((c) => c._id) };
			},
		},

		/** For the messages service: channel IDs by name (a narrow may name channels). */
		idsByName: {
			visibility: "public",
			params: params({ names: p.stringList() }),
			async handler(ctx: Ctx<{ names: string[] }>) {
				const keys = ctx.params.names.map((n) => n.trim().toLowerCase());
				const found = await db.Channel.find({ realm_id: db.realmId, name_key: { $in: keys } }, { _id: 1, name_key: 1 }).lean();
				return { ids: Object.fromEntries(found.map((c) => [c.name_key, c._id])) };
			},
		},

		/** For message rendering: the channels a message links to, among those the sender may know. */
		linkTargets: {
			visibility: "public",
			params: params({ names: p.stringList() }),
			async handler(ctx: Ctx<{ names: string[] }>) {
				const actor = requireUser(ctx);
				if (!ctx.params.names.length) return { channels: [] };
				const graph = await db.graphs.get();
				const [found, subs] = await Promise.all([
					db.Channel.find({ realm_id: db.realmId, name_key: { $in: ctx.params.names.map((n) => n.trim().toLowerCase()) } }).lean(),
					cachedSubscriptions(db, actor.user_id),
				]);
				return {
					channels: found.filter((c) => hasMetadataAccess(graph, actor, c, subs.has(c._id))).map((c) => ({ id: c._id, name: c.name })),
				};
			},
		},

		/**
		 * For the messages service, after it deleted messages of a channel and before it announces
		 * the deletion: when they held the channel's first message, `first_message_id` (the oldest
		 * message left, or null) becomes it, and those told of the deletion hear of it first.
		 */
		firstMessageDeleted: {
			visibility: "public",
			params: params({ channel_id: p.int(), message_ids: p.intList(), first_message_id: { ...p.int(), nullable: true }, user_ids: p.intList() }),
			async handler(ctx: Ctx<{ channel_id: number; message_ids: number[]; first_message_id: number | null; user_ids: number[] }>) {
				const { channel_id, message_ids, first_message_id, user_ids } = ctx.params;
				const channel = await firstMessageDeleted(db, channel_id, message_ids, first_message_id);
				if (channel) {
					await ctx.broadcast("channels.firstMessageChanged", { channel_id, name: channel.name, first_message_id: channel.first_message_id, user_ids } satisfies ChannelFirstMessageChanged);
				}
				return {};
			},
		},

		/** For the messages service: names of channels, for display_recipient. */
		names: {
			visibility: "public",
			params: params({ channel_ids: p.intList() }),
			async handler(ctx: Ctx<{ channel_ids: number[] }>) {
				const found = await db.Channel.find({ _id: { $in: ctx.params.channel_ids } }, { _id: 1, name: 1 }).lean();
				return { names: Object.fromEntries(found.map((c) => [c._id, c.name])) };
			},
		},
	};
}
