// Messages. IDs come from one counter, so they increase in send order.
// Query shapes and their indexes:
//   by id                                   -> _id
//   a channel's messages around an anchor   -> { channel_id, _id }
//   a channel topic's messages              -> { channel_id, topic_key, _id }
//   a conversation's messages               -> { recipient_id, _id }
//   a sender's messages                     -> { sender_id, _id }
//   keyword search (a stem, newest first)   -> { words, _id }, named by a hint: a channel's index
//                                              would walk the channel, not the matches
//   a delivery's idempotency key              -> { idempotency_key } (unique, sparse: only
//                                                scheduled deliveries carry one)
import { Connection, Schema } from "mongoose";

export interface MessageDoc {
	_id: number;
	realm_id: number;
	sender_id: number;
	/** "stream" (a channel message) or "private" (a direct message). */
	type: "stream" | "private";
	/** The conversation: a channel, or the set of users of a direct conversation. */
	recipient_id: number;
	channel_id: number | null;
	topic: string;
	topic_key: string;
	/** Direct messages: every participant, the sender included, sorted. */
	dm_user_ids: number[];
	content: string;
	rendered_content: string;
	timestamp: number;
	/**
	 * When it was sent with the fraction of a second (UNIX seconds): Zulip's date_sent, a float, as
	 * an export writes it and an import from Zulip reads it. Absent on messages from before it.
	 */
	date_sent?: number;
	client: string;
	is_me_message: boolean;
	/** What the rendered content contains, for the has: narrows. */
	has_link: boolean;
	has_image: boolean;
	has_attachment: boolean;
	/**
	 * Stems of the rendered content's words and of the topic's, kept apart so each can be
	 * replaced alone, and `words`, both together: what keyword search looks up (search.ts).
	 */
	search_words: string[];
	topic_words: string[];
	words: string[];
	/** The message has submessages (a widget): only such messages are looked up in submessages. */
	has_submessages?: boolean;
	/**
	 * The message was never reacted to: set when it is sent, removed before its first reaction is
	 * stored. Pages look up reactions only for messages without it (those stored before it
	 * existed, imported ones, and those reacted to).
	 */
	no_reactions?: boolean;
	/** Notification Bot's notice that the topic was resolved or unresolved (undone within a minute). */
	is_resolve_notice: boolean;
	/**
	 * Set by a send that may be repeated (a scheduled message's delivery, `scheduled:<id>`): a
	 * second send with the same key finds this message instead of storing another.
	 */
	idempotency_key?: string;
	/** Edits and moves, oldest first (the API shows them newest first). */
	edit_history: EditRecord[];
	/** Content edits only (feature level 365). */
	last_edit_timestamp: number | null;
	/** The same with the fraction of a second, when imported from Zulip (its last_edit_time); set to it by an edit here. */
	last_edit_time?: number | null;
	/** Moves between topics or channels, not counting resolving or unresolving a topic. */
	last_moved_timestamp: number | null;
}

export interface EditRecord {
	user_id: number;
	timestamp: number;
	prev_content?: string;
	prev_rendered_content?: string;
	/** Zulip's Markdown version of prev_rendered_content, when imported from Zulip. */
	prev_rendered_content_version?: number;
	prev_topic?: string;
	topic?: string;
	prev_stream?: number;
	stream?: number;
}

const schema = new Schema<MessageDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		sender_id: { type: Number, required: true },
		type: { type: String, required: true },
		recipient_id: { type: Number, required: true },
		channel_id: { type: Number, default: null },
		topic: { type: String, default: "" },
		topic_key: { type: String, default: "" },
		dm_user_ids: { type: [Number], default: [] },
		content: { type: String, required: true },
		rendered_content: { type: String, required: true },
		timestamp: { type: Number, required: true },
		date_sent: { type: Number },
		client: { type: String, default: "Internal" },
		is_me_message: { type: Boolean, default: false },
		has_link: { type: Boolean, default: false },
		has_image: { type: Boolean, default: false },
		has_attachment: { type: Boolean, default: false },
		search_words: { type: [String], default: [] },
		topic_words: { type: [String], default: [] },
		words: { type: [String], default: undefined },
		has_submessages: { type: Boolean },
		no_reactions: { type: Boolean },
		is_resolve_notice: { type: Boolean, default: false },
		idempotency_key: { type: String },
		edit_history: { type: Schema.Types.Mixed, default: [] },
		last_edit_timestamp: { type: Number, default: null },
		last_edit_time: { type: Number },
		last_moved_timestamp: { type: Number, default: null },
	},
	{ versionKey: false },
);
schema.index({ channel_id: 1, _id: 1 });
schema.index({ channel_id: 1, topic_key: 1, _id: 1 });
schema.index({ recipient_id: 1, _id: 1 });
schema.index({ sender_id: 1, _id: 1 });
schema.index({ words: 1, _id: 1 });
schema.index({ idempotency_key: 1 }, { unique: true, sparse: true });

export const messageModel = (conn: Connection) => conn.model<MessageDoc>("Message", schema, "messages");
