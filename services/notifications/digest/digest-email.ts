// The digest email (Zulip's templates/zerver/emails/digest.{subject.txt,txt,html}): each hot
// conversation as its channel and topic with its first messages and "+ N more messages by ...",
// the new channels, a link to catch up, and the links to the notification settings and to
// unsubscribe from digests.
import { escapeHtml } from "../../../shared/html";
import { narrowUrl } from "../../../shared/markdown/zulip-markdown";
import type { RealmFacts } from "../../../shared/email";
import { compose, type Block, type Footer, type Rendered } from "../templates/layout";

export interface DigestConversation {
	channel_id: number;
	channel_name: string;
	topic: string;
	/** The first messages: Markdown as sent (the text part) and rendered (the HTML part). */
	messages: Array<{ content: string; rendered_content: string }>;
	/** Human messages beyond those shown (Zulip's teaser count). */
	more: number;
	participants: string[];
}

export interface DigestContext extends RealmFacts {
	conversations: DigestConversation[];
	new_channels: Array<{ id: number; name: string }>;
}

/** Zulip's display_list: "a", "a and b", "a, b and c"; past `limit`, "a, b and 3 others". */
export function displayList(values: string[], limit: number): string {
	if (values.length === 1) return values[0];
	if (values.length <= limit) return `${values.slice(0, -1).join(", ")} and ${values.at(-1)}`;
	const others = values.length - limit;
	return `${values.slice(0, limit).join(", ")} and ${others} other${others === 1 ? "" : "s"}`;
}

/** Links in rendered messages are relative to the organization (/user_uploads/...): made absolute, as Zulip's relative_to_full_url does. */
const absolute = (html: string, realmUrl: string) => html.replace(/\b(href|src)="\/(?!\/)/g, `$1="${realmUrl}/`);

function conversationBlock(c: DigestConversation, realmUrl: string): Block {
	const header = `#${c.channel_name} > ${c.topic || "general chat"}`;
	const more = c.more > 0 ? `+ ${c.more} more message${c.more === 1 ? "" : "s"} by ${displayList(c.participants, 4)}.` : "";
	const url = realmUrl + narrowUrl(c.channel_id, c.channel_name, c.topic);
	return {
		text: [header, ...c.messages.map((m) => m.content), ...(more ? ["", more] : [])].join("\n"),
		html: [
			'<div class="messages"><div class="hot_convo_recipient_block" style="border: 1px solid #ddd; margin-bottom: 4px;">',
			`<div class="hot_convo_recipient_header" style="background-color: #f3f3f3; padding: 2px 6px; font-weight: bold;"><a href="${escapeHtml(url)}">${escapeHtml(header)}</a></div>`,
			...c.messages.map((m) => `<div class="hot_convo_message_content_block" style="padding: 2px 6px;">${absolute(m.rendered_content, realmUrl)}</div>`),
			"</div>",
			more ? `<p class="digest_paragraph">${escapeHtml(more)}</p>` : "",
			"</div>",
		].join("\n"),
	};
}

export function digestEmail(c: DigestContext, footer: Footer): Rendered {
	const blocks: Block[] = c.conversations.map((conv) => conversationBlock(conv, c.realm_url));
	if (c.new_channels.length) {
		const links = c.new_channels.map((ch) => `<a href="${escapeHtml(c.realm_url + narrowUrl(ch.id, ch.name))}">${escapeHtml(ch.name)}</a>`);
		blocks.push({
			text: `** New channels **\n    ${displayList(c.new_channels.map((ch) => ch.name), 1000)}.`,
			html: `<p class="digest_paragraph"><b>New channels</b></p>\n<p class="digest_paragraph">${displayList(links, 1000)}.</p>`,
		});
	}
	blocks.push({ link: c.realm_url, label: "Click here to log in to Zulip and catch up" });
	blocks.push({ link: `${c.realm_url}/#settings/notifications`, label: "Manage email preferences" });
	return compose(`Zulip digest for ${c.realm_name}`, `${c.realm_name} digest`, blocks, footer);
}
