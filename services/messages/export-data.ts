// The messages service's part of an organization export (shared/zulip-format/): the messages
// of the channels the export holds, a page at a time in ID order, and how many there are (the
// export's size limit). Direct messages and users' flags are never read through the service's
// actions: only a full export reads them (`"all"`), from the management CLI's direct reads of the
// database (deploy/export/), with these same functions.
// Query shapes and their indexes (models/message.ts):
//   messages of some channels after an ID, in ID order -> { channel_id, _id }
//   how many messages some channels hold              -> { channel_id, _id } (prefix)
//   every message after an ID, in ID order           -> _id
//   the reactions to a page of messages (models/reaction.ts) -> { message_id, _id }
//   the users' rows of a page of messages (models/user-message.ts) -> { message_id }
import type { ExportMessage, ExportReaction, ExportUserMessage } from "../../shared/export-rows";
import type { MessagesDb } from "./db";

/** `channelIds`: the channels whose messages are read, or "all": every message, direct ones too. */
export async function exportMessages(db: Pick<MessagesDb, "Message">, channelIds: number[] | "all", afterId: number, limit: number): Promise<ExportMessage[]> {
	const of = channelIds === "all" ? {} : { channel_id: { $in: channelIds } };
	const docs = await db.Message.find({ ...of, _id: { $gt: afterId } })
		.sort({ _id: 1 })
		.limit(limit)
		.lean();
	return docs.map((m) => ({
		id: m._id,
		sender_id: m.sender_id,
		channel_id: m.channel_id,
		dm_user_ids: m.dm_user_ids ?? [],
		topic: m.topic,
		content: m.content,
		rendered_content: m.rendered_content,
		timestamp: m.date_sent ?? m.timestamp,
		client: m.client,
		last_edit_timestamp: m.last_edit_time ?? m.last_edit_timestamp,
		edit_history: m.edit_history?.length ? (m.edit_history as unknown as Array<Record<string, unknown>>) : null,
		has_link: m.has_link,
		has_image: m.has_image,
		has_attachment: m.has_attachment,
		is_resolve_notice: m.is_resolve_notice,
	}));
}

export async function exportReactions(db: Pick<MessagesDb, "Reaction">, messageIds: number[]): Promise<ExportReaction[]> {
	const docs = await db.Reaction.find({ message_id: { $in: messageIds } }).sort({ message_id: 1, _id: 1 }).lean();
	return docs.map((r) => ({ id: r._id, message_id: r.message_id, user_id: r.user_id, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type }));
}

export function exportCount(db: MessagesDb, channelIds: number[]): Promise<number> {
	return db.Message.countDocuments({ channel_id: { $in: channelIds } });
}

/** Every user's flags on these messages (a full export's zerver_usermessage), by message then user. */
export async function exportUserMessages(db: Pick<MessagesDb, "UserMessage">, messageIds: number[]): Promise<ExportUserMessage[]> {
	const docs = await db.UserMessage.find({ message_id: { $in: messageIds } }, { _id: 0, user_id: 1, message_id: 1, flags: 1 }).lean();
	docs.sort((a, b) => a.message_id - b.message_id || a.user_id - b.user_id);
	return docs.map((r) => ({ user_id: r.user_id, message_id: r.message_id, flags: r.flags }));
}
