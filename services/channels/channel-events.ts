// What the channels service tells the events service about subscriptions and channel changes:
// the subscription objects, the channels as users see them, and who may see each change
// (metadataAudience in access.ts), so one broadcast per change carries everything.
import type { GroupGraph } from "../../shared/group-settings";
import type { Ctx } from "../../shared/actions";
import type { ChannelAccessChanged, ChannelUpdated, DefaultChannelsChanged, PeerChange, StreamAudience, SubscriptionsChanged } from "../../shared/org-events";
import type { ChannelsDb } from "./db";
import type { ChannelDoc } from "./models/channel";
import { subscriptionKey } from "./models/subscription";
import { hasMetadataAccess, metadataAudience, type Actor } from "./access";
import { channelView, subscriptionView } from "./channel-view";
import { subscribersOf } from "./channel-lookup";

type Pair = { user_id: number; channel: ChannelDoc };

function byChannel(pairs: Pair[]): Map<number, { channel: ChannelDoc; users: number[] }> {
	const out = new Map<number, { channel: ChannelDoc; users: number[] }>();
	for (const { user_id, channel } of pairs) {
		const entry = out.get(channel._id) ?? { channel, users: [] };
		entry.users.push(user_id);
		out.set(channel._id, entry);
	}
	return out;
}

/** After subscribing: the new channels' audiences, and the subscription, peer and newly visible channel events. */
export async function subscriptionsAdded(db: ChannelsDb, graph: GroupGraph, added: Pair[], created: number[]): Promise<{ created: StreamAudience[]; changed: SubscriptionsChanged }> {
	const channels = byChannel(added);
	const subscribers = await subscribersOf(db, graph, [...channels.keys()]);
	const subs = new Map((await db.Subscription.find({ _id: { $in: added.map((a) => subscriptionKey(a.user_id, a.channel._id)) } }).lean()).map((s) => [s._id, s]));
	const createdStreams: StreamAudience[] = [];
	const streams: StreamAudience[] = [];
	const peers: PeerChange[] = [];
	for (const [id, { channel, users }] of channels) {
		const now = subscribers.get(id) ?? [];
		const audience = metadataAudience(graph, channel, now);
		if (created.includes(id)) createdStreams.push({ stream: channelView(graph, channel), user_ids: audience });
		else {
			// A private channel (or, for a guest, a public one) the new subscriber could not see before.
			const before = new Set(metadataAudience(graph, channel, now.filter((u) => !users.includes(u))));
			const newly = users.filter((u) => !before.has(u));
			if (newly.length) streams.push({ stream: channelView(graph, channel), user_ids: newly });
		}
		peers.push({ stream_id: id, user_ids: [...users].sort((a, b) => a - b), audience: audience.filter((u) => !users.includes(u)) });
	}
	const perUser = new Map<number, Array<Record<string, unknown>>>();
	for (const { user_id, channel } of added) {
		const sub = subs.get(subscriptionKey(user_id, channel._id));
		if (!sub) continue;
		const list = perUser.get(user_id) ?? [];
		list.push(subscriptionView(graph, channel, sub, subscribers.get(channel._id)));
		perUser.set(user_id, list);
	}
	const changed: SubscriptionsChanged = {
		user_ids: [...perUser.keys()],
		op: "add",
		added: [...perUser].map(([user_id, subscriptions]) => ({ user_id, subscriptions })),
		peers,
		streams,
	};
	return { created: createdStreams, changed };
}

/** After unsubscribing: the removals, peer events, and channels the users can no longer see. */
export async function subscriptionsRemoved(db: ChannelsDb, graph: GroupGraph, removed: Pair[]): Promise<SubscriptionsChanged> {
	const channels = byChannel(removed);
	const subscribers = await subscribersOf(db, graph, [...channels.keys()]);
	const streams: StreamAudience[] = [];
	const peers: PeerChange[] = [];
	for (const [id, { channel, users }] of channels) {
		const audience = metadataAudience(graph, channel, subscribers.get(id) ?? []);
		const lost = users.filter((u) => !audience.includes(u));
		if (lost.length) streams.push({ stream: channelView(graph, channel), user_ids: lost });
		peers.push({ stream_id: id, user_ids: [...users].sort((a, b) => a - b), audience: audience.filter((u) => !users.includes(u)) });
	}
	const perUser = new Map<number, Array<{ stream_id: number; name: string }>>();
	for (const { user_id, channel } of removed) perUser.set(user_id, [...(perUser.get(user_id) ?? []), { stream_id: channel._id, name: channel.name }]);
	return { user_ids: [...perUser.keys()], op: "remove", removed: [...perUser].map(([user_id, subscriptions]) => ({ user_id, subscriptions })), peers, streams };
}

