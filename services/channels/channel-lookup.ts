// Finding channels as a caller sees them: a channel the caller may know about (else "Invalid
// channel ID"), the channels a user is subscribed to, and each channel's active subscribers; for the
// lookups that write nothing, channels and subscriptions from the node's cache (read-cache.ts).
import { requireUser, type Ctx, type Identity } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import type { ChannelsDb } from "./db";
import type { ChannelDoc } from "./models/channel";
import { rawFind } from "../../shared/db";
import { CACHED_PROJECTION, type CachedChannel } from "./read-cache";
import { subscriptionKey } from "./models/subscription";
import { hasMetadataAccess } from "./access";

export const invalidChannel = () => badRequest("Invalid channel ID");

export async function activeSubs(db: ChannelsDb, userId: number): Promise<Set<number>> {
	return new Set((await db.Subscription.find({ user_id: userId, active: true }, { channel_id: 1 }).lean()).map((s) => s.channel_id));
}

/** These channels of the organization (unknown ones left out), from the node's cache. */
export async function cachedChannels(db: ChannelsDb, ids: number[]): Promise<CachedChannel[]> {
	const found = await db.reads.channels.getMany(ids, async (missing) => {
		const docs = await rawFind<CachedChannel>(db.Channel, { _id: { $in: missing }, realm_id: db.realmId }, { projection: CACHED_PROJECTION });
		return new Map(docs.map((c) => [c._id, c]));
	});
	return [...found.values()];
}

/** The channels a user is actively subscribed to, from the node's cache. */
export function cachedSubscriptions(db: ChannelsDb, userId: number): Promise<ReadonlySet<number>> {
	return db.reads.subscribed.get(userId, () => activeSubs(db, userId));
}

/** The caller, the group graph, and a channel the caller may know about (else "Invalid channel ID"). */
export async function visibleChannel(db: ChannelsDb, ctx: Ctx<any>, channelId: number): Promise<{ actor: Identity; graph: GroupGraph; channel: ChannelDoc; subscribed: boolean }> {
	const actor = requireUser(ctx);
	const graph = await db.graphs.get();
	const channel = await db.Channel.findOne({ _id: channelId, realm_id: db.realmId }).lean();
	if (!channel) throw invalidChannel();
	const subscribed = !!(await db.Subscription.exists({ _id: subscriptionKey(actor.user_id, channelId), active: true }));
	if (!hasMetadataAccess(graph, actor, channel, subscribed)) throw invalidChannel();
	return { actor, graph, channel, subscribed };
}

/** Active subscribers of each channel (deactivated users left out). */
export async function subscribersOf(db: ChannelsDb, graph: GroupGraph, channelIds: number[]): Promise<Map<number, number[]>> {
	const out = new Map<number, number[]>(channelIds.map((id) => [id, []]));
	const subs = await db.Subscription.find({ channel_id: { $in: channelIds }, active: true }, { user_id: 1, channel_id: 1 }).lean();
	for (const s of subs) if (graph.isActive(s.user_id)) out.get(s.channel_id)!.push(s.user_id);
	for (const list of out.values()) list.sort((a, b) => a - b);
	return out;
}

export async function allChannels(db: ChannelsDb): Promise<ChannelDoc[]> {
	return db.Channel.find({ realm_id: db.realmId }).sort({ name_key: 1 }).lean();
}
