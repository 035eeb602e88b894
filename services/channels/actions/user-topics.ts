// POST /user_topics and the older PATCH /users/me/subscriptions/muted_topics: a user's
// visibility policy for a topic; and, for the messages service, the automatic follow and unmute,
// and the policies a deleted topic leaves behind.
// Each change is announced as channels.userTopicChanged. The rules live in ../topics.ts.
import { requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { TOPIC_PARAM_MAX } from "../../../shared/param-bounds";
import type { ChannelsDb } from "../db";
import { VisibilityPolicy } from "../models/user-topic";
import { hasContentAccess } from "../access";
import { invalidChannel, visibleChannel } from "../channel-lookup";
import { channelDoesNotExist } from "../unsubscribe";
import { autoVisibility, clearTopicPolicies, setVisibility, topicChange, topicFromClient, topicPolicyUsers } from "../topics";

export function userTopicActions(db: ChannelsDb) {
	return {
		/** Deprecated: mute (add) or unmute (remove) a topic, naming the channel by ID or by name. */
		muteTopic: {
			params: params({
				stream_id: p.int({ optional: true }),
				stream: p.string({ optional: true, max: TOPIC_PARAM_MAX }),
				topic: p.string({ max: TOPIC_PARAM_MAX }),
				op: p.oneOf(["add", "remove"]),
			}),
			async handler(ctx: Ctx<{ stream_id?: number; stream?: string; topic: string; op: "add" | "remove" }>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				if ((q.stream_id === undefined) === (q.stream === undefined)) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
				let channelId = q.stream_id;
				if (q.stream !== undefined) {
					const c = await db.Channel.findOne({ realm_id: db.realmId, name_key: q.stream.trim().toLowerCase() }).lean();
					if (!c) throw channelDoesNotExist(q.stream);
					channelId = c._id;
				}
				const { graph, channel, subscribed } = await visibleChannel(db, ctx, channelId!);
				if (!hasContentAccess(graph, actor, channel, subscribed)) throw invalidChannel();
				const topic = topicFromClient(graph, q.topic);
				const change = await setVisibility(db, actor.user_id, channel._id, topic, q.op === "add" ? VisibilityPolicy.MUTED : VisibilityPolicy.NONE);
				await ctx.broadcast("channels.userTopicChanged", topicChange(graph, change));
				return {};
			},
		},

		setTopicVisibility: {
			params: params({ stream_id: p.int(), topic: p.string({ max: TOPIC_PARAM_MAX }), visibility_policy: p.oneOf([0, 1, 2, 3]) }),
			async handler(ctx: Ctx<{ stream_id: number; topic: string; visibility_policy: number }>) {
				const { actor, graph, channel, subscribed } = await visibleChannel(db, ctx, ctx.params.stream_id);
				if (!hasContentAccess(graph, actor, channel, subscribed)) throw invalidChannel();
				const topic = topicFromClient(graph, ctx.params.topic);
				const change = await setVisibility(db, actor.user_id, channel._id, topic, ctx.params.visibility_policy);
				await ctx.broadcast("channels.userTopicChanged", topicChange(graph, change));
				return {};
			},
		},

		/**
		 * For the messages service: follows or unmutes a topic for users whose settings ask for it
		 * after they sent to it, started it, reacted in it or were mentioned in it (the messages
		 * service applies the settings, ../topics.ts Zulip's rules). Returns the policies that changed.
		 */
		autoTopicVisibility: {
			visibility: "public",
			params: params({ channel_id: p.int(), topic: p.string(), follow: p.intList(), unmute: p.intList() }),
			async handler(ctx: Ctx<{ channel_id: number; topic: string; follow: number[]; unmute: number[] }>) {
				const { channel_id, topic } = ctx.params;
				const changes = await autoVisibility(db, channel_id, topic, ctx.params.follow, ctx.params.unmute);
				for (const change of changes) await ctx.broadcast("channels.userTopicChanged", topicChange(await db.graphs.get(), change));
				const changed = changes.map((c) => ({ user_id: c.user_id, visibility_policy: c.visibility_policy }));
				return { changed };
			},
		},

		/** For the messages service, a topic deleted: who has a policy for it (the topic's case aside). */
		topicPolicyUsers: {
			visibility: "public",
			params: params({ channel_id: p.int(), topic: p.string() }),
			async handler(ctx: Ctx<{ channel_id: number; topic: string }>) {
				return { user_ids: await topicPolicyUsers(db, ctx.params.channel_id, ctx.params.topic) };
			},
		},

		/** For the messages service, a topic deleted: these users' policies for it go (user_topic with policy 0 to each). */
		clearTopicPolicies: {
			visibility: "public",
			params: params({ channel_id: p.int(), topic: p.string(), user_ids: p.intList() }),
			async handler(ctx: Ctx<{ channel_id: number; topic: string; user_ids: number[] }>) {
				const changes = await clearTopicPolicies(db, ctx.params.channel_id, ctx.params.topic, ctx.params.user_ids);
				if (!changes.length) return { user_ids: [] };
				const graph = await db.graphs.get();
				for (const change of changes) await ctx.broadcast("channels.userTopicChanged", topicChange(graph, change));
				return { user_ids: changes.map((c) => c.user_id) };
			},
		},
	};
}
