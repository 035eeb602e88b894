// What Notification Bot tells a webhook bot's owner, in Zulip's words (zerver/lib/webhooks/common.py,
// zerver/actions/message_send.py), at most once per bot every five minutes, as Zulip's
// send_rate_limited_pm_notification_to_bot_owner: the window is the notice's idempotency key, so
// replicas racing on one bot still send one.
import { call, type Ctx, type WebhookSender } from "../../../shared/actions";
import { clock } from "../../../shared/clock";

/** Zulip's BOT_OWNER_STREAM_ALERT_WAITPERIOD, in seconds. */
const WAIT_SECONDS = 300;

export function missingHeaderNotice(o: { botName: string; path: string; header: string; integration: string; supportEmail: string }): string {
	return `Hi there!  Your bot ${o.botName} just sent an HTTP request to ${o.path} that
is missing the HTTP ${o.header} header.  Because this header is how
${o.integration} indicates the event type, this usually indicates a configuration
issue, where you either entered the URL for a different integration, or are running
an older version of the third-party service that doesn't provide that header.
Contact ${o.supportEmail} if you need help debugging!
`;
}

export const invalidJsonNotice = (integration: string) =>
	`Hi there! It looks like you tried to set up the Zulip ${integration} integration,
but didn't correctly configure the webhook to send data in the JSON format
that this integration expects!`;

export function missingChannelNotice(bot: WebhookSender, channel: string | number): string {
	const who = `\`${bot.delivery_email}\``;
	return typeof channel === "number"
		? `Your bot ${who} tried to send a message to channel ID ${channel}, but there is no channel with that ID.`
		: `Your bot ${who} tried to send a message to channel #**${channel}**, but that channel does not exist. Click [here](#channels/new) to create it.`;
}

/** Sends the notice unless this bot's owner had one in the current window; a failure is logged, never answered. */
export async function notifyOwner(ctx: Ctx<any>, bot: WebhookSender, content: string): Promise<void> {
	if (!bot.is_bot || bot.bot_owner_id === null) return;
	const window = Math.floor(clock.now() / WAIT_SECONDS);
	try {
		await call(ctx, "messages.notifyUser", { user_id: bot.bot_owner_id, content: content.trim(), idempotency_key: `webhook-owner-notice:${bot.user_id}:${window}` });
	} catch (err) {
		ctx.service?.logger.warn({ err }, "webhook bot owner notice not sent");
	}
}
