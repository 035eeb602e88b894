// From the domain events the services broadcast to Zulip's events, queue by queue: who gets
// each, in what form (a message's content as HTML or Markdown, as the client registered), and
// the `narrow` and `event_types` a queue asked for.
import type { Queue, QueuedEvent } from "./queues";

/** `message.sent` as the messages service broadcasts it, with the message as the API shows it. */
export interface MessageSent {
	message_id: number;
	user_ids: number[];
	/** A message to a public channel: all_public_streams queues get it too. */
	public_channel?: boolean;
	event?: {
		/** The message object (content as HTML), without flags. */
		message: Record<string, unknown>;
		/** The Markdown source, for clients registered with apply_markdown: false. */
		content: string;
		/** Each recipient's flags, as the API shows them. */
		flags: Record<string, string[]>;
	};
	/** POST /messages' queue_id and local_id: that queue's event carries local_message_id (Zulip's local echo). */
	sender_queue_id?: string;
	local_id?: string;
}

type Event = Omit<QueuedEvent, "id">;

/** Delivers one event to each of these queues that wants its type (built once, when one does). */
export type Deliver = (targets: Iterable<Queue>, type: string, event: () => Record<string, unknown>) => void;

const lower = (v: unknown) => String(v ?? "").toLowerCase();

/** Whether a message passes a queue's narrow (the operators Zulip's clients register with). */
export function inNarrow(q: Queue, m: Record<string, unknown>): boolean {
	return q.options.narrow.every((term) => {
		let hit: boolean;
		switch (term.operator) {
			case "stream":
			case "channel":
				hit = m.type === "stream" && (lower(m.display_recipient) === lower(term.operand) || m.stream_id === term.operand);
				break;
			case "topic":
			case "subject":
				hit = m.type === "stream" && lower(m.subject) === lower(term.operand);
				break;
			case "sender":
				hit = lower(m.sender_email) === lower(term.operand) || m.sender_id === term.operand;
				break;
			case "is":
				hit = ["private", "dm"].includes(lower(term.operand)) ? m.type === "private" : true;
				break;
			default:
				hit = true; // operators a queue cannot judge on arrival do not filter
		}
		return term.negated ? !hit : hit;
	});
}

/** The `message` event for one queue, or nothing when its narrow leaves the message out. */
export function messageEvent(q: Queue, sent: MessageSent): Event | undefined {
	if (!sent.event || !q.wants("message")) return undefined;
	const { message, content, flags } = sent.event;
	if (!inNarrow(q, message)) return undefined;
	const shown = q.options.apply_markdown ? message : { ...message, content, content_type: "text/x-markdown" };
	const echo = sent.local_id !== undefined && q.id === sent.sender_queue_id ? { local_message_id: sent.local_id } : {};
	return { type: "message", message: shown, flags: flags[String(q.options.user_id)] ?? [], ...echo };
}

/** Events for one user's own queues, already in Zulip's form (drafts, saved snippets, flags). */
export function personalEvent(type: string, payload: Record<string, unknown>): Event {
	return { type, ...without(payload, "user_id") };
}

/** messages.flagsChanged; `message_details` when messages were marked unread (services/messages/unread-details.ts). */
export interface FlagsChanged {
	user_id: number;
	op: string;
	flag: string;
	message_ids: number[];
	all: boolean;
	message_details?: Record<string, unknown>;
}

/** `update_message_flags`, as Zulip sends it (with the deprecated `operation` beside `op`). */
export function flagsEvent(payload: FlagsChanged): Event {
	const details = payload.message_details ? { message_details: payload.message_details } : {};
	return { type: "update_message_flags", op: payload.op, operation: payload.op, flag: payload.flag, messages: payload.message_ids, all: payload.all, ...details };
}

/** `reaction`, to everyone who has the message. */
export function reactionEvent(payload: Record<string, unknown>): Event {
	return { type: "reaction", ...without(payload, "user_ids") };
}

/** What the messages service tells of a new submessage, and who has its message. */
export interface SubmessageAdded {
	msg_type: string;
	content: string;
	message_id: number;
	sender_id: number;
	submessage_id: number;
	user_ids: number[];
}

/** `submessage`, to everyone who has the message, in Zulip's order of fields. */
export function submessageEvent(s: SubmessageAdded): Event {
	return { type: "submessage", msg_type: s.msg_type, message_id: s.message_id, submessage_id: s.submessage_id, sender_id: s.sender_id, content: s.content };
}

function without(o: Record<string, unknown>, key: string): Record<string, unknown> {
	return Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
}
