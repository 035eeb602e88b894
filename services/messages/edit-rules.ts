// Editing, moving and deleting messages: who may, until when, and what the history records.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { ChannelPermissions, Identity } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import { clock } from "../../shared/clock";
import { isAdmin, isModerator } from "../../shared/roles";
import type { MessagesDb } from "./db";
import type { EditRecord, MessageDoc } from "./models/message";
import { userMessageKey } from "./models/user-message";
import { checkContent, checkTopic } from "./send-rules";
import type { Rendered } from "../../shared/markdown/render";
import { allWords, contentWords, topicWords } from "./search";
import { topicForClient } from "../../shared/topics";


export const noEditPermission = () => badRequest("You don't have permission to edit this message");
export const MENTION_FLAGS = ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"];

/** Resolving a topic prefixes "✔ "; that and undoing it are not moves. */
export const RESOLVED_PREFIX = "✔ ";
/** Resolving adds the prefix to the same name, unresolving removes it: +1, -1, or 0 for neither. */
export function resolveChange(before: string, after: string): 1 | -1 | 0 {
	if (after === RESOLVED_PREFIX + before) return 1;
	if (before === RESOLVED_PREFIX + after) return -1;
	return 0;
}

const withinLimit = (m: MessageDoc, limit: number | null) => limit === null || clock.now() - m.timestamp <= limit;

/** Checks a content edit: only the sender, while the organization allows it and in time. */
export function checkContentEdit(graph: GroupGraph, actor: Identity, m: MessageDoc, raw: string): string {
	if (m.sender_id !== actor.user_id) throw noEditPermission();
	if (!graph.messaging.allow_message_editing) throw badRequest("Your organization has turned off message editing");
	if (!withinLimit(m, graph.messaging.edit_limit_seconds)) throw badRequest("The time limit for editing this message has passed");
	return checkContent(raw);
}

/** Checks a move (topic and/or channel) and returns the topic it moves to. */
export function checkMove(
	graph: GroupGraph,
	actor: Identity,
	m: MessageDoc,
	source: ChannelPermissions,
	target: ChannelPermissions | null,
	rawTopic: string | undefined,
): string {
	if (m.type !== "stream") throw badRequest("Direct messages cannot be moved to a topic or channel.");
	const policy = (target ?? source).topics_policy;
	const topic = rawTopic === undefined ? m.topic : checkTopic(rawTopic, graph.emptyTopicDisplayName, policy === "inherit" ? graph.topicsPolicy : policy);
	// Administrators and moderators are exempt from the time limits.
	const exempt = isModerator(actor.role);
	if (target) {
		if (!source.can_move_out || !target.can_send) throw noEditPermission();
		if (!exempt && !withinLimit(m, graph.messaging.move_between_limit_seconds)) throw badRequest("The time limit for editing this message's channel has passed");
	} else if (topic !== m.topic) {
		const ownAndFree = m.sender_id === actor.user_id && source.content_access;
		if (!source.can_move_within && !ownAndFree) throw noEditPermission();
		if (!exempt && !withinLimit(m, graph.messaging.move_within_limit_seconds)) throw badRequest("The time limit for editing this message's topic has passed");
	}
	return topic;
}

/**
 * Writes a content edit, its history record, and the recipients' new mention flags. `moved` is
 * what a move in the same request changed (moveRecord): as in Zulip, one request makes one
 * history record for the edited message, with the content and the topic or channel in it.
 */
export async function applyContentEdit(
	db: MessagesDb,
	actor: Identity,
	m: MessageDoc,
	content: string,
	rendered: Rendered,
	flagsFor: (userId: number) => string[],
	now: number,
	moved: Partial<EditRecord> = {},
): Promise<void> {
	const record: EditRecord = { user_id: actor.user_id, timestamp: now, prev_content: m.content, prev_rendered_content: m.rendered_content, ...moved };
	await db.Message.updateOne(
		{ _id: m._id },
		{
			$set: { content, rendered_content: rendered.html, is_me_message: rendered.isMeMessage, ...rendered.has, ...editedWords(m, rendered.html), last_edit_timestamp: now, last_edit_time: now },
			$push: { edit_history: record },
		},
	);
	await db.UserMessage.updateMany({ message_id: m._id }, { $set: rendered.has });
	const rows = await db.UserMessage.find({ message_id: m._id }, { user_id: 1, flags: 1 }).lean();
	const ops = rows
		.map((r) => ({ r, flags: [...r.flags.filter((f) => !MENTION_FLAGS.includes(f)), ...flagsFor(r.user_id)] }))
		.filter(({ r, flags }) => flags.join() !== r.flags.join())
		.map(({ r, flags }) => ({ updateOne: { filter: { _id: userMessageKey(r.user_id, m._id) }, update: { $set: { flags } } } }));
	if (ops.length) await db.UserMessage.bulkWrite(ops);
}

/** The search fields after a content edit: the new content's stems, the topic's as they were. */
function editedWords(m: MessageDoc, html: string) {
	const search_words = contentWords(html);
	return { search_words, words: allWords(search_words, m.topic_words) };
}

export type PropagateMode = "change_one" | "change_later" | "change_all";

export type MoveTarget = { channel_id: number; recipient_id: number; keepUsers: Set<number> | null };

/** What a move records in the edit history: the topic and/or channel before and after. */
export function moveRecord(m: MessageDoc, topic: string, target: MoveTarget | null): Partial<EditRecord> {
	const record: Partial<EditRecord> = {};
	if (topic !== m.topic) Object.assign(record, { prev_topic: m.topic, topic });
	if (target) Object.assign(record, { prev_stream: m.channel_id, stream: target.channel_id });
	return record;
}

/** Messages moved per step: each step is two updates of at most this many messages and their rows. */
export const MOVE_BATCH = 1000;

