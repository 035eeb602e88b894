// A channel's first_message_id after some of its messages were deleted, as Zulip's
// check_update_first_message_id: only when the deleted messages include the channel's first
// message, which then becomes the oldest message left (null when none is left).
import type { ChannelsDb } from "./db";
import type { ChannelDoc } from "./models/channel";

/**
 * Moves the channel's first message to `firstLeft` when the deleted `messageIds` held it; answers
 * the channel as it now is, or null when its first message was not among them.
 */
export async function firstMessageDeleted(db: ChannelsDb, channelId: number, messageIds: number[], firstLeft: number | null): Promise<ChannelDoc | null> {
	if (!messageIds.length) return null;
	return db.Channel.findOneAndUpdate(
		{ _id: channelId, realm_id: db.realmId, first_message_id: { $in: messageIds } },
		{ $set: { first_message_id: firstLeft } },
		{ returnDocument: "after" },
	).lean();
}
