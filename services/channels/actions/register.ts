// The channels service's part of POST /register: subscriptions (and unsubscribed and never
// subscribed channels), streams, default channels, topic policies and channel folders.
import { requireUser, type Ctx, type RegisterStateParams } from "../../../shared/actions";
import { isGuest } from "../../../shared/roles";
import type { ChannelsDb } from "../db";
import type { ChannelDoc } from "../models/channel";
import type { SubscriptionDoc } from "../models/subscription";
import { VisibilityPolicy } from "../models/user-topic";
import { hasMetadataAccess } from "../access";
import { channelView, subscriptionView } from "../channel-view";
import { allChannels, subscribersOf } from "../channel-lookup";
import { folderView } from "../folders";
import { topicForClient } from "../topics";

export function registerActions(db: ChannelsDb) {
	return {
		registerState: {
			visibility: "public",
			async handler(ctx: Ctx<RegisterStateParams>) {
				const actor = requireUser(ctx);
				const wants = (t: string) => ctx.params.event_types === null || ctx.params.event_types.includes(t);
				if (!["subscription", "stream", "default_streams", "default_stream_groups", "user_topic", "muted_topics", "channel_folders"].some(wants)) return {};
				const graph = await db.graphs.get();
				const [channels, subs] = await Promise.all([allChannels(db), db.Subscription.find({ user_id: actor.user_id }).lean()]);
				const mine = new Map<number, SubscriptionDoc>(subs.map((s) => [s.channel_id, s]));
				// Archived channels only for clients that declare the archived_channels capability
				// (Zulip 10.0, feature level 315; in never_subscribed since level 362).
				const archived = !!ctx.params.client_capabilities.archived_channels;
				const visible = channels.filter((c) => (archived || !c.is_archived) && hasMetadataAccess(graph, actor, c, !!mine.get(c._id)?.active));
				const out: Record<string, unknown> = {};
				if (wants("subscription")) {
					const subscribers = ctx.params.include_subscribers ? await subscribersOf(db, graph, visible.map((c) => c._id)) : undefined;
					const withSubs = (c: ChannelDoc, v: Record<string, unknown>) => (subscribers ? { ...v, subscribers: subscribers.get(c._id) } : v);
					out.subscriptions = visible.filter((c) => mine.get(c._id)?.active).map((c) => subscriptionView(graph, c, mine.get(c._id)!, subscribers?.get(c._id)));
					out.unsubscribed = visible.filter((c) => mine.has(c._id) && !mine.get(c._id)!.active).map((c) => subscriptionView(graph, c, mine.get(c._id)!, subscribers?.get(c._id)));
					out.never_subscribed = visible.filter((c) => !mine.has(c._id)).map((c) => withSubs(c, channelView(graph, c)));
				}
				if (wants("stream")) out.streams = visible.map((c) => channelView(graph, c));
				if (wants("default_streams")) {
					out.realm_default_streams = isGuest(actor.role) ? [] : channels.filter((c) => c.is_default && !c.is_archived).map((c) => channelView(graph, c));
				}
				// Default channel groups do not exist yet.
				if (wants("default_stream_groups")) out.realm_default_stream_groups = [];
				if (wants("user_topic") || wants("muted_topics")) {
					const allowEmpty = !!ctx.params.client_capabilities.empty_topic_name;
					const topics = await db.UserTopic.find({ user_id: actor.user_id }).lean();
					const names = new Map(channels.map((c) => [c._id, c.name]));
					if (wants("user_topic")) {
						out.user_topics = topics.map((t) => ({
							stream_id: t.channel_id,
							topic_name: topicForClient(graph, t.topic, allowEmpty),
							last_updated: t.last_updated,
							visibility_policy: t.visibility_policy,
						}));
					}
					// The deprecated list is left out when the modern one is asked for by name.
					if (wants("muted_topics") && !(ctx.params.event_types ?? []).includes("user_topic")) {
						out.muted_topics = topics
							.filter((t) => t.visibility_policy === VisibilityPolicy.MUTED && names.has(t.channel_id))
							.map((t) => [names.get(t.channel_id), topicForClient(graph, t.topic, allowEmpty), t.last_updated]);
					}
				}
				if (wants("channel_folders")) {
					out.channel_folders = (await db.ChannelFolder.find({ realm_id: db.realmId }).sort({ order: 1 }).lean()).map(folderView);
				}
				return out;
			},
		},
	};
}
