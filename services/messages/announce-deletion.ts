// Announcing deleted messages as Zulip's _process_grouped_messages_deletion does: for a channel's
// messages, first the channel's first_message_id when they held it (the channels service moves it
// to the oldest message left and tells the same users), then the delete_message event.
import { call, type Ctx } from "../../shared/actions";
import type { MessagesDb } from "./db";

/** What `messages.deleted` carries (edit-rules.ts deletedPayload, delete-topic.ts). */
export interface DeletedMessages {
	message_ids: number[];
	channel_id?: number;
	message_type: string;
	stream_id?: number;
	topic?: string;
	/** Everyone who had any of them, and the deleting user. */
	user_ids: number[];
}

/** After the messages are gone from the store. */
export async function announceDeletion(ctx: Ctx<any>, db: MessagesDb, deleted: DeletedMessages): Promise<void> {
	const channelId = deleted.channel_id;
	if (channelId !== undefined) {
		const first = await db.Message.findOne({ channel_id: channelId }, { _id: 1 }).sort({ _id: 1 }).lean();
		// The messages are deleted: a failure here is logged, and the deletion still announced.
		await call(ctx, "channels.firstMessageDeleted", { channel_id: channelId, message_ids: deleted.message_ids, first_message_id: first?._id ?? null, user_ids: deleted.user_ids }).catch(
			(err: unknown) => ctx.service?.logger.error({ err, channel_id: channelId }, "first message update failed"),
		);
	}
	// The files they linked lose them (Zulip moves the claims to the archive); the files stay.
	await call(ctx, "uploads.unclaim", { message_ids: deleted.message_ids }).catch((err: unknown) => ctx.service?.logger.error({ err }, "dropping deleted messages' uploads failed"));
	await ctx.broadcast("messages.deleted", deleted);
}
