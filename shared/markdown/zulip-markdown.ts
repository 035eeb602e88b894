// Zulip's syntax beyond Markdown, as markdown-it plugins: emoji (:smile:, by Zulip's emoji names
// and aliases, shared/emoji.ts), channel and topic links (#**channel**, #**channel>topic**),
// spoiler and quote blocks (```spoiler Header, ```quote) and global times (<time:...>).
// Everything a sender writes inside them is escaped like any other text.
import type MarkdownIt from "markdown-it";
import { escapeHtml } from "../html";
import { emojiCode } from "../emoji";
import { activeCustomEmoji } from "./custom-emoji";

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

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A global time's instant in UTC as Zulip writes it in `datetime` (ISO 8601, `Z`), or undefined.
 * Zulip reads any form dateutil parses; here ISO 8601 (without an offset: UTC, as in Zulip) and
 * UNIX seconds, which is what clients' time pickers and the server itself write.
 */
export function globalTime(text: string): string | undefined {
	const s = text.trim();
	let ms: number;
	const iso = ISO_TIME.exec(s);
	if (iso) {
		const [, y, mo, d, h = "00", mi = "00", sec = "00", frac = "", zone = "Z"] = iso;
		const offset = zone.toUpperCase() === "Z" ? "Z" : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
		ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac.slice(0, 4)}${offset}`);
	} else if (/^-?\d+(\.\d+)?$/.test(s)) {
		ms = Number(s) * 1000;
	} else return undefined;
	if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined;
	const out = new Date(ms).toISOString(); // 2024-08-06T16:00:00.000Z
	return out.endsWith(".000Z") ? `${out.slice(0, -5)}Z` : `${out.slice(0, -1)}000Z`;
}

export function zulipMarkdown(md: MarkdownIt): void {
	md.inline.ruler.before("emphasis", "zulip_emoji", (state, silent) => {
		// Zulip's emoji syntax, :[\w+-]+: (names can have letters beyond ASCII: flag_åland_islands).
		const m = /^:([\p{L}\p{N}_+-]+):/u.exec(state.src.slice(state.pos));
		if (!m) return false;
		// An active custom emoji first, as Zulip's EmojiPattern (custom-emoji.ts).
		const custom = activeCustomEmoji(m[1]);
		if (custom) {
			if (!silent) {
				const t = state.push("html_inline", "", 0);
				t.content = `<img alt=":${escapeHtml(m[1])}:" class="emoji" src="${escapeHtml(custom.source_url)}" title="${escapeHtml(m[1].replace(/_/g, " "))}">`;
			}
			state.pos += m[0].length;
			return true;
		}
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

	// Zulip's global times, <time:2024-08-06T17:00:00+01:00> or <time:UNIX seconds>, before
	// markdown-it would read them as an autolink with the scheme "time".
	md.inline.ruler.before("autolink", "zulip_time", (state, silent) => {
		const m = /^<time:([^>\n]*?)>/.exec(state.src.slice(state.pos));
		if (!m) return false;
		if (!silent) {
			const utc = globalTime(m[1]);
			const t = state.push("html_inline", "", 0);
			t.content = utc ? `<time datetime="${utc}">${escapeHtml(m[1])}</time>` : `<span class="timestamp-error">Invalid time format: ${escapeHtml(m[1])}</span>`;
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
		// A quote's content is in a block quote: no image previews there, as in Zulip (image-previews.ts).
		if (kind === "quote" || kind === "quoted") return `<blockquote>\n${md.render(token.content, { ...env, inQuote: true })}</blockquote>\n`;
		return fence(tokens, idx, options, env, self);
	};
}
