// The messages service's part of an organization export (services/uploads/export/): the messages
// of the channels the export holds, a page at a time in ID order, and how many there are (the
// export's size limit). Direct messages are never read here.
// Query shapes and their indexes (models/message.ts):
//   messages of some channels after an ID, in ID order -> { channel_id, _id }
//   how many messages some channels hold              -> { channel_id, _id } (prefix)
//   the reactions to a page of messages (models/reaction.ts) -> { message_id, _id }
import type { ExportMessage, ExportReaction } from "../../shared/export-rows";
import type { MessagesDb } from "./db";

export async function exportMessages(db: MessagesDb, channelIds: number[], afterId: number, limit: number): Promise<ExportMessage[]> {
	const docs = await db.Message.find({ channel_id: { $in: channelIds }, _id: { $gt: afterId } })
		.sort({ _id: 1 })
		.limit(limit)
		.lean();
	return docs.map((m) => ({
		id: m._id,
		sender_id: m.sender_id,
		channel_id: m.channel_id!,
		topic: m.topic,
		content: m.content,
		rendered_content: m.rendered_content,
		timestamp: m.timestamp,
		client: m.client,
		last_edit_timestamp: m.last_edit_timestamp,
		edit_history: m.edit_history?.length ? (m.edit_history as unknown as Array<Record<string, unknown>>) : null,
		has_link: m.has_link,
		has_image: m.has_image,
		has_attachment: m.has_attachment,
		is_resolve_notice: m.is_resolve_notice,
	}));
}

export async function exportReactions(db: MessagesDb, messageIds: number[]): Promise<ExportReaction[]> {
	const docs = await db.Reaction.find({ message_id: { $in: messageIds } }).sort({ message_id: 1, _id: 1 }).lean();
	return docs.map((r) => ({ id: r._id, message_id: r.message_id, user_id: r.user_id, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type }));
}

export function exportCount(db: MessagesDb, channelIds: number[]): Promise<number> {
	return db.Message.countDocuments({ channel_id: { $in: channelIds } });
}
