// POST /messages: who a message goes to, the topic rules, and the per-user rows every recipient
// gets (as Zulip's UserMessage).
import { topicFromClient } from "../../shared/topics";
import type { ChannelTarget, Identity, Principal } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import { isDuplicateKey } from "../../shared/db";
import { clock } from "../../shared/clock";
import { LIMITS } from "../../shared/version";
import { recipientId, type MessagesDb } from "./db";
import { userMessageRow } from "./models/user-message";
import type { MessageDoc } from "./models/message";
import type { Rendered } from "../../shared/markdown/render";
import { searchFields } from "./search";
import { widgetContent, widgetOfContent, type Widget } from "./widgets";

export interface SendParams {
	type: "channel" | "stream" | "direct" | "private";
	to: unknown;
	topic?: string;
	content: string;
	read_by_sender?: boolean;
}


export const isChannelType = (t: string) => t === "channel" || t === "stream";

/** `to` for a channel message: an ID, a name, or a one-element JSON list of either. */
export function channelRef(to: unknown): number | string {
	let v = to;
	if (typeof v === "string") {
		const t = v.trim();
		if (/^\d+$/.test(t)) return Number(t);
		if (t.startsWith("[")) {
			try {
				v = JSON.parse(t);
			} catch {
				return t;
			}
		} else return t;
	}
	if (Array.isArray(v)) {
		if (v.length !== 1) throw badRequest("Cannot send to multiple channels");
		v = v[0];
	}
	if (typeof v === "number" && Number.isInteger(v)) return v;
	if (typeof v === "string" && v.trim()) return v.trim();
	throw badRequest("Invalid channel");
}

/** `to` for a direct message: user IDs or emails, as a list, one value, or comma-separated emails. */
export function directRefs(to: unknown): Array<number | string> {
	let v = to;
	if (typeof v === "string") {
		const t = v.trim();
		if (t.startsWith("[")) {
			try {
				v = JSON.parse(t);
			} catch {
				throw badRequest("Invalid recipients");
			}
		} else if (/^\d+$/.test(t)) v = [Number(t)];
		else v = t.split(",").map((e) => e.trim()).filter(Boolean);
	}
	if (typeof v === "number") v = [v];
	if (!Array.isArray(v) || v.length === 0) throw badRequest("Message must have recipients");
	const kinds = new Set(v.map((x) => typeof x));
	if (kinds.size !== 1 || !(kinds.has("number") || kinds.has("string"))) throw badRequest("Invalid recipients");
	if (kinds.has("number") && !v.every((x) => Number.isInteger(x))) throw badRequest("Invalid recipients");
	return v as Array<number | string>;
}

export function checkContent(raw: string): string {
	const content = raw.replace(/\s+$/, "");
	if (!content.trim()) throw badRequest("Message must not be empty");
	checkContentLength(content);
	return content;
}

/** A message's content (without trailing white space) is at most Zulip's longest. */
export function checkContentLength(content: string): void {
	if (content.length > LIMITS.max_message_length) throw badRequest(`Message too long (limit: ${LIMITS.max_message_length} characters)`);
}

/**
 * The topic as stored: "(no topic)" and the organization's display name for the empty topic are
 * the empty topic; the channel's topics policy decides whether that, or a named topic, is allowed.
 */
export function checkTopic(raw: string | undefined, emptyTopicName: string, policy: string): string {
	const topic = topicFromClient(raw ?? "", emptyTopicName);
	if (topic.length > LIMITS.max_topic_length) throw badRequest(`Topic too long (limit: ${LIMITS.max_topic_length} characters)`);
	if (/[\p{Cc}]/u.test(topic)) throw badRequest("Invalid character in topic");
	if (topic === "" && policy === "disable_empty_topic") throw badRequest("Sending messages to the general chat is not allowed in this channel.");
	if (topic !== "" && policy === "empty_topic_only") throw badRequest("Only the general chat topic is allowed in this channel.");
	return topic;
}

