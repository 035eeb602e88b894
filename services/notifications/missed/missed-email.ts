// The missed-message email of one conversation (Zulip's do_send_missedmessage_events_reply_in_zulip
// and templates/zerver/emails/missed_message.*): the subject names the conversation ("DMs with
// <sender>", "Group DMs with <A, B, and C>", "#channel > topic", "[resolved] #channel > topic"), or
// "New messages" when content is hidden, with " [<organization>]" where the user's
// realm_name_in_email_notifications_policy says so; the body quotes the messages by sender, says
// why it was sent, and links to the conversation. No incoming email gateway: replies go to
// NOREPLY_EMAIL, and the email says not to reply.
import { escapeHtml } from "../../../shared/html";
import { narrowUrl } from "../../../shared/markdown/zulip-markdown";
import { compose, type Block, type Footer, type Rendered } from "../templates/layout";
import type { NotificationTrigger } from "./notification-data";

/** A message as the messages service shows it (messages.unreadForNotices). */
export interface ShownMessage {
	id: number;
	type: "stream" | "private";
	sender_id: number;
	sender_full_name: string;
	/** A channel's name, or a direct message's participants. */
	display_recipient: string | Array<{ id: number; full_name: string }>;
	stream_id?: number;
	subject: string;
	/** Rendered HTML. */
	content: string;
	content_markdown: string;
}

export interface Missed {
	message: ShownMessage;
	/** Null for a context message: an earlier one of the topic, quoted beside the missed ones. */
	trigger: NotificationTrigger | null;
	/** The group a "mentioned" trigger came through, null for a mention by name. */
	group: { name: string; size: number } | null;
}

export interface MissedEmailFacts {
	user_id: number;
	realm_name: string;
	realm_url: string;
	/** Both the user's message_content_in_email_notifications and the organization's allow it. */
	show_content: boolean;
	/** Content hidden by the organization (else, when hidden, by the user). */
	hidden_by_realm: boolean;
	/** Zulip's include_realm_name_in_missedmessage_emails_subject. */
	realm_in_subject: boolean;
}

/** Zulip's bucket: a channel topic (case aside), a group DM, or a one-on-one DM's sender. */
export function conversationKey(m: ShownMessage): string {
	if (m.type === "stream") return `channel:${m.stream_id}:${m.subject.toLowerCase()}`;
	const people = m.display_recipient as Array<{ id: number }>;
	return people.length > 2 ? `group:${people.map((p) => p.id).sort((a, b) => a - b).join(",")}` : `dm:${m.sender_id}`;
}

const RESOLVED = "✔ ";

/** Zulip's direct_message_group_display_name: the others, "A and B", "A, B, and C", "A, B, and N others". */
function groupName(others: string[]): string {
	if (others.length === 2) return others.join(" and ");
	if (others.length === 3) return `${others[0]}, ${others[1]}, and ${others[2]}`;
	return `${others.slice(0, 2).join(", ")}, and ${others.length - 2} others`;
}

function subjectOf(list: Missed[], f: MissedEmailFacts, senders: string[]): string {
	const first = list[0].message;
	let subject = "New messages";
	if (f.show_content) {
		if (first.type === "stream") {
			const resolved = first.subject.startsWith(RESOLVED);
			subject = `${resolved ? "[resolved] " : ""}#${String(first.display_recipient)} > ${resolved ? first.subject.slice(RESOLVED.length) : first.subject}`;
		} else {
			const people = first.display_recipient as Array<{ id: number; full_name: string }>;
			subject = people.length > 2 ? `Group DMs with ${groupName(people.filter((p) => p.id !== f.user_id).map((p) => p.full_name))}` : `DMs with ${senders.join(", ")}`;
		}
	}
	return f.realm_in_subject ? `${subject} [${f.realm_name}]` : subject;
}

/**
 * Zulip's get_mentioned_user_group: none when any message mentions the user by name, else the
 * smallest of the groups the messages mentioned them through (sizes as when each was sent).
 */
function mentionedGroup(list: Missed[]): string | null {
	const mentions = list.filter((m) => m.trigger === "mentioned");
	if (!mentions.length || mentions.some((m) => m.group === null)) return null;
	return mentions.map((m) => m.group!).reduce((a, b) => (b.size < a.size ? b : a)).name;
}

