// Which outgoing webhook bots a message triggers (Zulip's get_service_bot_events): none for a
// message a bot sent (no loops between bots); in a channel, the bots it mentions by name or
// through a group (wildcards and silent mentions trigger nothing; the bot need not be
// subscribed); in a direct message or group direct message, every bot among its recipients.
import type { OutgoingBot } from "../../../shared/actions";

/** What the messages service's `message.sent` carries that triggers depend on. */
export interface SentFacts {
	message_id: number;
	channel_id?: number;
	topic?: string;
	sender_id: number;
	sender_is_bot?: boolean;
	user_ids: number[];
	mentioned_user_ids?: number[];
	event?: { message: Record<string, unknown>; content: string };
}

export interface Trigger {
	bot: OutgoingBot;
	trigger: "mention" | "direct_message";
}

/** Whether any bot could be triggered, before the bots are read: a mention, or a direct message. */
export const mayTrigger = (sent: SentFacts) => !sent.sender_is_bot && (sent.channel_id === undefined || !!sent.mentioned_user_ids?.length);

export function triggersOf(sent: SentFacts, bots: OutgoingBot[]): Trigger[] {
	if (sent.sender_is_bot) return [];
	const isChannel = sent.channel_id !== undefined;
	const mentioned = new Set(sent.mentioned_user_ids ?? []);
	const recipients = new Set(sent.user_ids);
	const out: Trigger[] = [];
	for (const bot of bots) {
		if (isChannel && mentioned.has(bot.user_id)) out.push({ bot, trigger: "mention" });
		else if (!isChannel && recipients.has(bot.user_id)) out.push({ bot, trigger: "direct_message" });
	}
	return out;
}

/**
 * The message as Zulip's generic payload shows it (MessageDict.finalize_payload with
 * apply_markdown=False, client_gravatar=False, keep_rendered_content=True,
 * allow_empty_topic_name=True): the Markdown source as `content`, the HTML as `rendered_content`,
 * the topic as stored, no flags.
 */
export function payloadMessage(sent: SentFacts & { event: NonNullable<SentFacts["event"]> }): Record<string, unknown> {
	const shown = sent.event.message;
	const rest = { ...shown };
	delete rest.flags;
	return {
		...rest,
		content: sent.event.content,
		content_type: "text/x-markdown",
		rendered_content: shown.content,
		...(sent.channel_id !== undefined ? { subject: sent.topic ?? shown.subject } : {}),
	};
}
