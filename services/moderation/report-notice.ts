// What Notification Bot posts for a report, in Zulip's words and format (zerver/lib/message_report.py):
// a header naming the reporter, the reported user and when the message was sent (and, for a
// direct message, to whom where Zulip says so), a quote block with the reason and description,
// and a spoiler holding the message's Markdown under a link to it. The topic is
// "<reported user's name> moderation", or the general chat where the channel allows only that.
import { narrowUrl } from "../../shared/markdown/zulip-markdown";
import { LIMITS } from "../../shared/version";
import type { ReportedMessage } from "../../shared/actions";
import type { ReportType } from "./models/report";

export const REPORT_REASONS: Record<ReportType, string> = {
	spam: "Spam",
	harassment: "Harassment",
	inappropriate: "Inappropriate content",
	norms: "Violates community norms",
	other: "Other reason",
};

/** Zulip's limit on the description a report carries. */
export const MAX_DESCRIPTION_LENGTH = 1000;
/** The quoted message is cut so the notice stays within the message limit (Zulip's figure). */
const MAX_SNIPPET_LENGTH = LIMITS.max_message_length - MAX_DESCRIPTION_LENGTH - 500;

export interface Person {
	user_id: number;
	full_name: string;
}

export interface ReportFacts {
	reporter: Person;
	message: ReportedMessage;
	/** The sender and every direct-message participant, by ID. */
	people: Map<number, Person>;
	channelName: string;
	reportType: ReportType;
	description: string;
	realmUrl: string;
}

const mention = (u: Person) => `@_**${u.full_name}|${u.user_id}**`;

/** Zulip's global time syntax, as Python writes a UTC datetime (`+00:00`, whole seconds). */
const globalTime = (seconds: number) => `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;

/** "A", "A and B", "A, B, and C". */
function listed(items: string[]): string {
	if (items.length <= 2) return items.join(" and ");
	return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}

/** Cuts text to `max` characters, the marker included (Zulip's truncate_content). */
export function truncate(text: string, max: number, marker: string): string {
	const chars = [...text];
	return chars.length <= max ? text : chars.slice(0, max - [...marker].length).join("") + marker;
}

/** A code fence longer than any fence line inside the content, so the quote cannot be closed early. */
export function unusedFence(content: string): string {
	let length = 3;
	for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1].length + 1);
	return "`".repeat(length);
}

/** Names that would break `#**channel>topic@id**` get a plain Markdown link instead (Zulip's rule). */
const BROKEN_LINK = /[`>*&]|\[\[|\]\]|\$\$/;

function messageLink(m: ReportedMessage, channelName: string): string {
	if (!BROKEN_LINK.test(channelName) && !BROKEN_LINK.test(m.topic)) return `#**${channelName}>${m.topic}@${m.message_id}**`;
	const topicText = m.topic === "" ? "general chat" : m.topic;
	return `[#${channelName} > ${topicText} @ 💬](${narrowUrl(m.channel_id!, channelName, m.topic).replace(/^\//, "")}/near/${m.message_id})`;
}

function dmUrl(m: ReportedMessage, realmUrl: string): string {
	const ids = [...m.dm_user_ids].sort((a, b) => a - b);
	return `${realmUrl}/#narrow/dm/${ids.join(",")}-${ids.length >= 3 ? "group" : "pm"}/near/${m.message_id}`;
}

function header(f: ReportFacts): string {
	const m = f.message;
	const reported = f.people.get(m.sender_id)!;
	const start = `${mention(f.reporter)} reported a message sent by ${mention(reported)}`;
	const at = `at ${globalTime(m.timestamp)}.`;
	if (m.type === "stream") return `${start} ${at}`;
	const others = m.dm_user_ids.filter((id) => id !== m.sender_id).map((id) => f.people.get(id)!);
	if (m.dm_user_ids.length <= 2) {
		if (reported.user_id !== f.reporter.user_id) return `${start} ${at}`;
		// Reporting one's own direct message names its recipient (oneself in a note to self).
		return `${start} to ${mention(others[0] ?? f.reporter)} ${at}`;
	}
	return `${start} to ${listed(others.map(mention))} ${at}`;
}

export function reportContent(f: ReportFacts): string {
	const m = f.message;
	const original = m.type === "stream" ? `Original message at ${messageLink(m, f.channelName)}` : `[Original message](${dmUrl(m, f.realmUrl)})`;
	const quoted = truncate(m.content, MAX_SNIPPET_LENGTH, "\n[message truncated]");
	const fence = unusedFence(quoted);
	// Stored as Zulip stores message content: without trailing whitespace.
	return `${header(f)}\n\`\`\`quote\n**${REPORT_REASONS[f.reportType]}**. ${f.description}\n\`\`\`\n\n${fence} spoiler ${original}\n${quoted}\n${fence}`;
}

/** The topic a report goes to: one per reported user, cut to the topic limit as Zulip cuts it. */
export function reportTopic(reportedName: string, generalChatOnly: boolean): string {
	return generalChatOnly ? "" : truncate(`${reportedName} moderation`, LIMITS.max_topic_length, "...");
}
