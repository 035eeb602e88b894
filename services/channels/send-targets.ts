// Where a channel message goes (channels.sendTarget, channels.notificationTarget): whether the
// sender may post to the channel, named by ID or by name, and who receives the message.
import type { ChannelTarget, Identity } from "../../shared/actions";
import { apiError, badRequest } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import type { ChannelsDb } from "./db";
import type { ChannelDoc } from "./models/channel";
import { subscriptionKey } from "./models/subscription";
import { hasContentAccess, hasMetadataAccess } from "./access";
import { channelDoesNotExist } from "./unsubscribe";
import { subscribersOf } from "./channel-lookup";

/** What the messages service needs to deliver a message into a channel. */
export const sendTargetOf = (channel: ChannelDoc, subscribers: number[]): ChannelTarget => ({
	channel_id: channel._id,
	name: channel.name,
	topics_policy: channel.topics_policy,
	history_public_to_subscribers: channel.history_public_to_subscribers,
	invite_only: channel.invite_only,
	is_web_public: channel.is_web_public,
	is_archived: channel.is_archived,
	subscribers,
});

/**
 * The channel `ref` names, if the sender may post to it (Zulip's errors otherwise), whether the
 * sender muted it, and its subscribers (read beside the sender's subscription: one message, one
 * round trip fewer).
 */
export async function postableChannel(
	db: ChannelsDb,
	graph: GroupGraph,
	actor: Identity,
	ref: number | string,
): Promise<{ channel: ChannelDoc; mutedBySender: boolean; subscribers: number[] }> {
	const channel = await db.Channel.findOne(typeof ref === "number" ? { _id: ref, realm_id: db.realmId } : { realm_id: db.realmId, name_key: ref.trim().toLowerCase() }).lean();
	const [sub, subscribers] = channel
		? await Promise.all([
				db.Subscription.findOne({ _id: subscriptionKey(actor.user_id, channel._id), active: true }, { is_muted: 1 }).lean(),
				subscribersOf(db, graph, [channel._id]),
			])
		: [null, undefined];
	const subscribed = !!sub;
	if (!channel || !hasMetadataAccess(graph, actor, channel, subscribed)) {
		throw typeof ref === "number"
			? apiError(400, "STREAM_DOES_NOT_EXIST", `Channel with ID '${ref}' does not exist`, { stream_id: ref })
			: channelDoesNotExist(ref);
	}
	if (channel.is_archived) throw badRequest(`Not authorized to send to channel '${channel.name}'`);
	if (!hasContentAccess(graph, actor, channel, subscribed) || !graph.allows(channel.settings.can_send_message_group, actor.user_id)) {
		throw badRequest(`You do not have permission to post in this channel.`);
	}
	return { channel, mutedBySender: !!sub?.is_muted, subscribers: subscribers?.get(channel._id) ?? [] };
}
