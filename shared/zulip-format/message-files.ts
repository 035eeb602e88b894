// messages-NNNNNN.json: an export's messages, MESSAGES_PER_FILE to a file in ID order, as Zulip
// writes them (zerver_message, zerver_usermessage), and zerver_client, the sending clients they
// name. A public export holds the messages of its channels; a full one direct messages too.
//
// Decision: a public export's zerver_usermessage is empty. A user's flags on a message (read,
// starred, mentioned) are their private data, which a public export does not hold; Zulip's import
// makes the rows it needs for channel messages. A full export holds every user's row, its flags
// as Zulip's bitmask (flags_mask).
import { formatReactionType } from "./reaction-types";
import type { ExportMessage, ExportReaction, ExportUserMessage } from "../export-rows";
import type { Recipients } from "./recipients";
import { MessageType, type Row, type Tables } from "./tables";

/** Zulip's MESSAGE_BATCH_CHUNK_SIZE: messages per file. */
export const MESSAGES_PER_FILE = 1000;

/** Zulip's Message.rendered_content_version written for this server's renderings (as the sample's messages carry). */
const RENDERED_CONTENT_VERSION = 1;

/** Zulip's UserMessage flags, in bit order (flags_mask). */
export const USER_MESSAGE_FLAG_BITS = [
	"read",
	"starred",
	"collapsed",
	"mentioned",
	"stream_wildcard_mentioned",
	"topic_wildcard_mentioned",
	"group_mentioned",
	"force_expand",
	"force_collapse",
	"has_alert_word",
	"historical",
	"is_private",
	"active_mobile_push_notification",
] as const;

/** A row's flags as Zulip's bitmask; `isPrivate` sets Zulip's is_private (a direct message's row). */
export function flagsMask(flags: string[], isPrivate: boolean): number {
	let mask = 0;
	USER_MESSAGE_FLAG_BITS.forEach((flag, bit) => {
		if (flags.includes(flag) || (flag === "is_private" && isPrivate)) mask |= 1 << bit;
	});
	return mask;
}

/** The flags this server keeps, by Zulip's names. */
const KEPT_FLAGS = new Set(["read", "starred", "collapsed", "mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "has_alert_word", "historical"]);
// is_private and active_mobile_push_notification are Zulip's bookkeeping (the message's type, a
// push sent), not the user's data: this server derives the one and has no use for the other.
const BOOKKEEPING = new Set(["is_private", "active_mobile_push_notification"]);

/**
 * The other way (the importer): a bitmask's flags as this server keeps them; each flag it has no
 * place for is counted in `dropped`.
 */
export function flagNames(mask: number, dropped: Map<string, number>): string[] {
	const out = new Set<string>();
	USER_MESSAGE_FLAG_BITS.forEach((flag, bit) => {
		if (!(mask & (1 << bit))) return;
		// A group mention is a mention here.
		if (flag === "group_mentioned") out.add("mentioned");
		else if (KEPT_FLAGS.has(flag)) out.add(flag);
		else if (!BOOKKEEPING.has(flag)) dropped.set(flag, (dropped.get(flag) ?? 0) + 1);
	});
	return [...out];
}

/** messages-000001.json, messages-000002.json, ... */
export const messageFileName = (n: number) => `messages-${String(n).padStart(6, "0")}.json`;
/** A message file's name (Zulip's numbering may be wider than six digits). */
export const MESSAGE_FILE = /^messages-\d+\.json$/;

/** The sending clients, numbered as first seen (zerver_client). */
export class Clients {
	private readonly ids = new Map<string, number>();

	id(name: string): number {
		let id = this.ids.get(name);
		if (id === undefined) this.ids.set(name, (id = this.ids.size + 1));
		return id;
	}

	rows(): Row[] {
		return [...this.ids].map(([name, id]) => ({ id, name }));
	}
}

/**
 * A message's edit history as Zulip keeps it: newest first (stored oldest first), each content
 * edit's previous rendering with its Markdown version (prev_rendered_content_version, as Zulip's
 * edits record it): the one it was imported with, else this export's rendered_content_version.
 */
function zulipEditHistory(history: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
	return [...history].reverse().map((e) => (typeof e.prev_rendered_content === "string" && e.prev_rendered_content_version === undefined ? { ...e, prev_rendered_content_version: RENDERED_CONTENT_VERSION } : e));
}

/** zerver_reaction rows (in realm.json, as Zulip's): the reactions to the messages an export holds. */
export function reactionRows(reactions: ExportReaction[]): Row[] {
	return reactions.map((r) => ({ id: r.id, message: r.message_id, user_profile: r.user_id, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: formatReactionType(r.reaction_type) }));
}

/**
 * `userMessages`: the users' rows of these messages (a full export), else none; numbered on from
 * `rowIds.next` (IDs unique across the export's files).
 */
export function messageFile(
	messages: ExportMessage[],
	realmId: number,
	recipients: Recipients,
	clients: Clients,
	userMessages: ExportUserMessage[] = [],
	rowIds = { next: 1 },
): Tables {
	const zerver_message: Row[] = [];
	const direct = new Set<number>();
	for (const m of messages) {
		const recipient = m.channel_id === null ? recipients.dm(m.dm_user_ids, m.sender_id) : recipients.channel(m.channel_id);
		if (recipient === undefined) continue;
		if (m.channel_id === null) direct.add(m.id);
		zerver_message.push({
			id: m.id,
			sender: m.sender_id,
			recipient,
			realm: realmId,
			type: m.is_resolve_notice ? MessageType.RESOLVE_TOPIC_NOTIFICATION : MessageType.NORMAL,
			subject: m.topic,
			content: m.content,
			rendered_content: m.rendered_content,
			rendered_content_version: RENDERED_CONTENT_VERSION,
			date_sent: m.timestamp,
			sending_client: clients.id(m.client),
			last_edit_time: m.last_edit_timestamp,
			edit_history: m.edit_history ? JSON.stringify(zulipEditHistory(m.edit_history)) : null,
			has_attachment: m.has_attachment,
			has_image: m.has_image,
			has_link: m.has_link,
			// Zulip's database fills it for its full-text search.
			search_tsvector: null,
		});
	}
	const written = new Set(zerver_message.map((m) => m.id));
	const zerver_usermessage: Row[] = [];
	for (const r of userMessages) {
		if (!written.has(r.message_id)) continue;
		zerver_usermessage.push({ id: rowIds.next++, user_profile: r.user_id, message: r.message_id, flags_mask: flagsMask(r.flags, direct.has(r.message_id)) });
	}
	return { zerver_message, zerver_usermessage };
}