/** The recipients of a message, before it is stored (the sender always gets a copy). */
export function recipientsOf(sender: Identity, target: { channel: ChannelTarget } | { participants: Principal[] }): number[] {
	const ids = "channel" in target ? target.channel.subscribers : target.participants.map((u) => u.user_id);
	return [...new Set([...ids, sender.user_id])];
}

export interface Sent {
	message: MessageDoc;
	userIds: number[];
	/** Each recipient's flags, as stored. */
	flags: Map<number, string[]>;
	/** A message to a public channel (it also goes to all_public_streams queues). */
	publicChannel?: boolean;
	/** A message to a web-public channel. */
	webPublicChannel?: boolean;
	sender?: Identity;
	/** Who the content mentions by name or ID, and which groups (outgoing webhook bots' triggers). */
	mentions?: Rendered["mentions"];
}

/**
 * Stores a rendered message and every recipient's row. `flagsFor` gives each recipient's
 * mention flags; the sender's row is also marked read when `readBySender`. A message that is a
 * widget (`widget`, else what its content asks for: widgets.ts) gets its first submessage.
 */
export async function storeMessage(
	db: MessagesDb,
	sender: Identity,
	target: { channel: ChannelTarget; topic: string } | { participants: Principal[] },
	content: string,
	rendered: Rendered,
	flagsFor: (userId: number) => string[],
	readBySender: boolean,
	client: string,
	isResolveNotice = false,
	idempotencyKey?: string,
	widget: Widget | null = widgetOfContent(content),
): Promise<Sent> {
	const isChannel = "channel" in target;
	const participants = isChannel ? [] : [...new Set([sender.user_id, ...target.participants.map((u) => u.user_id)])].sort((a, b) => a - b);
	const key = isChannel ? `channel:${target.channel.channel_id}` : `dm:${participants.join(",")}`;
	const recipient = await recipientId(db, key);
	const topic = isChannel ? target.topic : "";
	const sentMs = clock.nowMs();
	const message: MessageDoc = {
		_id: await db.nextId("message"),
		realm_id: db.realmId,
		sender_id: sender.user_id,
		type: isChannel ? "stream" : "private",
		recipient_id: recipient,
		channel_id: isChannel ? target.channel.channel_id : null,
		topic,
		topic_key: topic.toLowerCase(),
		dm_user_ids: participants,
		content,
		rendered_content: rendered.html,
		timestamp: Math.floor(sentMs / 1000),
		date_sent: sentMs / 1000,
		client,
		is_me_message: rendered.isMeMessage,
		...rendered.has,
		...searchFields(rendered.html, topic),
		...(widget ? { has_submessages: true } : {}),
		no_reactions: true,
		is_resolve_notice: isResolveNotice,
		...(idempotencyKey !== undefined ? { idempotency_key: idempotencyKey } : {}),
		edit_history: [],
		last_edit_timestamp: null,
		last_moved_timestamp: null,
	};
	// The rows and the widget first, then the message: a failure in between leaves rows no fetch
	// can reach (fetches load messages by ID), never a message some recipient lacks.
	const userIds = [...new Set([...(isChannel ? target.channel.subscribers : participants), sender.user_id])];
	const flags = new Map(userIds.map((u) => [u, [...new Set([...(u === sender.user_id && readBySender ? ["read"] : []), ...flagsFor(u)])]]));
	await db.UserMessage.insertMany(
		userIds.map((u) => userMessageRow(u, message, flags.get(u)!)),
		{ ordered: false },
	);
	if (widget) await db.Submessage.create({ _id: await db.nextId("submessage"), message_id: message._id, sender_id: sender.user_id, msg_type: "widget", content: widgetContent(widget) });
	try {
		await db.Message.create(message);
	} catch (err) {
		// Another send with the same idempotency key stored its message first: this one's rows go.
		if (isDuplicateKey(err)) await Promise.all([db.UserMessage.deleteMany({ message_id: message._id }), db.Submessage.deleteMany({ message_id: message._id })]);
		throw err;
	}
	return { message, userIds, flags, publicChannel: isChannel && target.channel.invite_only === false, webPublicChannel: isChannel && target.channel.is_web_public === true, sender, mentions: rendered.mentions };
}
