// Zulip's syntax beyond Markdown, as markdown-it plugins: emoji (:smile:, by Zulip's emoji names
// and aliases, shared/emoji.ts), channel and topic links (#**channel**, #**channel>topic**), and
// spoiler and quote blocks (```spoiler Header, ```quote). Everything a sender writes inside them
// is escaped like any other text.
import type MarkdownIt from "markdown-it";
import { escapeHtml } from "../html";
import { emojiCode } from "../emoji";

/** Channel IDs by lowercased name, looked up before rendering (one call for all links). */
export type ChannelLinks = Map<string, { id: number; name: string }>;

const CHANNEL_LINK = /#\*\*([^*>\n]+?)(?:>([^*\n]+?))?\*\*/g;

export function channelLinkCandidates(content: string): string[] {
	return [...new Set([...content.matchAll(CHANNEL_LINK)].map((m) => m[1].trim().toLowerCase()))];
}

function narrowSlug(id: number, name: string): string {
	return `${id}-${encodeURIComponent(name.replace(/ /g, "-"))}`;
}

/** The web app's address of a channel, or of one of its topics. */
export function narrowUrl(channelId: number, channelName: string, topic?: string): string {
	const channel = `/#narrow/channel/${narrowSlug(channelId, channelName)}`;
	return topic === undefined ? channel : `${channel}/topic/${encodeURIComponent(topic)}`;
}

export function zulipMarkdown(md: MarkdownIt): void {
	md.inline.ruler.before("emphasis", "zulip_emoji", (state, silent) => {
		// Zulip's emoji syntax, :[\w+-]+: (names can have letters beyond ASCII: flag_åland_islands).
		const m = /^:([\p{L}\p{N}_+-]+):/u.exec(state.src.slice(state.pos));
		if (!m) return false;
		const code = emojiCode(m[1]);
		if (!code) return false;
		if (!silent) {
			const t = state.push("html_inline", "", 0);
			t.content = `<span aria-label="${escapeHtml(m[1].replace(/_/g, " "))}" class="emoji emoji-${code}" role="img" title="${escapeHtml(m[1].replace(/_/g, " "))}">:${escapeHtml(m[1])}:</span>`;
		}
		state.pos += m[0].length;
		return true;
	});

	md.inline.ruler.before("emphasis", "zulip_channel_link", (state, silent) => {
		const m = /^#\*\*([^*>\n]+?)(?:>([^*\n]+?))?\*\*/.exec(state.src.slice(state.pos));
		if (!m) return false;
		const links = (state.env as { channelLinks?: ChannelLinks }).channelLinks;
		const channel = links?.get(m[1].trim().toLowerCase());
		if (!channel) return false;
		if (!silent) {
			const t = state.push("html_inline", "", 0);
			if (m[2] === undefined) {
				t.content = `<a class="stream" data-stream-id="${channel.id}" href="${narrowUrl(channel.id, channel.name)}">#${escapeHtml(channel.name)}</a>`;
			} else {
				const topic = m[2].trim();
				t.content = `<a class="stream-topic" data-stream-id="${channel.id}" href="${narrowUrl(channel.id, channel.name, topic)}">#${escapeHtml(channel.name)} &gt; ${escapeHtml(topic)}</a>`;
			}
		}
		state.pos += m[0].length;
		return true;
	});

	// ```spoiler Header ... ``` and ```quote ... ```: their content is Markdown too.
	const fence = md.renderer.rules.fence!;
	md.renderer.rules.fence = (tokens, idx, options, env, self) => {
		const token = tokens[idx];
		const [kind, ...rest] = token.info.trim().split(/\s+/);
		if (kind === "spoiler") {
			const header = rest.join(" ");
			return (
				`<div class="spoiler-block"><div class="spoiler-header">${header ? md.render(header, env) : ""}</div>` +
				`<div class="spoiler-content" aria-hidden="true">${md.render(token.content, env)}</div></div>\n`
			);
		}
		if (kind === "quote" || kind === "quoted") return `<blockquote>\n${md.render(token.content, env)}</blockquote>\n`;
		return fence(tokens, idx, options, env, self);
	};
}
