// What Notification Bot tells a sender whose scheduled message could not be sent, in Zulip's words
// (send_failed_scheduled_message_notification): the scheduled time as a global time, the reason
// quoted, and a link to the scheduled messages view. Zulip sends none when the sender's account
// was deactivated.
import type { ScheduledMessageDoc } from "./models/scheduled-message";

/** Zulip's datetime_to_global_time: `<time:2026-11-24T11:00:00+00:00>`. */
export const globalTimeSyntax = (unixSeconds: number) => `<time:${new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;

export function failureNotice(m: Pick<ScheduledMessageDoc, "scheduled_timestamp" | "failure_message">): string {
	return [
		`The message you scheduled for ${globalTimeSyntax(m.scheduled_timestamp)} was not sent because of the following error:`,
		`> ${m.failure_message ?? ""}`,
		"[View scheduled messages](#scheduled)",
	].join("\n\n");
}