/**
 * Moves the message (and, by propagate_mode, the rest of its topic). Returns the moved IDs. Each
 * moved message gets one history record; with `contentEdited`, the edited message's record was
 * written by applyContentEdit (with the move in it) and is not written again.
 *
 * A topic is moved in steps of MOVE_BATCH messages (the messages, then their rows), yielding to
 * the event loop between steps, and the edited message goes last: a move cut short (a crash, a
 * store failure) leaves that message where it was, so the same request, repeated, moves the rest.
 */
export async function applyMove(
	db: MessagesDb,
	actor: Identity,
	m: MessageDoc,
	topic: string,
	target: MoveTarget | null,
	mode: PropagateMode,
	now: number,
	contentEdited = false,
): Promise<{ ids: number[]; lost: number[] }> {
	const scope = mode === "change_one" ? { _id: m._id } : { channel_id: m.channel_id, topic_key: m.topic_key, ...(mode === "change_later" ? { _id: { $gte: m._id } } : {}) };
	const ids = (await db.Message.find(scope, { _id: 1 }).lean()).map((x) => x._id);
	const record: EditRecord = { user_id: actor.user_id, timestamp: now, ...moveRecord(m, topic, target) };
	const topicStems = topicWords(topic);
	const set: Record<string, unknown> = { topic, topic_key: topic.toLowerCase(), topic_words: topicStems };
	// A new topic's words change each message's search words (its content's and the topic's).
	const newWords = topicStems.join() !== m.topic_words.join();
	if (target) Object.assign(set, { channel_id: target.channel_id, recipient_id: target.recipient_id });
	if (target || resolveChange(m.topic, topic) === 0) set.last_moved_timestamp = now;
	const rowSet: Record<string, unknown> = { topic_key: topic.toLowerCase() };
	if (target) Object.assign(rowSet, { channel_id: target.channel_id, recipient_id: target.recipient_id });
	// Into a channel whose history is not shared: those who cannot read it there lose their copy.
	const lost = new Set<number>();
	const order = [...ids.filter((id) => id !== m._id), m._id];
	for (let i = 0; i < order.length; i += MOVE_BATCH) {
		if (i > 0) await yieldToLoop();
		const batch = order.slice(i, i + MOVE_BATCH);
		const recorded = contentEdited ? batch.filter((id) => id !== m._id) : batch;
		const history = new Set(recorded);
		if (newWords) {
			const contents = await db.Message.find({ _id: { $in: batch } }, { search_words: 1 }).lean();
			await db.Message.bulkWrite(
				contents.map((c) => ({
					updateOne: {
						filter: { _id: c._id },
						update: { $set: { ...set, words: allWords(c.search_words, topicStems) }, ...(history.has(c._id) ? { $push: { edit_history: record } } : {}) },
					},
				})),
			);
		} else {
			if (recorded.length) await db.Message.updateMany({ _id: { $in: recorded } }, { $set: set, $push: { edit_history: record } });
			if (recorded.length < batch.length) await db.Message.updateOne({ _id: m._id }, { $set: set });
		}
		await db.UserMessage.updateMany({ message_id: { $in: batch } }, { $set: rowSet });
		if (target?.keepUsers) {
			const losing = { message_id: { $in: batch }, user_id: { $nin: [...target.keepUsers] } };
			const users: number[] = await db.UserMessage.distinct("user_id", losing);
			for (const u of users) lost.add(u);
			if (users.length) await db.UserMessage.deleteMany(losing);
		}
	}
	return { ids, lost: [...lost].sort((a, b) => a - b) };
}

/** Everyone who has any of these messages (a row each): whose clients hear of their changes. */
export async function holdersOf(db: MessagesDb, ids: number[]): Promise<number[]> {
	return db.UserMessage.distinct("user_id", ids.length === 1 ? { message_id: ids[0] } : { message_id: { $in: ids } });
}

/**
 * What `messages.deleted` carries, read before the message goes: Zulip's delete_message fields
 * (the topic as clients without the empty-topic capability see it) and who had the message, with
 * the deleting user, who always hears of it (as in Zulip).
 */
export async function deletedPayload(db: MessagesDb, m: MessageDoc, actorId: number | null, emptyTopicName: string) {
	const holders = new Set(await holdersOf(db, [m._id]));
	if (actorId !== null) holders.add(actorId);
	const where = m.type === "stream" ? { message_type: "stream", stream_id: m.channel_id!, topic: topicForClient(m.topic, false, emptyTopicName) } : { message_type: "private" };
	return { message_ids: [m._id], channel_id: m.channel_id ?? undefined, ...where, user_ids: [...holders].sort((a, b) => a - b) };
}

/** Deletes messages: the messages first, then their copies, so nothing shows a copy without its message. */
export async function deleteMessages(db: MessagesDb, ids: number[]): Promise<void> {
	await db.Message.deleteMany({ _id: { $in: ids } });
	await db.UserMessage.deleteMany({ message_id: { $in: ids } });
	await db.Reaction.deleteMany({ message_id: { $in: ids } });
	await db.Submessage.deleteMany({ message_id: { $in: ids } });
}

/** Deleting: the sender with the delete-own permission, in time; or anyone with delete-any. */
export function checkDelete(graph: GroupGraph, actor: Identity, m: MessageDoc, perms: ChannelPermissions | null): void {
	if (perms?.can_delete_any || (!perms && isAdmin(actor.role))) return;
	const own = m.sender_id === actor.user_id && (perms ? perms.can_delete_own : true);
	if (!own) throw badRequest("You don't have permission to delete this message");
	if (!isAdmin(actor.role) && !withinLimit(m, graph.messaging.delete_limit_seconds)) throw badRequest("The time limit for deleting this message has passed");
}
