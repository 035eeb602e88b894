// What the invites service asks of the channels service: whether an inviter may name these
// channels in an invitation (Zulip's access_streams_for_invite), and subscribing the account an
// accepted invitation created to the invitation's channels and, when asked, the defaults.
import { requireUser, type Ctx } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { upsertRetrying } from "../../../shared/db";
import { badRequest } from "../../../shared/errors";
import type { SubscriptionsChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import type { ChannelsDb } from "../db";
import { subscriptionKey } from "../models/subscription";
import { canAddSubscribers, hasContentAccess } from "../access";
import { COLORS } from "../channel-view";
import { subscriptionsAdded } from "../channel-events";
import { NEW_SUBSCRIPTION } from "../subscribe";

export function inviteChannelActions(db: ChannelsDb) {
	return {
		/**
		 * Each channel must be one the caller can read (else "Invalid channel ID"), and a default
		 * channel or one the caller may add subscribers to.
		 */
		checkInviteChannels: {
			visibility: "public",
			params: params({ channel_ids: p.intList() }),
			async handler(ctx: Ctx<{ channel_ids: number[] }>) {
				const actor = requireUser(ctx);
				const ids = ctx.params.channel_ids;
				if (!ids.length) return {};
				const graph = await db.graphs.get();
				const [channels, subs] = await Promise.all([
					db.Channel.find({ _id: { $in: ids }, realm_id: db.realmId }).lean(),
					db.Subscription.find({ _id: { $in: ids.map((id) => subscriptionKey(actor.user_id, id)) }, active: true }, { channel_id: 1 }).lean(),
				]);
				const byId = new Map(channels.map((c) => [c._id, c]));
				const subscribed = new Set(subs.map((s) => s.channel_id));
				for (const id of ids) {
					const c = byId.get(id);
					if (!c || c.is_archived || !hasContentAccess(graph, actor, c, subscribed.has(id))) throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
				}
				if (channels.some((c) => !c.is_default && !canAddSubscribers(graph, actor, c, subscribed.has(c._id)))) {
					throw badRequest("You do not have permission to subscribe other users to channels.");
				}
				return {};
			},
		},

		/** Channels archived since the invitation was sent are left out. Answers the channels subscribed. */
		subscribeNewUser: {
			visibility: "public",
			params: params({ user_id: p.int(), channel_ids: p.intList(), include_defaults: p.bool() }),
			async handler(ctx: Ctx<{ user_id: number; channel_ids: number[]; include_defaults: boolean }>) {
				const { user_id, channel_ids, include_defaults } = ctx.params;
				const [named, defaults] = await Promise.all([
					channel_ids.length ? db.Channel.find({ _id: { $in: channel_ids }, realm_id: db.realmId, is_archived: false }).lean() : [],
					include_defaults ? db.Channel.find({ realm_id: db.realmId, is_default: true, is_archived: false }).lean() : [],
				]);
				const targets = [...new Map([...named, ...defaults].map((c) => [c._id, c])).values()].sort((a, b) => a.name_key.localeCompare(b.name_key));
				if (!targets.length) return { channel_ids: [] };
				// The account is new: the graph this node holds may predate it.
				db.graphs.invalidate();
				const graph = await db.graphs.get();
				const ops = targets.map((c, i) => ({
					updateOne: {
						filter: { _id: subscriptionKey(user_id, c._id) },
						update: { $setOnInsert: { ...NEW_SUBSCRIPTION, user_id, channel_id: c._id, color: COLORS[i % COLORS.length] }, $set: { active: true, changed_at: clock.nowMs() } },
						upsert: true,
					},
				}));
				await upsertRetrying(() => db.Subscription.bulkWrite(ops));
				const events = await subscriptionsAdded(db, graph, targets.map((channel) => ({ user_id, channel })), []);
				await ctx.broadcast("channels.subscriptionsChanged", { ...events.changed, user_ids: [user_id] } satisfies SubscriptionsChanged);
				return { channel_ids: targets.map((c) => c._id) };
			},
		},
	};
}
