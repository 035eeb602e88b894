// Message content: Markdown rendered to safe HTML. markdown-it with raw HTML disabled escapes
// every tag a sender writes, and its link validation drops javascript:, vbscript: and data: URLs,
// so no input can inject script or attributes. Zulip's own syntax (mentions, emoji, spoilers)
// builds on this.
import MarkdownIt from "markdown-it";
import { mentionPlugin, type MentionTargets, type Mentions } from "./mentions";
import { zulipMarkdown, type ChannelLinks } from "./zulip-markdown";
import { linkifierPlugin, type CompiledLinkifier } from "./linkifiers";
import { imagePreviewPlugin, type ImagePreviews } from "./image-previews";

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
md.use(mentionPlugin);
md.use(zulipMarkdown);
md.use(linkifierPlugin);
md.use(imagePreviewPlugin);

// Links open in a new tab and pass no referrer, as Zulip's do.
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
	tokens[idx].attrSet("target", "_blank");
	tokens[idx].attrSet("rel", "noopener noreferrer");
	return defaultLinkOpen(tokens, idx, options, env, self);
};

export interface Rendered {
	html: string;
	isMeMessage: boolean;
	mentions: Mentions;
	has: { has_link: boolean; has_image: boolean; has_attachment: boolean };
}

/** What rendered HTML contains, for the has: narrows. */
export function contentHas(html: string): Rendered["has"] {
	return {
		has_link: /<a href="/.test(html),
		// As Zulip: a message has an image when it shows an inline image preview (not an emoji's <img>).
		has_image: /<div class="message_inline_image">/.test(html),
		has_attachment: /<a href="[^"]*\/user_uploads\//.test(html),
	};
}

const NO_TARGETS: MentionTargets = { usersById: new Map(), usersByName: new Map(), groupsByName: new Map() };

/** Markdown with Zulip's syntax but no mentions or channel links (descriptions, profile fields). */
export function renderMarkdown(text: string): string {
	return text ? renderContent(text).html : "";
}

export function renderContent(
	content: string,
	targets: MentionTargets = NO_TARGETS,
	channelLinks: ChannelLinks = new Map(),
	linkifiers: CompiledLinkifier[] = [],
	imagePreviews: ImagePreviews = new Map(),
): Rendered {
	const isMeMessage = /^\/me(\s|$)/.test(content);
	const mentions: Mentions = { userIds: new Set(), groupIds: new Set(), channelWildcard: false, topicWildcard: false };
	const html = md.render(content, { targets, mentions, channelLinks, linkifiers, imagePreviews }).trim();
	return { html, isMeMessage, mentions, has: contentHas(html) };
}
