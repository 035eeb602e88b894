// Submessages as message objects and events show them, and the reads the POST /submessage rules
// need. Only messages flagged has_submessages are looked up: most pages need no query at all.
import type { MessagesDb } from "./db";
import { byMessage } from "./by-message";
import type { MessageDoc } from "./models/message";
import type { SubmessageDoc } from "./models/submessage";
import { widgetTypeOf } from "./widgets";

/** A submessage in a message object's `submessages`. */
export const submessageView = (s: SubmessageDoc) => ({ msg_type: s.msg_type, content: s.content, message_id: s.message_id, sender_id: s.sender_id, id: s._id });

/** The submessages of some messages, oldest first, grouped by message: one query for a page. */
export async function submessagesOf(db: MessagesDb, messages: Array<Pick<MessageDoc, "_id" | "has_submessages">>): Promise<Map<number, SubmessageDoc[]>> {
	const ids = messages.filter((m) => m.has_submessages).map((m) => m._id);
	if (!ids.length) return new Map();
	return byMessage(await db.Submessage.find(ids.length === 1 ? { message_id: ids[0] } : { message_id: { $in: ids } }).sort({ message_id: 1, _id: 1 }).lean());
}

/**
 * verify_submessage_sender: the first submessage of a message is its sender's; others may add
 * theirs once the sender has attached one (the widget, for a /poll or /todo message).
 */
export async function senderAttached(db: MessagesDb, m: Pick<MessageDoc, "_id" | "sender_id" | "has_submessages">): Promise<boolean> {
	return !!m.has_submessages && (await db.Submessage.exists({ message_id: m._id, sender_id: m.sender_id })) !== null;
}

/** get_widget_type: what the message's first "widget" submessage names (null for none). */
export async function widgetTypeOfMessage(db: MessagesDb, m: Pick<MessageDoc, "_id" | "has_submessages">): Promise<string | null> {
	if (!m.has_submessages) return null;
	const widget = await db.Submessage.findOne({ message_id: m._id, msg_type: "widget" }, { content: 1 }).sort({ _id: 1 }).lean();
	return widget ? widgetTypeOf(widget.content) : null;
}
