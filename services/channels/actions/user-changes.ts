// What the users service asks of the channels service around a change to a user: the channels
// the user may know about before a role change, and the stream and peer events after a role
// change or a (de)activation (channel-events.ts).
import type { Ctx } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import type { ChannelAccessChanged, SubscriptionsChanged, UserActivityChanged, UserRoleChanged } from "../../../shared/org-events";
import type { ChannelsDb } from "../db";
import { activityPeers, channelAccessChanged, visibleChannelIds } from "../channel-events";

export function userChangeActions(db: ChannelsDb) {
	return {
		/** For the users service, before a role change: the channels the user may know about. */
		visibleChannels: {
			visibility: "public",
			params: params({ user_id: p.int(), role: p.int() }),
			async handler(ctx: Ctx<{ user_id: number; role: number }>) {
				return { channel_ids: await visibleChannelIds(db, await db.graphs.get(), ctx.params) };
			},
		},

		// The users service calls the two below after a change (a call, not an event: one replica
		// announces it, before the request that made the change is answered, so changes made one
		// after another are announced in their order).
		/** After a role change: the channels the user gains or loses sight of (stream create and delete, peer_add). */
		userRoleChanged: {
			visibility: "public",
			params: params({ user_id: p.int(), role: p.int(), channel_ids: p.intList() }),
			async handler(ctx: Ctx<UserRoleChanged>) {
				db.graphs.invalidate();
				const { user_id, role, channel_ids } = ctx.params;
				const change = await channelAccessChanged(db, await db.graphs.get(), { user_id, role }, channel_ids);
				if (change.created.length || change.deleted.length) await ctx.broadcast("channels.accessChanged", change satisfies ChannelAccessChanged);
				return {};
			},
		},

		/** After a deactivation or reactivation: peer_remove or peer_add for the user's channels. */
		userActivityChanged: {
			visibility: "public",
			params: params({ user_id: p.int(), is_active: p.bool() }),
			async handler(ctx: Ctx<UserActivityChanged>) {
				db.graphs.invalidate();
				const change = await activityPeers(db, await db.graphs.get(), ctx.params.user_id, ctx.params.is_active);
				if (change.peers?.length) await ctx.broadcast("channels.subscriptionsChanged", change satisfies SubscriptionsChanged);
				return {};
			},
		},
	};
}
