// What Notification Bot says after a topic is moved, resolved or unresolved, in Zulip's words, and
// when it says it (Zulip's rules for PATCH /messages/{id}):
// - Resolving or unresolving a topic is always announced in the topic, as unread only for those
//   who sent or reacted to its messages. Undoing it within a minute, while that notice is still
//   the topic's last message, deletes the notice instead of adding another.
// - `send_notification_to_new_thread` (default true) announces a move in the new topic, unless the
//   request only resolved or unresolved the topic (its own notice is enough).
// - `send_notification_to_old_thread` (default false) announces it in the old topic.
// - "This topic was moved" when no message the mover can see stayed behind (and, for the new
//   topic, none was there already); otherwise the number of messages moved.
import type { Identity } from "../../shared/actions";
import { narrowUrl } from "../../shared/markdown/zulip-markdown";
import { clock } from "../../shared/clock";
import type { MessagesDb } from "./db";
import type { MessageDoc } from "./models/message";
import { resolveChange } from "./edit-rules";

/** Where a topic is: a channel (ID and name) and a topic name. */
export interface Place {
	channel_id: number;
	channel: string;
	topic: string;
}

export interface MoveFacts {
	actor: Identity;
	from: Place;
	to: Place;
	/** The moved messages, oldest first. */
	moved: number[];
	/** No message the mover can see stayed in the old topic. */
	movedAll: boolean;
	/** The new topic held no message the mover could see before the move. */
	newTopicWasEmpty: boolean;
}

/** How long a resolve notice can be taken back by undoing the resolve (Zulip's grace period). */
const RESOLVE_UNDO_SECONDS = 60;

const mention = (u: Identity) => `@_**${u.full_name}|${u.user_id}**`;
const topicLink = (p: Place) => `#**${p.channel}>${p.topic}**`;

export function resolveNotice(actor: Identity, resolved: boolean): string {
	return `${mention(actor)} has marked this topic as ${resolved ? "resolved" : "unresolved"}.`;
}

export function oldTopicNotice(f: MoveFacts): string {
	const where = `${topicLink(f.to)} by ${mention(f.actor)}.`;
	if (f.movedAll) return `This topic was moved to ${where}`;
	if (f.moved.length === 1) return `A message was moved from this topic to ${where}`;
	return `${f.moved.length} messages were moved from this topic to ${where}`;
}

export function newTopicNotice(f: MoveFacts, externalUrl: string): string {
	const where = `${topicLink(f.from)} by ${mention(f.actor)}.`;
	if (f.movedAll && f.newTopicWasEmpty) return `This topic was moved here from ${where}`;
	if (f.moved.length === 1) return `[A message](${externalUrl}${narrowUrl(f.to.channel_id, f.to.channel, f.to.topic)}/near/${f.moved[0]}) was moved here from ${where}`;
	return `${f.moved.length} messages were moved here from ${where}`;
}

/**
 * Whether the caller can see a message in the topic other than `except`: any message where the
 * channel's history is open to them, else only the messages they received.
 */
export async function topicVisible(db: MessagesDb, userId: number, channelId: number, topic: string, historyOpen: boolean, except: number[] = []): Promise<boolean> {
	const topic_key = topic.toLowerCase();
	if (historyOpen) return !!(await db.Message.exists({ channel_id: channelId, topic_key, _id: { $nin: except } }));
	return !!(await db.UserMessage.exists({ user_id: userId, channel_id: channelId, topic_key, message_id: { $nin: except } }));
}

/** Who a resolve notice is unread for: those who sent or reacted to the moved messages. */
export async function participants(db: MessagesDb, moved: number[]): Promise<Set<number>> {
	const [senders, reactors] = await Promise.all([db.Message.distinct("sender_id", { _id: { $in: moved } }), db.Reaction.distinct("user_id", { message_id: { $in: moved } })]);
	return new Set<number>([...senders, ...reactors]);
}

export interface NoticeDeps {
	db: MessagesDb;
	externalUrl: string;
	/** The channels' names, and whether their history is open to the mover. */
	channels(ids: number[]): Promise<Map<number, { name: string; historyOpen: boolean }>>;
	/** Deletes a message (a resolve notice being undone). */
	remove(m: MessageDoc): Promise<void>;
	/** Posts as Notification Bot; the message is unread only for `unreadFor` when given. Returns its ID. */
	post(channelId: number, topic: string, content: string, unreadFor?: Set<number>): Promise<number>;
}

export interface MoveDone {
	actor: Identity;
	from: { channel_id: number; topic: string };
	to: { channel_id: number; topic: string };
	moved: number[];
	propagate: "change_one" | "change_later" | "change_all";
	/** The same request edited the content: Zulip then sends no resolve notice. */
	editedContent: boolean;
	notifyOld: boolean;
	notifyNew: boolean;
}

/** Sends the notices a finished move calls for (see the rules at the top). */
export async function announceMove(d: NoticeDeps, r: MoveDone): Promise<void> {
	const info = await d.channels([...new Set([r.from.channel_id, r.to.channel_id])]);
	const place = (p: { channel_id: number; topic: string }): Place => ({ ...p, channel: info.get(p.channel_id)?.name ?? "" });
	const from = place(r.from);
	const to = place(r.to);
	const change = resolveChange(from.topic, to.topic);
	let resolveNoticeId: number | undefined;
	let resolveUndone = false;
	if (change !== 0 && !r.editedContent) {
		const last = await d.db.Message.findOne({ channel_id: to.channel_id, topic_key: to.topic.toLowerCase() }).sort({ _id: -1 }).lean();
		if (last?.is_resolve_notice && clock.now() - last.timestamp <= RESOLVE_UNDO_SECONDS) {
			await d.remove(last);
			resolveUndone = true;
		} else resolveNoticeId = await d.post(to.channel_id, to.topic, resolveNotice(r.actor, change === 1), await participants(d.db, r.moved));
	}

	// A resolve (or its undo) within the channel says enough in the new topic.
	const notifyNew = r.notifyNew && (from.channel_id !== to.channel_id || (resolveNoticeId === undefined && !resolveUndone));
	if (!notifyNew && !r.notifyOld) return;
	const open = (id: number) => info.get(id)?.historyOpen ?? false;
	const facts: MoveFacts = {
		actor: r.actor,
		from,
		to,
		moved: r.moved,
		movedAll: r.propagate === "change_all" || !(await topicVisible(d.db, r.actor.user_id, from.channel_id, from.topic, open(from.channel_id))),
		newTopicWasEmpty: !(await topicVisible(d.db, r.actor.user_id, to.channel_id, to.topic, open(to.channel_id), [...r.moved, ...(resolveNoticeId ? [resolveNoticeId] : [])])),
	};
	if (notifyNew) await d.post(to.channel_id, to.topic, newTopicNotice(facts, d.externalUrl));
	if (r.notifyOld) await d.post(from.channel_id, from.topic, oldTopicNotice(facts));
}
