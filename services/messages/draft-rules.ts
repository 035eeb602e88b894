// Drafts: the Draft resource's rules (POST /drafts, PATCH /drafts/{id}).
//
// A draft is checked whole before anything is stored, and a batch is stored only when every
// draft in it passes. Channel drafts name exactly one channel the user can access; direct
// drafts name active users; unaddressed drafts (and direct drafts naming no one) keep no
// recipients and no topic. The recipients of a whole batch are looked up with one call per
// service, not one per draft.
import { badRequest, apiError } from "../../shared/errors";
import { clock } from "../../shared/clock";
import { LIMITS } from "../../shared/version";
import type { DraftDoc } from "./models/draft";

export type DraftInput = Omit<DraftDoc, "_id" | "user_id">;

const KEYS = ["type", "to", "topic", "content", "timestamp"];
const REQUIRED = ["type", "to", "topic", "content"];
const TYPES = ["", "stream", "private"];

/** The last second of year 9999, the latest time Zulip's datetimes hold. */
const MAX_TIMESTAMP = 253_402_300_799;
const TRUNCATED = "\n[message truncated]";

/** As Zulip's normalize_body: content past the message length limit is cut, with a notice, not refused. */
function truncated(content: string): string {
	const chars = [...content];
	if (chars.length <= LIMITS.max_message_length) return content;
	return chars.slice(0, LIMITS.max_message_length - TRUNCATED.length).join("") + TRUNCATED;
}

export const draftMissing = () => apiError(404, "BAD_REQUEST", "Draft does not exist");
export const draftsDisabled = () => badRequest("User has disabled synchronizing drafts.");

/** What the drafts of a request address, looked up in other services once for the whole batch. */
export interface DraftTargets {
	/** The channels among those named that the user may access. */
	channels: Set<number>;
	/** Whether every user named by a direct draft is an active user. */
	usersValid: boolean;
}

/** The channels and users a batch of drafts names, for one lookup of each. */
export function draftRecipients(drafts: DraftInput[]): { channelIds: number[]; userIds: number[] } {
	const channelIds = drafts.filter((d) => d.type === "stream" && d.to.length === 1).map((d) => d.to[0]);
	const userIds = drafts.filter((d) => d.type === "private").flatMap((d) => d.to);
	return { channelIds: [...new Set(channelIds)], userIds: [...new Set(userIds)] };
}

/** A draft object's shape, field by field, with Zulip's messages; `name` is how errors call it. */
export function draftShape(raw: unknown, name: string): DraftInput {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw badRequest(`${name} is not a dict`);
	const d = raw as Record<string, unknown>;
	const unexpected = Object.keys(d).filter((k) => !KEYS.includes(k));
	if (unexpected.length) throw badRequest(`Unexpected arguments: ${unexpected.join(", ")}`);
	for (const k of REQUIRED) if (!(k in d)) throw badRequest(`${k} key is missing from ${name}`);
	const field = (k: string) => `${name}["${k}"]`;
	if (typeof d.type !== "string") throw badRequest(`${field("type")} is not a string`);
	if (!TYPES.includes(d.type)) throw badRequest(`Invalid ${field("type")}`);
	if (!Array.isArray(d.to)) throw badRequest(`${field("to")} is not a list`);
	d.to.forEach((x, i) => {
		if (!Number.isInteger(x)) throw badRequest(`${field("to")}[${i}] is not an integer`);
	});
	if (typeof d.topic !== "string") throw badRequest(`${field("topic")} is not a string`);
	if (typeof d.content !== "string") throw badRequest(`${field("content")} is not a string`);
	if (d.timestamp !== undefined && !Number.isInteger(d.timestamp)) throw badRequest(`${field("timestamp")} is not an integer`);
	if ((d.timestamp as number | undefined) !== undefined && (d.timestamp as number) > MAX_TIMESTAMP) throw badRequest(`${field("timestamp")} is too large`);
	return { type: d.type as DraftInput["type"], to: d.to as number[], topic: d.topic, content: d.content, timestamp: d.timestamp as number };
}

/**
 * The draft as stored: its rules checked, its recipients verified, its timestamp filled in. As
 * Zulip reads a draft back: a direct draft names the other participants (the drafter only in a
 * draft to themself), and one naming nobody is unaddressed.
 */
export function checkDraft(d: DraftInput, targets: DraftTargets, drafter: number): DraftInput {
	if (d.content.includes("\0")) throw badRequest("Content must not contain null bytes");
	if (d.topic.includes("\0")) throw badRequest("Topic must not contain null bytes");
	if (d.timestamp !== undefined && d.timestamp < 0) throw badRequest("Timestamp must not be negative.");
	const timestamp = d.timestamp ?? clock.now();
	const content = truncated(d.content);
	if (d.type === "stream") {
		if (d.to.length !== 1) throw badRequest("Must specify exactly 1 channel ID for channel messages");
		if (!targets.channels.has(d.to[0])) throw badRequest("Invalid channel ID");
		// As Zulip does, an over-long topic is cut to the limit rather than refused.
		return { type: "stream", to: d.to, topic: [...d.topic].slice(0, LIMITS.max_topic_length).join(""), content, timestamp };
	}
	if (d.type === "private" && d.to.length) {
		if (!targets.usersValid) throw badRequest("Invalid user ID");
		const to = [...new Set(d.to)].sort((a, b) => a - b);
		const others = to.filter((u) => u !== drafter);
		return { type: "private", to: others.length ? others : to, topic: "", content, timestamp };
	}
	return { type: "", to: [], topic: "", content, timestamp };
}

/** A stored draft as the API shows it. */
export const draftView = (d: DraftDoc) => ({ id: d._id, type: d.type, to: d.to, topic: d.topic, content: d.content, timestamp: d.timestamp });
