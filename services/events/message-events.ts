// Events for new messages and what users do with them, from the messages service's broadcasts:
// `message` (to the recipients, and to other users' all_public_streams queues for a public
// channel), `update_message_flags`, `reaction`, `submessage`, `drafts` and `saved_snippets`.
import type { Context } from "moleculer";
import { flagsEvent, messageEvent, personalEvent, reactionEvent, submessageEvent, type Deliver, type FlagsChanged, type MessageSent, type SubmessageAdded } from "./deliver";
import type { QueueRegistry } from "./queues";

export function messageEventHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	return {
		"message.sent"(ctx: Context<MessageSent>) {
			const recipients = new Set(ctx.params.user_ids ?? []);
			for (const q of registry().of(recipients)) {
				const event = messageEvent(q, ctx.params);
				if (event) q.push(event);
			}
			// A public channel's message also reaches the all_public_streams queues of the others (no flags).
			if (!ctx.params.public_channel) return;
			for (const q of registry().allPublicStreams()) {
				if (recipients.has(q.options.user_id)) continue;
				const event = messageEvent(q, ctx.params);
				if (event) q.push(event);
			}
		},
		"messages.flagsChanged"(ctx: Context<FlagsChanged>) {
			deliver(registry().of([ctx.params.user_id]), "update_message_flags", () => flagsEvent(ctx.params));
		},
		"messages.reactionChanged"(ctx: Context<Record<string, unknown> & { user_ids?: number[] }>) {
			deliver(registry().of(ctx.params.user_ids ?? []), "reaction", () => reactionEvent(ctx.params));
		},
		"messages.submessageAdded"(ctx: Context<SubmessageAdded>) {
			deliver(registry().of(ctx.params.user_ids), "submessage", () => submessageEvent(ctx.params));
		},
		"messages.draftsChanged"(ctx: Context<Record<string, unknown> & { user_id: number }>) {
			deliver(registry().of([ctx.params.user_id]), "drafts", () => personalEvent("drafts", ctx.params));
		},
		"messages.savedSnippetsChanged"(ctx: Context<Record<string, unknown> & { user_id: number }>) {
			deliver(registry().of([ctx.params.user_id]), "saved_snippets", () => personalEvent("saved_snippets", ctx.params));
		},
	};
}
