// The channels service's per-node cache for the readable-channel lookup of every message page
// (channels.readableChannels) and the message-support lookups that read the same thing: channels
// by ID (only the fields access and those lookups read: never the ones each message sent rewrites,
// last_message_at, first_message_id, has_named_topics) and each user's set of actively subscribed
// channel IDs. Cleaned by the service's own broadcasts (channelCacheEvents), so only lookups that
// write nothing use it: an action reading its own write before broadcasting it reads the store.
import { NodeCache } from "../../shared/node-cache";
import type { ChannelsCreated, ChannelsArchived, ChannelUpdated, SubscriptionsChanged } from "../../shared/org-events";
import type { ChannelDoc } from "./models/channel";

const CACHED_FIELDS = ["_id", "realm_id", "name", "invite_only", "is_web_public", "history_public_to_subscribers", "settings"] as const;
export type CachedChannel = Pick<ChannelDoc, (typeof CACHED_FIELDS)[number]>;
export const CACHED_PROJECTION = Object.fromEntries(CACHED_FIELDS.map((f) => [f, 1]));

/** Channels and users remembered at most (each cache starts over past it). */
const MAX_CHANNELS = 20_000;
const MAX_USERS = 20_000;

export class ChannelReadCache {
	readonly channels = new NodeCache<number, CachedChannel>(MAX_CHANNELS);
	readonly subscribed = new NodeCache<number, ReadonlySet<number>>(MAX_USERS);

	all(): Array<NodeCache<number, unknown>> {
		return [this.channels, this.subscribed];
	}
}

/**
 * What drops entries, on every node: the service's broadcasts after each write to what is cached.
 * Channels: created (channels.created), renamed, made private or public, their settings changed,
 * unarchived (channels.updated), archived (channels.archived); default-channel changes and the
 * fields messages rewrite are not cached. Subscriptions: every subscribe, unsubscribe and new
 * user's subscription is announced as channels.subscriptionsChanged, naming the users (`user_ids`,
 * and those of `added` and `removed`); property changes (color, muting, ...) are not cached.
 */
export function channelCacheEvents(reads: () => ChannelReadCache | undefined) {
	return {
		"channels.created"(ctx: { params: ChannelsCreated }) {
			reads()?.channels.forget(ctx.params.channel_ids);
		},
		"channels.updated"(ctx: { params: ChannelUpdated }) {
			reads()?.channels.forget([ctx.params.channel_id]);
		},
		"channels.archived"(ctx: { params: ChannelsArchived }) {
			reads()?.channels.forget(ctx.params.channel_ids);
		},
		"channels.subscriptionsChanged"(ctx: { params: SubscriptionsChanged }) {
			const { user_ids, added, removed } = ctx.params;
			reads()?.subscribed.forget([...user_ids, ...(added ?? []).map((a) => a.user_id), ...(removed ?? []).map((r) => r.user_id)]);
		},
	};
}
