// How channels and subscriptions look in the API.
import type { GroupGraph } from "../../shared/group-settings";
import { clock } from "../../shared/clock";
import { CHANNEL_GROUP_SETTINGS, type ChannelDoc } from "./models/channel";
import type { SubscriptionDoc } from "./models/subscription";

/** A channel with messages (or created) within this many days counts as recently active. */
const RECENTLY_ACTIVE_DAYS = 180;

/**
 * The deprecated stream_post_policy, derived from can_send_message_group: 1 anyone, 2 only
 * administrators, 3 only full members, 4 only moderators.
 */
function streamPostPolicy(graph: GroupGraph, channel: ChannelDoc): number {
	const who = channel.settings.can_send_message_group;
	if (typeof who !== "number") return 1;
	const name = graph.get(who)?.name;
	return name === "role:administrators" ? 2 : name === "role:fullmembers" ? 3 : name === "role:moderators" ? 4 : 1;
}

export function channelView(graph: GroupGraph, c: ChannelDoc): Record<string, unknown> {
	const policy = streamPostPolicy(graph, c);
	const since = clock.now() - RECENTLY_ACTIVE_DAYS * 86400;
	const out: Record<string, unknown> = {
		stream_id: c._id,
		name: c.name,
		is_archived: c.is_archived,
		description: c.description,
		rendered_description: c.rendered_description,
		date_created: c.date_created,
		creator_id: c.creator_id,
		invite_only: c.invite_only,
		is_web_public: c.is_web_public,
		stream_post_policy: policy,
		is_announcement_only: policy === 2,
		message_retention_days: c.message_retention_days,
		history_public_to_subscribers: c.history_public_to_subscribers,
		topics_policy: c.topics_policy,
		first_message_id: c.first_message_id,
		folder_id: c.folder_id,
		is_recently_active: (c.last_message_at ?? c.date_created) >= since,
		stream_weekly_traffic: null,
	};
	for (const key of CHANNEL_GROUP_SETTINGS) out[key] = c.settings[key];
	return out;
}

export function subscriptionView(graph: GroupGraph, c: ChannelDoc, s: SubscriptionDoc, subscribers?: number[]): Record<string, unknown> {
	const out: Record<string, unknown> = {
		...channelView(graph, c),
		color: s.color,
		is_muted: s.is_muted ?? false,
		in_home_view: !s.is_muted,
		pin_to_top: s.pin_to_top ?? false,
		// Stored null (follow the global setting) may come back absent from the store.
		desktop_notifications: s.desktop_notifications ?? null,
		audible_notifications: s.audible_notifications ?? null,
		push_notifications: s.push_notifications ?? null,
		email_notifications: s.email_notifications ?? null,
		wildcard_mentions_notify: s.wildcard_mentions_notify ?? null,
	};
	if (subscribers) out.subscribers = subscribers;
	return out;
}

/** Colors handed to new subscriptions in turn. */
export const COLORS = [
	"#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
	"#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
];