/** Zulip's reason lines, by the most salient trigger among the messages. */
function reasonOf(list: Missed[], triggers: Set<NotificationTrigger>, channel: string, topic: string): string | null {
	const because = "You are receiving this because";
	const group = mentionedGroup(list);
	if (triggers.has("mentioned")) return group === null ? `${because} you were personally mentioned.` : `${because} @${group} was mentioned.`;
	if (triggers.has("topic_wildcard_mentioned_in_followed_topic") || triggers.has("topic_wildcard_mentioned")) return `${because} all topic participants were mentioned in #${channel} > ${topic}.`;
	if (triggers.has("stream_wildcard_mentioned_in_followed_topic")) return `${because} you have wildcard mention notifications enabled for topics you follow.`;
	if (triggers.has("stream_wildcard_mentioned")) return `${because} everyone was mentioned in #${channel}.`;
	if (triggers.has("followed_topic_email_notify")) return `${because} you have email notifications enabled for topics you follow.`;
	if (triggers.has("stream_email_notify")) return `${because} you have email notifications enabled for #${channel}.`;
	return null;
}

/** Where the conversation opens in the web app, at its first missed message. */
function conversationUrl(m: ShownMessage, f: MissedEmailFacts): string {
	if (m.type === "stream") return `${f.realm_url}${narrowUrl(m.stream_id!, String(m.display_recipient), m.subject)}/near/${m.id}`;
	const others = (m.display_recipient as Array<{ id: number }>).map((p) => p.id).filter((id) => id !== f.user_id);
	return `${f.realm_url}/#narrow/dm/${others.join(",")}-${others.length > 1 ? "group" : "dm"}/near/${m.id}`;
}

/** Links and images of rendered content, made absolute for a mail client. */
const absolute = (html: string, realmUrl: string) => html.replace(/(href|src)="\//g, `$1="${realmUrl}/`);

/** The messages by consecutive sender, quoted (Zulip's build_message_list, its plain and HTML forms). */
function messageBlocks(list: Missed[], f: MissedEmailFacts): Block[] {
	const blocks: Block[] = [];
	for (let i = 0; i < list.length; ) {
		const sender = list[i].message.sender_id;
		const run: ShownMessage[] = [];
		for (; i < list.length && list[i].message.sender_id === sender; i++) run.push(list[i].message);
		const name = run[0].sender_full_name;
		blocks.push({
			text: `${name}:\n${run.map((m) => m.content_markdown.split("\n").map((l) => `> ${l}`).join("\n")).join("\n")}`,
			html: `<p><b>${escapeHtml(name)}</b></p>\n${run.map((m) => `<div class="message_content">${absolute(m.content, f.realm_url)}</div>`).join("\n")}`,
		});
	}
	return blocks;
}

/**
 * One conversation's email; `list` in message order, context messages among them. The subject and
 * the link name the first missed message (Zulip's missed_messages[0], context coming after).
 */
export function missedEmail(list: Missed[], f: MissedEmailFacts, footer: Footer): Rendered {
	const missed = list.filter((m) => m.trigger !== null);
	const first = missed[0].message;
	const senders = [...new Set(missed.map((m) => m.message.sender_full_name))];
	const triggers = new Set(missed.map((m) => m.trigger!));
	const blocks: Block[] = f.show_content
		? messageBlocks(list, f)
		: [
				f.hidden_by_realm
					? `This email does not include message content because your organization hides message content in email notifications. See ${f.realm_url}/help/hide-message-content-in-emails for more details.`
					: `This email does not include message content because you have chosen to hide message content in email notifications. See ${f.realm_url}/help/email-notifications#hide-message-content for more details.`,
			];
	const reason = first.type === "stream" ? reasonOf(missed, triggers, String(first.display_recipient), first.subject) : null;
	if (reason) blocks.push(`--\n${reason}`);
	blocks.push({ link: conversationUrl(first, f), label: f.show_content ? `Reply in ${f.realm_name}` : `View or reply in ${f.realm_name}` });
	if (f.show_content) blocks.push("Do not reply to this email. This server is not configured to accept incoming emails (https://zulip.readthedocs.io/en/latest/production/email-gateway.html).");
	blocks.push({ link: `${f.realm_url}/#settings/notifications`, label: "Manage email preferences" });
	return compose(subjectOf(missed, f, senders), `${f.realm_name} notifications`, blocks, footer);
}
