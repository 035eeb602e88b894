// GET /streams: which channels its filters list for the caller (Zulip's rules), among those the
// caller may know about.
import type { Identity } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import { isAdmin, isGuest } from "../../shared/roles";
import type { ChannelDoc } from "./models/channel";
import { hasContentAccess, hasMetadataAccess } from "./access";

export interface StreamFilters {
	include_public?: boolean;
	include_web_public?: boolean;
	include_subscribed?: boolean;
	exclude_archived?: boolean;
	include_all?: boolean;
	include_default?: boolean;
	include_owner_subscribed?: boolean;
	include_can_access_content?: boolean;
	include_all_active?: boolean;
}

/** include_all_active is for administrators. */
export function checkFilters(actor: Identity, q: StreamFilters): void {
	if (q.include_all_active && !isAdmin(actor.role)) throw badRequest("User not authorized for this query");
}

/** `subs`: the caller's subscriptions; `ownerSubs`: a bot's owner's (include_owner_subscribed). */
export function listedChannels(graph: GroupGraph, actor: Identity, channels: ChannelDoc[], q: StreamFilters, subs: Set<number>, ownerSubs: Set<number>): ChannelDoc[] {
	const includeAll = q.include_all || q.include_all_active;
	return channels.filter((c) => {
		if ((q.exclude_archived ?? true) && c.is_archived) return false;
		const subscribed = subs.has(c._id);
		if (!hasMetadataAccess(graph, actor, c, subscribed) && !(q.include_owner_subscribed && ownerSubs.has(c._id))) return false;
		return (
			!!includeAll ||
			((q.include_public ?? true) && !c.invite_only && !isGuest(actor.role)) ||
			(!!q.include_web_public && c.is_web_public) ||
			((q.include_subscribed ?? true) && subscribed) ||
			(!!q.include_default && c.is_default) ||
			(!!q.include_can_access_content && hasContentAccess(graph, actor, c, subscribed)) ||
			(!!q.include_owner_subscribed && ownerSubs.has(c._id))
		);
	});
}