/** An archived channel, to those who could see it. */
export async function channelArchived(db: ChannelsDb, graph: GroupGraph, channel: ChannelDoc): Promise<StreamAudience> {
	const subscribers = (await subscribersOf(db, graph, [channel._id])).get(channel._id) ?? [];
	return { stream: channelView(graph, { ...channel, is_archived: true, is_default: false }), user_ids: metadataAudience(graph, channel, subscribers) };
}

/** A channel edit: the channel before and after, and who sees it (gaining or losing sight of it). */
export async function channelUpdated(db: ChannelsDb, graph: GroupGraph, before: ChannelDoc, after: ChannelDoc, changes: Record<string, unknown>): Promise<ChannelUpdated> {
	const subscribers = (await subscribersOf(db, graph, [before._id])).get(before._id) ?? [];
	const audienceBefore = metadataAudience(graph, before, subscribers);
	const audience = metadataAudience(graph, after, subscribers);
	const diff = (a: number[], b: number[]) => {
		const out = new Set(b);
		return a.filter((u) => !out.has(u));
	};
	// Without the archived_channels capability, an archived channel is seen by no one.
	const was = before.is_archived ? [] : audienceBefore;
	const now = after.is_archived ? [] : audience;
	return {
		channel_id: before._id,
		changes,
		stream: channelView(graph, after),
		before: channelView(graph, before),
		old_name: before.name,
		audience,
		gained: diff(now, was),
		lost: diff(was, now),
		gained_with_archived: diff(audience, audienceBefore),
		lost_with_archived: diff(audienceBefore, audience),
	};
}

/** The channels (not archived) a user with this role may know about. */
export async function visibleChannelIds(db: ChannelsDb, graph: GroupGraph, actor: Actor): Promise<number[]> {
	const [channels, subs] = await Promise.all([
		db.Channel.find({ realm_id: db.realmId, is_archived: false }).lean(),
		db.Subscription.find({ user_id: actor.user_id, active: true }, { channel_id: 1 }).lean(),
	]);
	const subscribed = new Set(subs.map((s) => s.channel_id));
	return channels.filter((c) => hasMetadataAccess(graph, actor, c, subscribed.has(c._id))).map((c) => c._id);
}

/**
 * After a role change (Zulip's send_stream_events_for_role_update): the channels the user now
 * sees, with their subscribers, and those it no longer sees; `before` is what it saw before.
 */
export async function channelAccessChanged(db: ChannelsDb, graph: GroupGraph, actor: Actor, before: number[]): Promise<ChannelAccessChanged> {
	const now = await visibleChannelIds(db, graph, actor);
	const was = new Set(before);
	const gained = now.filter((id) => !was.has(id));
	const lostIds = before.filter((id) => !now.includes(id));
	const [channels, subscribers] = await Promise.all([
		db.Channel.find({ _id: { $in: [...gained, ...lostIds] } }).sort({ _id: 1 }).lean(),
		subscribersOf(db, graph, gained),
	]);
	const view = (ids: number[]) => channels.filter((c) => ids.includes(c._id)).map((c) => channelView(graph, c));
	const created = view(gained);
	return {
		user_id: actor.user_id,
		created,
		peers: created.map((s) => ({ stream_id: s.stream_id as number, user_ids: subscribers.get(s.stream_id as number) ?? [] })),
		deleted: view(lostIds),
	};
}

/**
 * After a user's deactivation or reactivation: peer_remove or peer_add for each channel the user
 * is subscribed to, to those who may see its subscribers (Zulip sends them with the change).
 */
export async function activityPeers(db: ChannelsDb, graph: GroupGraph, userId: number, active: boolean): Promise<SubscriptionsChanged> {
	const subs = await db.Subscription.find({ user_id: userId, active: true }, { channel_id: 1 }).lean();
	const channels = await db.Channel.find({ _id: { $in: subs.map((s) => s.channel_id) }, is_archived: false }).sort({ _id: 1 }).lean();
	const subscribers = await subscribersOf(db, graph, channels.map((c) => c._id));
	const peers: PeerChange[] = channels.map((c) => ({
		stream_id: c._id,
		user_ids: [userId],
		audience: metadataAudience(graph, c, subscribers.get(c._id) ?? []).filter((u) => u !== userId),
	}));
	return { user_ids: [userId], op: active ? "add" : "remove", peers };
}

/** The default channels now, for the `default_streams` event to the active non-guest users (Zulip's audience). */
export async function announceDefaults(db: ChannelsDb, ctx: Ctx<any>) {
	const graph = await db.graphs.get();
	const defaults = await db.Channel.find({ realm_id: db.realmId, is_default: true, is_archived: false }).sort({ name_key: 1 }).lean();
	const user_ids = [...graph.members(graph.system("role:members"))];
	await ctx.broadcast("channels.defaultsChanged", { default_streams: defaults.map((c) => channelView(graph, c)), user_ids } satisfies DefaultChannelsChanged);
}
