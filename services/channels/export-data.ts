// The channels service's part of an organization export (shared/zulip-format/): the public
// channels (archived ones too; web-public ones are public) and their subscriptions, read in bulk.
// Query shapes and their indexes (models/):
//   the organization's (public) channels      -> { realm_id, name_key } (prefix)
//   the subscriptions of a batch of channels  -> { channel_id, active } (prefix)
import { subscriptionSettings, type ExportChannel, type ExportSubscription } from "../../shared/export-rows";
import type { ChannelsDb } from "./db";

/**
 * The public channels in ID order (`withPrivate`: every channel, as only a full export reads them,
 * deploy/export/), and which of them are default channels.
 */
export async function exportChannels(db: Pick<ChannelsDb, "Channel" | "realmId">, withPrivate = false): Promise<{ channels: ExportChannel[]; default_channel_ids: number[] }> {
	const docs = (await db.Channel.find({ realm_id: db.realmId, ...(withPrivate ? {} : { invite_only: false }) }).lean()).sort((a, b) => a._id - b._id);
	return {
		channels: docs.map((c) => ({
			id: c._id,
			name: c.name,
			description: c.description,
			rendered_description: c.rendered_description,
			invite_only: c.invite_only,
			is_web_public: c.is_web_public,
			history_public_to_subscribers: c.history_public_to_subscribers,
			is_archived: c.is_archived,
			date_created: c.date_created,
			creator_id: c.creator_id,
			message_retention_days: c.message_retention_days,
			first_message_id: c.first_message_id,
			settings: c.settings ?? {},
		})),
		default_channel_ids: docs.filter((c) => c.is_default).map((c) => c._id),
	};
}

/** Every subscription (past ones too: `active` false) to these channels, by channel then user. */
export async function exportSubscriptions(db: Pick<ChannelsDb, "Subscription">, channelIds: number[]): Promise<ExportSubscription[]> {
	const subs = await db.Subscription.find({ channel_id: { $in: channelIds } }).lean();
	subs.sort((a, b) => a.channel_id - b.channel_id || a.user_id - b.user_id);
	return subs.map((s) => ({
		user_id: s.user_id,
		channel_id: s.channel_id,
		active: s.active,
		...subscriptionSettings(s),
	}));
}
