// Who may see and do what with a channel: the one model every channel action uses.
//
// - Content access (read its messages, add subscribers, delete or move messages): web-public
//   channels; channels the user is subscribed to; public channels for anyone but guests; private
//   channels for users in its can_add_subscribers_group.
// - Metadata access (know it exists, its name, description and subscribers): content access, or
//   administering it (organization administrators administer every channel).
import type { GroupGraph } from "../../shared/group-settings";
import type { ChannelPermissions, Identity } from "../../shared/actions";
import { isAdmin, isGuest, Role } from "../../shared/roles";
import type { ChannelDoc } from "./models/channel";

export type Actor = Pick<Identity, "user_id" | "role">;
/** What content and metadata access read of a channel. */
export type AccessFields = Pick<ChannelDoc, "invite_only" | "is_web_public" | "settings">;

export function isChannelAdmin(graph: GroupGraph, actor: Actor, channel: AccessFields): boolean {
	return isAdmin(actor.role) || graph.allows(channel.settings.can_administer_channel_group, actor.user_id);
}

export function hasContentAccess(graph: GroupGraph, actor: Actor, channel: AccessFields, subscribed: boolean): boolean {
	if (channel.is_web_public || subscribed) return true;
	if (isGuest(actor.role)) return false;
	if (!channel.invite_only) return true;
	return graph.allows(channel.settings.can_add_subscribers_group, actor.user_id);
}

export function hasMetadataAccess(graph: GroupGraph, actor: Actor, channel: AccessFields, subscribed: boolean): boolean {
	return hasContentAccess(graph, actor, channel, subscribed) || isChannelAdmin(graph, actor, channel);
}

/** Adding other users: content access, and the organization's or channel's permission. */
export function canAddSubscribers(graph: GroupGraph, actor: Actor, channel: ChannelDoc, subscribed: boolean): boolean {
	if (!hasContentAccess(graph, actor, channel, subscribed)) return false;
	return (
		isChannelAdmin(graph, actor, channel) ||
		graph.realmAllows("can_add_subscribers_group", actor.user_id) ||
		graph.allows(channel.settings.can_add_subscribers_group, actor.user_id)
	);
}

/** Unsubscribing someone else (the spec's three rules; removing oneself is always allowed). */
export function canRemoveSubscriber(
	graph: GroupGraph,
	actor: Actor,
	channel: ChannelDoc,
	actorSubscribed: boolean,
	target: { user_id: number; is_bot: boolean; bot_owner_id: number | null },
): boolean {
	if (isAdmin(actor.role)) return true;
	const access = hasContentAccess(graph, actor, channel, actorSubscribed);
	if (access && target.is_bot && target.bot_owner_id === actor.user_id) return true;
	return access && graph.allows(channel.settings.can_remove_subscribers_group, actor.user_id);
}

/** Which creation permission a new channel needs. */
export function creationSetting(channel: { invite_only: boolean; is_web_public: boolean }): string {
	if (channel.is_web_public) return "can_create_web_public_channel_group";
	return channel.invite_only ? "can_create_private_channel_group" : "can_create_public_channel_group";
}

/**
 * Every active user who may know about the channel (metadata access), for the events service:
 * public channels reach every member, private ones their subscribers and those who administer
 * them or may add subscribers (Zulip's rule for stream and peer events). Roles come from the
 * system groups.
 */
export function metadataAudience(graph: GroupGraph, channel: ChannelDoc, subscribers: Iterable<number>): number[] {
	const subscribed = new Set(subscribers);
	const admins = graph.members(graph.system("role:administrators"));
	const members = graph.members(graph.system("role:members"));
	const out: number[] = [];
	for (const user_id of graph.members(graph.system("role:everyone"))) {
		const role = admins.has(user_id) ? Role.ADMINISTRATOR : members.has(user_id) ? Role.MEMBER : Role.GUEST;
		if (hasMetadataAccess(graph, { user_id, role }, channel, subscribed.has(user_id))) out.push(user_id);
	}
	return out.sort((a, b) => a - b);
}

/** What the actor may do with messages in a channel, from its group settings and the organization's. */
export function messagePermissions(graph: GroupGraph, actor: Actor, channel: ChannelDoc, subscribed: boolean): ChannelPermissions {
	const content = hasContentAccess(graph, actor, channel, subscribed);
	const admin = isChannelAdmin(graph, actor, channel);
	const allows = (key: keyof ChannelDoc["settings"]) => graph.allows(channel.settings[key], actor.user_id);
	const deleteAny = content && (graph.realmAllows("can_delete_any_message_group", actor.user_id) || allows("can_delete_any_message_group"));
	return {
		content_access: content,
		can_send: content && !channel.is_archived && allows("can_send_message_group"),
		can_delete_any: deleteAny,
		can_delete_own: deleteAny || graph.realmAllows("can_delete_own_message_group", actor.user_id) || allows("can_delete_own_message_group"),
		can_move_within: content && (admin || graph.realmAllows("can_move_messages_between_topics_group", actor.user_id) || allows("can_move_messages_within_channel_group")),
		can_move_out: content && (admin || graph.realmAllows("can_move_messages_between_channels_group", actor.user_id) || allows("can_move_messages_out_of_channel_group")),
		is_archived: channel.is_archived,
		topics_policy: channel.topics_policy,
	};
}
