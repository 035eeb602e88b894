// POST, DELETE, GET and PATCH /users/me/subscriptions (POST /users/me/subscriptions/properties):
// subscribing (creating channels named for the first time), unsubscribing, the caller's
// subscriptions and their personal properties. Each change is announced for the events service
// (channel-events.ts); the rules live in ../subscribe.ts, ../unsubscribe.ts and
// ../subscription-properties.ts.
import { call, requireUser, type Ctx } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import type { ChannelsCreated, SubscriptionPropertiesChanged, SubscriptionsChanged } from "../../../shared/org-events";
import type { ChannelsDb } from "../db";
import { subscriptionView } from "../channel-view";
import { subscribersOf } from "../channel-lookup";
import { announceDefaults, subscriptionsAdded, subscriptionsRemoved } from "../channel-events";
import { checkNotGuest, subscribe, type SubscribeParams } from "../subscribe";
import { unsubscribe } from "../unsubscribe";
import { updateProperties, type PropertyChange } from "../subscription-properties";
import { subscriptionNotices } from "../notification-bot";
import { subscriptionStatus } from "../subscription-status";
import { channelSettingParams } from "./channel-settings";

const principalsParam = p.either([p.intList(), p.stringList()], { optional: true });

export function subscriptionActions(db: ChannelsDb) {
	return {
		subscribe: {
			params: params({
				subscriptions: p.list(p.object({ name: p.string(), description: p.string({ optional: true }) }, {}), { min: 1 }),
				principals: principalsParam,
				authorization_errors_fatal: p.bool({ optional: true }),
				announce: p.bool({ optional: true }),
				invite_only: p.bool({ optional: true }),
				...channelSettingParams,
			}),
			async handler(ctx: Ctx<SubscribeParams & { principals?: Array<number | string> }>) {
				const actor = requireUser(ctx);
				checkNotGuest(actor);
				const graph = await db.graphs.get();
				const principals = ctx.params.principals?.length ? (await call(ctx, "users.resolvePrincipals", { principals: ctx.params.principals })).users : [];
				const { created, added, ...result } = await subscribe(db, graph, actor, principals, ctx.params);
				const events = await subscriptionsAdded(db, graph, added, created);
				if (created.length) await ctx.broadcast("channels.created", { channel_ids: created, streams: events.created } satisfies ChannelsCreated);
				if (created.length && ctx.params.is_default_stream) await announceDefaults(db, ctx);
				await ctx.broadcast("channels.subscriptionsChanged", {
					...events.changed,
					user_ids: principals.length ? principals.map((u) => u.user_id) : [actor.user_id],
				} satisfies SubscriptionsChanged);
				await subscriptionNotices(ctx, db, graph, actor, { announce: !!ctx.params.announce, principals, created, added });
				return result;
			},
		},

		unsubscribe: {
			params: params({ subscriptions: p.stringList({ min: 1 }), principals: principalsParam }),
			async handler(ctx: Ctx<{ subscriptions: string[]; principals?: Array<number | string> }>) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				const principals = ctx.params.principals?.length ? (await call(ctx, "users.resolvePrincipals", { principals: ctx.params.principals })).users : null;
				const { removed, not_removed, userIds, pairs } = await unsubscribe(db, graph, actor, ctx.params.subscriptions, principals);
				if (removed.length) {
					await ctx.broadcast("channels.subscriptionsChanged", { ...(await subscriptionsRemoved(db, graph, pairs)), user_ids: userIds } satisfies SubscriptionsChanged);
				}
				return { removed, not_removed };
			},
		},

		listSubscriptions: {
			params: params({ include_subscribers: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ include_subscribers?: boolean }>) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				const subs = await db.Subscription.find({ user_id: actor.user_id, active: true }).lean();
				// Archived channels are left out, as Zulip's gather_subscriptions does.
				const channels = new Map((await db.Channel.find({ _id: { $in: subs.map((s) => s.channel_id) }, is_archived: false }).lean()).map((c) => [c._id, c]));
				const subscribers = ctx.params.include_subscribers ? await subscribersOf(db, graph, [...channels.keys()]) : undefined;
				const list = subs
					.filter((s) => channels.has(s.channel_id))
					.map((s) => subscriptionView(graph, channels.get(s.channel_id)!, s, subscribers?.get(s.channel_id)))
					.sort((a, b) => String(a.name).toLowerCase().localeCompare(String(b.name).toLowerCase()));
				return { subscriptions: list };
			},
		},

		subscriptionStatus: {
			params: params({ user_id: p.int(), stream_id: p.int() }),
			async handler(ctx: Ctx<{ user_id: number; stream_id: number }>) {
				requireUser(ctx);
				return { is_subscribed: await subscriptionStatus(db, ctx, ctx.params.user_id, ctx.params.stream_id) };
			},
		},

		updateProperties: {
			params: params({
				subscription_data: p.list(p.object({ stream_id: p.int(), property: p.string(), value: { type: "any", nullable: true } }), { min: 1 }),
			}),
			async handler(ctx: Ctx<{ subscription_data: PropertyChange[] }>) {
				const actor = requireUser(ctx);
				const changes = await updateProperties(db, actor.user_id, ctx.params.subscription_data);
				await ctx.broadcast("channels.subscriptionPropertiesChanged", { user_id: actor.user_id, changes } satisfies SubscriptionPropertiesChanged);
				// As Zulip's update_subscription_properties_backend: a bare success, no echo.
				return {};
			},
		},
	};
}
