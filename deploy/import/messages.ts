// Messages (messages-NNNNNN.json, read one file at a time and then let go: memory stays flat),
// with their per-user rows and flags (zerver_usermessage), then reactions (zerver_reaction).
//
// Each message keeps Zulip's rendered content (this server would render the same Markdown a little
// differently, and the export's rendering is what its users saw); the fields a send derives are
// computed by the messages service's own functions: the search stems of the rendered content and
// topic (search.ts searchFields), the per-user rows (userMessageRow), the recipient key.
import { serverReactionType } from "../../shared/zulip-format/reaction-types";
import fs from "node:fs";
import path from "node:path";
import type { ChannelDoc } from "../../services/channels/models/channel";
import type { EditRecord, MessageDoc } from "../../services/messages/models/message";
import { userMessageRow, type UserMessageDoc } from "../../services/messages/models/user-message";
import type { RecipientDoc } from "../../services/messages/models/recipient";
import type { ReactionDoc, ReactionType } from "../../services/messages/models/reaction";
import { searchFields } from "../../services/messages/search";
import { flagNames, MESSAGE_FILE } from "../../shared/zulip-format/message-files";
import { JsonFile, MessageType } from "../../shared/zulip-format/tables";
import { insertAll, memberOrSkip, seconds, table, type ImportContext } from "./context";
import { TableFile, type Rec } from "../../shared/zulip-format/records";
import { messageFileMoved } from "../../shared/transfer-garbage";

/** Batches of one file written at once (the store takes concurrent inserts faster than one by one). */
const WRITERS = 4;

/** Where a message went, for the attachments that name it (uploads.ts). */
export interface SentWhere {
	channel_id: number | null;
	timestamp: number;
}

/** The message files, in order (Zulip numbers them from 1). */
export function messageFiles(dir: string): string[] {
	return fs
		.readdirSync(dir)
		.filter((f) => MESSAGE_FILE.test(f))
		.sort();
}

/**
 * The number of messages, for the progress total: from stats.json, where Zulip's export counts
 * each file's records, else by reading every file once (one at a time).
 */
export function countMessages(dir: string, files: string[]): number {
	const statsFile = path.join(dir, JsonFile.STATS);
	if (fs.existsSync(statsFile)) {
		try {
			const stats = JSON.parse(fs.readFileSync(statsFile, "utf8")) as Record<string, { zerver_message?: unknown }>;
			const counts = files.map((f) => stats[f.replace(/\.json$/, "")]?.zerver_message);
			if (counts.every((c): c is number => typeof c === "number")) return counts.reduce((a, b) => a + b, 0);
		} catch {
			// Not Zulip's stats: counted from the files below.
		}
	}
	let n = 0;
	for (const f of files) n += TableFile.read(dir, f).count("zerver_message");
	return n;
}

