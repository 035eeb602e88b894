// Message content: Markdown rendered to safe HTML. markdown-it with raw HTML disabled escapes
// every tag a sender writes, and its link validation drops javascript:, vbscript: and data: URLs,
// so no input can inject script or attributes. Zulip's own syntax (mentions, emoji, spoilers)
// builds on this.
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

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
}

export function renderContent(content: string): Rendered {
	const isMeMessage = /^\/me(\s|$)/.test(content);
	return { html: md.render(content).trim(), isMeMessage };
}
