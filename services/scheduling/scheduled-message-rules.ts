// The rules of scheduled messages that are not the message's own (those are the messages
// service's, through messages.checkSend): how `to` is read, the delivery time, the errors, and
// the object the API shows.
import { apiError, badRequest } from "../../shared/errors";
import { clock } from "../../shared/clock";
import type { CheckedMessage } from "../../shared/actions";
import type { ScheduledMessageDoc } from "./models/scheduled-message";

/** Zulip's ResourceNotFoundError: 404 with code BAD_REQUEST. */
export const scheduledMissing = () => apiError(404, "BAD_REQUEST", "Scheduled message does not exist");

export const alreadySent = () => badRequest("Scheduled message was already sent");

/** Messages more than this late are not sent (Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES). */
export const LATE_CUTOFF_SECONDS = 10 * 60;

export function checkDeliveryTime(timestamp: number): void {
	if (timestamp <= clock.now()) throw badRequest("Scheduled delivery time must be in the future.");
}

/** `channel` and `direct` are the newer names of Zulip's `stream` and `private`. */
export const canonicalType = (t: string): "stream" | "private" => (t === "channel" || t === "stream" ? "stream" : "private");

/** A form value may hold JSON (`[3]`, `5`); a JSON body's value is already decoded. */
function decoded(to: unknown): unknown {
	if (typeof to !== "string") return to;
	try {
		return JSON.parse(to);
	} catch {
		return to;
	}
}

/** Zulip's extract_stream_id: a channel ID, or a list holding exactly one. */
export function channelIdOf(raw: unknown): number {
	let v = decoded(raw);
	if (Array.isArray(v)) {
		if (v.length !== 1) throw badRequest("Expected exactly one channel");
		v = v[0];
	}
	if (typeof v !== "number" || !Number.isInteger(v)) throw badRequest("Invalid data type for channel");
	return v;
}

/** Zulip's extract_direct_message_recipient_ids: user IDs (a list, or one), without repeats. */
export function userIdsOf(raw: unknown): number[] {
	let v = decoded(raw);
	if (typeof v === "number") v = [v];
	if (!Array.isArray(v) || !v.every((x) => typeof x === "number" && Number.isInteger(x))) throw badRequest("Invalid data type for recipients");
	if (!v.length) throw badRequest("Message must have recipients");
	return [...new Set(v as number[])];
}

/** The would-be message messages.checkSend checks. */
export function wouldBe(type: "stream" | "private", to: number | number[], topic: string | undefined, content: string) {
	return type === "stream" ? { type: "channel", to, topic: topic ?? "", content } : { type: "direct", to, content };
}

/** Zulip's read_by_sender default (check_schedule_message): see README, API notes. */
export function defaultReadBySender(checked: CheckedMessage): boolean {
	return !checked.to_self;
}

/** A scheduled message as GET /scheduled_messages, POST /register and events show it (Zulip's to_dict). */
export function scheduledView(m: ScheduledMessageDoc) {
	return {
		scheduled_message_id: m._id,
		type: m.type,
		to: m.to,
		...(m.type === "stream" ? { topic: m.topic } : {}),
		content: m.content,
		rendered_content: m.rendered_content,
		scheduled_delivery_timestamp: m.scheduled_timestamp,
		failed: m.state === "failed",
	};
}

/** The states GET /scheduled_messages lists (delivered ones are gone). */
export const LISTED: ScheduledMessageDoc["state"][] = ["scheduled", "sending", "failed"];

/** Listed soonest first, as Zulip orders them. */
export const bySchedule = (a: ScheduledMessageDoc, b: ScheduledMessageDoc) => a.scheduled_timestamp - b.scheduled_timestamp || a._id - b._id;