export async function importMessages(ctx: ImportContext, claimed: Set<number>, total: number): Promise<Map<number, SentWhere>> {
	const { ids, target } = ctx;
	const where = new Map<number, SentWhere>();
	const recipients = new Map<string, number>();
	let nextRecipient = 0;
	const channelStats = new Map<number, { first: number; last: number; named: boolean }>();
	const clients = new Map(table(ctx, "zerver_client").map((r) => [r.int("id"), r.str("name")]));
	const dropped = new Map<string, number>();
	let unrendered = 0;

	ctx.progress.start("messages", total);
	let pending: Promise<void> = Promise.resolve();
	for (const file of messageFiles(ctx.dir)) {
		const data = TableFile.read(ctx.dir, file);
		const messages = new Map<number, MessageDoc>();
		const newRecipients: RecipientDoc[] = [];
		for (const r of data.records("zerver_message", true)) {
			const id = r.int("id");
			const sender = ids.users.get(r.int("sender"), r, "sender");
			const to = ids.recipient(r.int("recipient"), r, "recipient");
			let key: string;
			let participants: number[] = [];
			if (to.kind === "channel") key = `channel:${to.channel_id}`;
			else {
				const others = to.kind === "user" ? [to.user_id] : ids.huddleMembers.get(to.huddle_id);
				if (!others) return r.fail(`the group DM it was sent to has no members in the export`);
				participants = [...new Set([sender, ...others])].sort((a, b) => a - b);
				key = `dm:${participants.join(",")}`;
			}
			let recipient = recipients.get(key);
			if (recipient === undefined) {
				recipient = ++nextRecipient;
				recipients.set(key, recipient);
				newRecipients.push({ _id: recipient, key, user_ids: participants });
			}
			const topic = to.kind === "channel" ? (r.optStr("subject") ?? "") : "";
			const content = r.str("content");
			let rendered = r.optStr("rendered_content");
			if (rendered !== null) rendered = ids.html(rendered, ctx.realmId);
			if (rendered === null) {
				unrendered++;
				rendered = `<p>${content.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</p>`;
			}
			const history = editHistory(ctx, r);
			const timestamp = seconds(r.num("date_sent"));
			const message: MessageDoc = {
				_id: id,
				realm_id: ctx.realmId,
				sender_id: sender,
				type: to.kind === "channel" ? "stream" : "private",
				recipient_id: recipient,
				channel_id: to.kind === "channel" ? to.channel_id : null,
				topic,
				topic_key: topic.toLowerCase(),
				dm_user_ids: participants,
				content,
				rendered_content: rendered,
				timestamp,
				// Zulip's float, with its microseconds, for a later export.
				date_sent: r.num("date_sent"),
				client: clients.get(r.optInt("sending_client") ?? -1) ?? "Internal",
				is_me_message: /^\/me( |$)/.test(content),
				has_link: r.optBool("has_link") ?? false,
				has_image: r.optBool("has_image") ?? false,
				has_attachment: r.optBool("has_attachment") ?? false,
				...searchFields(rendered, topic),
				is_resolve_notice: r.optInt("type") === MessageType.RESOLVE_TOPIC_NOTIFICATION,
				edit_history: history,
				last_edit_timestamp: r.optNum("last_edit_time") === null ? null : seconds(r.num("last_edit_time")),
				last_edit_time: r.optNum("last_edit_time"),
				last_moved_timestamp: Math.max(0, ...history.filter((h) => h.prev_topic !== undefined || h.prev_stream !== undefined).map((h) => h.timestamp)) || null,
			};
			if (messages.has(id) || ids.messages.has(id)) r.fail(`message ${id} appears twice`);
			messages.set(id, message);
			ids.messages.set(id, id);
			if (claimed.has(id)) where.set(id, { channel_id: message.channel_id, timestamp });
			if (message.channel_id !== null) {
				const s = channelStats.get(message.channel_id) ?? { first: id, last: timestamp, named: false };
				s.first = Math.min(s.first, id);
				s.last = Math.max(s.last, timestamp);
				s.named ||= topic !== "";
				channelStats.set(message.channel_id, s);
			}
		}
		const rows: UserMessageDoc[] = [];
		const seenRows = new Set<string>();
		for (const r of data.records("zerver_usermessage", true)) {
			const m = messages.get(r.int("message"));
			if (!m) return r.fail(`"message" names message ${r.int("message")}, which is not in this file`);
			const user = memberOrSkip(ctx, r, "user_profile");
			if (user === undefined) continue;
			const row = userMessageRow(user, m, flagNames(r.int("flags_mask"), dropped));
			// Messages' rows are all in their message's file: a repeat is found here, before the
			// unique index is built (import-target.ts).
			if (seenRows.has(row._id)) r.fail(`user ${user} has message ${m._id} twice`);
			seenRows.add(row._id);
			rows.push(row);
		}
		data.release();
		// One file is written while the next is read and prepared (memory: two files at most); the
		// order of writes within an import does not matter, since a failed import is dropped whole.
		await pending;
		messageFileMoved();
		pending = (async () => {
			await insertAll(target.m.Recipient, newRecipients);
			await Promise.all([insertAll(target.m.UserMessage, rows, undefined, WRITERS), insertAll(target.m.Message, [...messages.values()], ctx.progress, WRITERS)]);
		})();
		// Awaited before the next file's writes (or after the last): no unhandled rejection meanwhile.
		pending.catch(() => undefined);
	}
	await pending;
	ctx.progress.finish();
	for (const [flag, n] of dropped) ctx.notKept.add("zerver_usermessage", `the flag ${flag} (no such flag here)`, n);
	if (unrendered) ctx.notKept.add("zerver_message", "messages with no rendered content (shown as their escaped source)", unrendered);

	const updates = [...channelStats].map(([id, s]) => ({
		updateOne: { filter: { _id: id }, update: { $set: { first_message_id: s.first, last_message_at: s.last, has_named_topics: s.named } satisfies Partial<ChannelDoc> } },
	}));
	if (updates.length) await target.m.Channel.bulkWrite(updates);
	await target.raiseCounter("messages", "message", ids.messages.max());
	await target.raiseCounter("messages", "recipient", nextRecipient);
	return where;
}

/** Zulip's edit history (a JSON list, newest first), in this server's records. */
function editHistory(ctx: ImportContext, r: Rec): EditRecord[] {
	const raw = r.optStr("edit_history");
	if (raw === null) return [];
	let list: unknown;
	try {
		list = JSON.parse(raw);
	} catch {
		r.fail(`"edit_history" is not valid JSON`);
	}
	if (!Array.isArray(list)) r.fail(`"edit_history" is not a list`);
	// Zulip lists the newest edit first; this server appends each edit (oldest first).
	return list.map((e: Record<string, unknown>) => {
		if (!e || typeof e !== "object" || typeof e.timestamp !== "number") r.fail(`"edit_history" holds an entry with no timestamp`);
		const out: EditRecord = { user_id: typeof e.user_id === "number" ? ctx.ids.users.get(e.user_id, r, "edit_history.user_id") : 0, timestamp: seconds(e.timestamp) };
		if (typeof e.prev_content === "string") out.prev_content = e.prev_content;
		if (typeof e.prev_rendered_content === "string") out.prev_rendered_content = ctx.ids.html(e.prev_rendered_content, ctx.realmId);
		if (typeof e.prev_rendered_content_version === "number") out.prev_rendered_content_version = e.prev_rendered_content_version;
		if (typeof e.prev_topic === "string") out.prev_topic = e.prev_topic;
		if (typeof e.topic === "string") out.topic = e.topic;
		if (typeof e.prev_stream === "number") out.prev_stream = e.prev_stream;
		if (typeof e.stream === "number") out.stream = e.stream;
		return out;
	}).reverse();
}

export async function importReactions(ctx: ImportContext): Promise<void> {
	const records = table(ctx, "zerver_reaction");
	const docs: ReactionDoc[] = records.map((r) => {
		const type = serverReactionType(r.str("reaction_type"));
		if (!type) r.fail(`"reaction_type" ${r.str("reaction_type")} is not a reaction type`);
		return {
			_id: r.int("id"),
			message_id: ctx.ids.messages.get(r.int("message"), r, "message"),
			user_id: ctx.ids.users.get(r.int("user_profile"), r, "user_profile"),
			emoji_name: r.str("emoji_name"),
			emoji_code: r.str("emoji_code"),
			reaction_type: type as ReactionType,
		};
	});
	await insertAll(ctx.target.m.Reaction, docs);
	await ctx.target.raiseCounter("messages", "reaction", Math.max(0, ...docs.map((d) => d._id)));
}
