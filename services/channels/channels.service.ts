// The channels service: channels, subscriptions, channel permissions and the access model.
// This file wires the service (its database, the group graph, the events it follows); the
// actions are in actions/ and the rules in the modules beside this file.
import type { Connection } from "mongoose";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { call } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { GroupGraphCache, groupGraphEvents } from "../../shared/group-settings";
import { nodeCacheEvents } from "../../shared/node-cache";
import { transportUp } from "../../shared/transport-recovery";
import { ChannelReadCache, channelCacheEvents } from "./read-cache";
import type { ChannelsDb } from "./db";
import { channelModel } from "./models/channel";
import { subscriptionModel } from "./models/subscription";
import { channelFolderModel } from "./models/channel-folder";
import { userTopicModel } from "./models/user-topic";
import { subscriptionActions } from "./actions/subscriptions";
import { channelActions } from "./actions/channels";
import { defaultChannelActions } from "./actions/default-channels";
import { channelFolderActions } from "./actions/channel-folders";
import { userTopicActions } from "./actions/user-topics";
import { messageSupportActions } from "./actions/message-support";
import { notificationSupportActions } from "./actions/notification-support";
import { userChangeActions } from "./actions/user-changes";
import { inviteChannelActions } from "./actions/invites";
import { registerActions } from "./actions/register";
import { realmExportActions } from "./actions/realm-export";
import { digestChannelActions } from "./actions/digests";

export function channelsService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	const db = { realmId: 1, webPublicStreams: config.webPublicStreams } as ChannelsDb;
	const reads = new ChannelReadCache();

	return {
		name: "channels",
		actions: {
			...subscriptionActions(db),
			...channelActions(db),
			...defaultChannelActions(db),
			...channelFolderActions(db),
			...userTopicActions(db),
			...messageSupportActions(db),
			...notificationSupportActions(db),
			...userChangeActions(db),
			...inviteChannelActions(db),
			...registerActions(db),
			...realmExportActions(db),
			...digestChannelActions(db),
		},

		events: {
			...groupGraphEvents(() => db.graphs),
			...channelCacheEvents(() => db.reads),
			...nodeCacheEvents(() => db.reads?.all() ?? []),
			/** Messages moved into a channel may bring a named topic with them. */
			async "messages.moved"(ctx: Context<{ channel_id?: number; topic: string }>) {
				if (ctx.params.channel_id && ctx.params.topic) await db.Channel.updateOne({ _id: ctx.params.channel_id }, { $set: { has_named_topics: true } });
			},
			/** Derived state the channel objects show: first message, recent activity, named topics. */
			async "message.sent"(ctx: Context<{ channel_id?: number; message_id: number; timestamp: number; topic?: string }>) {
				const { channel_id, message_id, timestamp, topic } = ctx.params;
				if (!channel_id) return;
				await db.Channel.updateOne({ _id: channel_id, first_message_id: null }, { $set: { first_message_id: message_id } });
				const set: Record<string, unknown> = { last_message_at: timestamp };
				if (topic) set.has_named_topics = true;
				await db.Channel.updateOne({ _id: channel_id }, { $set: set });
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "channels");
			Object.assign(db, {
				Channel: channelModel(conn),
				Subscription: subscriptionModel(conn),
				ChannelFolder: channelFolderModel(conn),
				UserTopic: userTopicModel(conn),
				nextId: counters(conn),
				graphs: new GroupGraphCache(() => call(this.broker, "users.groupGraph", {})),
				reads,
			});
			for (const c of reads.all()) c.live = () => transportUp(this.broker);
			await ensureIndexes(conn);
		},

		async stopped() {
			await conn?.close();
		},
	} as ServiceSchema;
}
