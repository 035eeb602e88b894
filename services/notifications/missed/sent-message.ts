// What the messages service's `message.sent` carries that missed-message notifications read
// (announceSent in services/messages/messages.service.ts), and the same for the users a content
// edit newly mentions (`messages.updated`'s new_mentions, services/messages/actions/edit.ts).

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

/** What missed-message notifications read of `messages.updated` (one edit request). */
export interface MessageUpdated {
	/**
	 * A content edit that mentions users who had no mention flag before it: the message as it is
	 * now, `user_ids` those users only, with their flags. No group is named (as Zulip's edits).
	 */
	new_mentions?: SentMessage;
	/** A content edit that took mentions away: `user_ids` those mentioned before and not by name or group now (no event). */
	mentions_dropped?: SentMessage;
}
