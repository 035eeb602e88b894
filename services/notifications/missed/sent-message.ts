// What the messages service's `message.sent` carries that missed-message notifications read
// (announceSent in services/messages/messages.service.ts).

export interface SentMessage {
	message_id: number;
	/** Absent for a direct message. */
	channel_id?: number;
	topic?: string;
	sender_id: number;
	/** Every recipient, the sender among them. */
	user_ids: number[];
	mentioned_user_ids?: number[];
	/** Users mentioned through a group and not by name, with the smallest such group (by user ID). */
	mentioned_user_groups?: Record<string, { id: number; name: string; size: number }>;
	/** The message as the API shows it, its Markdown, and each recipient's flags by user ID. */
	event?: { message: Record<string, unknown>; content: string; flags?: Record<string, string[]> };
}
