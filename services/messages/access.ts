// Which messages a user may see: those they received (they have a row), and channel messages in a
// channel whose content they may access and whose whole history is open to its subscribers.
import { badRequest } from "../../shared/errors";
import type { MessagesDb } from "./db";
import type { MessageDoc } from "./models/message";
import type { Resolvers } from "./resolvers";

export const invalidMessages = () => badRequest("Invalid message(s)");

export interface Access {
	/** The IDs the user has rows for. */
	received: Set<number>;
	/** The other messages: seen through an open channel history, never received. */
	unreceived: MessageDoc[];
}

/**
 * Checks that the user may see every one of `ids` (one query for rows, one for the messages they
 * lack, one call for the channels); throws "Invalid message(s)" otherwise.
 */
export async function checkAccess(db: MessagesDb, userId: number, ids: number[], readable: Resolvers["readable"]): Promise<Access> {
	const unique = [...new Set(ids)];
	const rows = await db.UserMessage.find({ user_id: userId, message_id: { $in: unique } }, { message_id: 1 }).lean();
	const received = new Set(rows.map((r) => r.message_id));
	const missing = unique.filter((id) => !received.has(id));
	if (!missing.length) return { received, unreceived: [] };
	const unreceived = await db.Message.find({ _id: { $in: missing } }).lean();
	if (unreceived.length < missing.length || unreceived.some((m) => m.channel_id === null)) throw invalidMessages();
	const channelIds = [...new Set(unreceived.map((m) => m.channel_id!))];
	const open = new Set((await readable(channelIds)).filter((c) => c.history_public_to_subscribers).map((c) => c.channel_id));
	if (channelIds.some((c) => !open.has(c))) throw invalidMessages();
	return { received, unreceived };
}

/** One message the user may see, as checkAccess decides; "Invalid message(s)" otherwise. */
export async function accessibleMessage(db: MessagesDb, userId: number, id: number, readable: Resolvers["readable"]): Promise<MessageDoc> {
	const { unreceived } = await checkAccess(db, userId, [id], readable);
	const m = unreceived[0] ?? (await db.Message.findById(id).lean());
	if (!m) throw invalidMessages();
	return m;
}

/**
 * Of `ids`, those the user may see, as checkAccess decides, refusing none: the rows they have,
 * then the channel messages among the rest in channels whose shared history they may read.
 */
export async function readableAmong(db: MessagesDb, userId: number, ids: number[], readable: Resolvers["readable"]): Promise<number[]> {
	const unique = [...new Set(ids)];
	const rows = await db.UserMessage.find({ user_id: userId, message_id: { $in: unique } }, { message_id: 1 }).lean();
	const received = new Set(rows.map((r) => r.message_id));
	const missing = unique.filter((id) => !received.has(id));
	if (!missing.length) return [...received];
	const others = await db.Message.find({ _id: { $in: missing }, channel_id: { $ne: null } }, { _id: 1, channel_id: 1 }).lean();
	const channelIds = [...new Set(others.map((m) => m.channel_id!))];
	const open = channelIds.length ? new Set((await readable(channelIds)).filter((c) => c.history_public_to_subscribers).map((c) => c.channel_id)) : new Set<number>();
	return [...received, ...others.filter((m) => open.has(m.channel_id!)).map((m) => m._id)];
}
