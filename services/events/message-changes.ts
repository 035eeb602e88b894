// Events for changes to messages after they were sent, and for typing, from the messages
// service's broadcasts: `update_message` (content edits and moves), `delete_message` (deletions,
// and messages a move took out of someone's reach) and `typing`. Each broadcast carries the
// event as Zulip builds it and who gets it; this module picks each queue's form.
import type { Context } from "moleculer";
import type { Deliver } from "./deliver";
import type { Queue, QueueRegistry } from "./queues";

/** `messages.updated`: one edit request (content and/or a move). */
export interface MessagesUpdated {
	message_ids: number[];
	/** Everyone who has any of the messages now, and the editor. */
	user_ids: number[];
	/** Each one's flags for the edited message, as the API shows them; ["read"] for those without. */
	flags: Record<string, string[]>;
	/** Zulip's update_message fields, without flags. */
	event: Record<string, unknown>;
	/** Those a channel move took the messages from: they get delete_message instead. */
	lost?: DeleteFields & { user_ids: number[] };
}

interface DeleteFields {
	message_ids: number[];
	message_type: string;
	stream_id?: number;
	topic?: string;
}

/** `messages.deleted`: Zulip's delete_message fields and who had the message. */
export type MessagesDeleted = DeleteFields & { user_ids?: number[] };

/** `messages.typing`: Zulip's typing event and whose clients get it. */
export interface MessagesTyping {
	event: { op: string; message_type: string; sender: { user_id: number; email: string }; recipients?: unknown[]; stream_id?: number; topic?: string };
	user_ids: number[];
}

/**
 * delete_message for these users' queues: with message_ids for clients that declared
 * bulk_message_deletion, otherwise one event per message with message_id (Zulip's compatibility
 * form).
 */
function deliverDeletion(queues: QueueRegistry, deliver: Deliver, userIds: number[], d: DeleteFields) {
	const where = d.message_type === "stream" ? { message_type: "stream", stream_id: d.stream_id, topic: d.topic } : { message_type: "private" };
	const targets = [...queues.of(userIds)];
	deliver(
		targets.filter((q) => q.options.bulk_message_deletion),
		"delete_message",
		() => ({ message_ids: d.message_ids, ...where }),
	);
	const older = targets.filter((q) => !q.options.bulk_message_deletion);
	for (const id of d.message_ids) deliver(older, "delete_message", () => ({ message_id: id, ...where }));
}

/** The handlers, for the events service's `events`; `queues` gives the service's registry. */
export function messageChanges(queues: () => QueueRegistry, deliver: Deliver) {
	return {
		"messages.updated"(ctx: Context<MessagesUpdated>) {
			const { user_ids, flags, event, lost } = ctx.params;
			const registry = queues();
			for (const u of user_ids) {
				deliver(registry.of([u]), "update_message", () => ({ ...event, flags: flags[String(u)] ?? ["read"] }));
			}
			if (lost?.user_ids.length) deliverDeletion(registry, deliver, lost.user_ids, lost);
		},

		"messages.deleted"(ctx: Context<MessagesDeleted>) {
			const { user_ids, ...fields } = ctx.params;
			if (user_ids?.length) deliverDeletion(queues(), deliver, user_ids, fields);
		},

		"messages.typing"(ctx: Context<MessagesTyping>) {
			const { event, user_ids } = ctx.params;
			// Channel typing only reaches clients that declared stream_typing_notifications (Zulip's rule).
			const accepts = (q: Queue) => event.message_type !== "stream" || !!q.options.stream_typing_notifications;
			deliver([...queues().of(user_ids)].filter(accepts), "typing", () => ({ ...event }));
		},
	};
}
