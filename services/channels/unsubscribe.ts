// DELETE /users/me/subscriptions: unsubscribe the caller or, with permission, other users.
import type { Identity, Principal } from "../../shared/actions";
import { clock } from "../../shared/clock";
import { apiError, insufficientPermission } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import type { ChannelsDb } from "./db";
import type { ChannelDoc } from "./models/channel";
import { subscriptionKey } from "./models/subscription";
import { canRemoveSubscriber, hasMetadataAccess } from "./access";

export const channelDoesNotExist = (name: string) => apiError(400, "STREAM_DOES_NOT_EXIST", `Channel '${name}' does not exist`, { stream: name });

export async function unsubscribe(
	db: ChannelsDb,
	graph: GroupGraph,
	actor: Identity,
	names: string[],
	principals: Principal[] | null,
): Promise<{ removed: string[]; not_removed: string[]; channelIds: number[]; userIds: number[]; pairs: Array<{ user_id: number; channel: ChannelDoc }> }> {
	const keys = [...new Set(names.map((n) => n.trim().toLowerCase()))];
	const channels = new Map((await db.Channel.find({ realm_id: db.realmId, name_key: { $in: keys } }).lean()).map((c) => [c.name_key, c]));
	const actorSubs = new Set((await db.Subscription.find({ user_id: actor.user_id, active: true }).lean()).map((s) => s.channel_id));

	// A channel the caller may not know about is reported as not existing.
	const targets: ChannelDoc[] = [];
	for (const name of names) {
		const c = channels.get(name.trim().toLowerCase());
		if (!c || !hasMetadataAccess(graph, actor, c, actorSubs.has(c._id))) throw channelDoesNotExist(name);
		if (!targets.includes(c)) targets.push(c);
	}

	const users = principals ?? [{ user_id: actor.user_id, role: actor.role, is_bot: actor.is_bot, bot_owner_id: null }];
	for (const c of targets) {
		for (const u of users) {
			if (u.user_id !== actor.user_id && !canRemoveSubscriber(graph, actor, c, actorSubs.has(c._id), u)) throw insufficientPermission();
		}
	}

	const subs = new Map(
		(await db.Subscription.find({ user_id: { $in: users.map((u) => u.user_id) }, channel_id: { $in: targets.map((c) => c._id) }, active: true }).lean()).map((s) => [s._id, s]),
	);
	// One entry per (user, channel) pair, as Zulip reports it.
	const removed: string[] = [];
	const notRemoved: string[] = [];
	const ids: string[] = [];
	const pairs: Array<{ user_id: number; channel: ChannelDoc }> = [];
	for (const c of targets) {
		for (const u of users) {
			const key = subscriptionKey(u.user_id, c._id);
			if (subs.has(key)) {
				ids.push(key);
				pairs.push({ user_id: u.user_id, channel: c });
				removed.push(c.name);
			} else notRemoved.push(c.name);
		}
	}
	if (ids.length) await db.Subscription.updateMany({ _id: { $in: ids } }, { $set: { active: false, changed_at: clock.nowMs() } });
	return { removed, not_removed: notRemoved, channelIds: targets.map((c) => c._id), userIds: users.map((u) => u.user_id), pairs };
}
