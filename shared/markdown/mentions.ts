// Zulip's mention syntax: @**Full Name**, @**Full Name|42**, silent @_**Full Name**, group
// mentions @*group* (silent @_*group*), and the wildcards @**all**, @**everyone**, @**channel**
// (@**stream**) and @**topic**. Names are found before rendering (one lookup for all of them),
// rendered as Zulip's spans, and turned into the recipients' mention flags.
import type MarkdownIt from "markdown-it";
import { escapeHtml } from "../html";

export const CHANNEL_WILDCARDS = new Set(["all", "everyone", "channel", "stream"]);

export interface MentionTargets {
	/** Users by ID and by exact full name (a name shared by several users matches none). */
	usersById: Map<number, { id: number; full_name: string }>;
	usersByName: Map<string, { id: number; full_name: string }>;
	groupsByName: Map<string, { id: number; name: string }>;
}

export interface Mentions {
	userIds: Set<number>;
	groupIds: Set<number>;
	channelWildcard: boolean;
	topicWildcard: boolean;
}

const USER = /@(_?)\*\*([^*\n]+?)\*\*/g;
const GROUP = /@(_?)\*([^*\n]+?)\*(?!\*)/g;

/** The names and IDs a message mentions, so they can be looked up in one call. */
export function mentionCandidates(content: string): { names: string[]; ids: number[]; groups: string[] } {
	const names = new Set<string>();
	const ids = new Set<number>();
	const groups = new Set<string>();
	for (const [, , inner] of content.matchAll(USER)) {
		const m = /^(.*)\|(\d+)$/.exec(inner);
		if (m) ids.add(Number(m[2]));
		else if (!CHANNEL_WILDCARDS.has(inner) && inner !== "topic") names.add(inner);
	}
	for (const [, , name] of content.matchAll(GROUP)) groups.add(name);
	return { names: [...names], ids: [...ids], groups: [...groups] };
}

/** A markdown-it inline rule rendering mentions; what it finds is collected in env.mentions. */
export function mentionPlugin(md: MarkdownIt): void {
	md.inline.ruler.before("emphasis", "zulip_mention", (state, silent) => {
		const src = state.src.slice(state.pos);
		if (!src.startsWith("@")) return false;
		const env = state.env as { targets?: MentionTargets; mentions?: Mentions };
		if (!env.targets || !env.mentions) return false;
		const user = /^@(_?)\*\*([^*\n]+?)\*\*/.exec(src);
		const group = user ? null : /^@(_?)\*([^*\n]+?)\*(?!\*)/.exec(src);
		const match = user ?? group;
		if (!match) return false;
		const isSilent = match[1] === "_";
		const inner = match[2];
		let html: string | undefined;
		if (user) {
			if (CHANNEL_WILDCARDS.has(inner) && !isSilent) {
				html = `<span class="user-mention channel-wildcard-mention" data-user-id="*">@${escapeHtml(inner)}</span>`;
				if (!silent) env.mentions.channelWildcard = true;
			} else if (inner === "topic" && !isSilent) {
				html = `<span class="topic-mention">@topic</span>`;
				if (!silent) env.mentions.topicWildcard = true;
			} else {
				const byId = /^(.*)\|(\d+)$/.exec(inner);
				const target = byId ? env.targets.usersById.get(Number(byId[2])) : env.targets.usersByName.get(inner);
				if (target && (!byId || byId[1] === target.full_name)) {
					const cls = isSilent ? "user-mention silent" : "user-mention";
					html = `<span class="${cls}" data-user-id="${target.id}">${isSilent ? "" : "@"}${escapeHtml(target.full_name)}</span>`;
					if (!silent && !isSilent) env.mentions.userIds.add(target.id);
				}
			}
		} else {
			const target = env.targets.groupsByName.get(inner);
			if (target) {
				const cls = isSilent ? "user-group-mention silent" : "user-group-mention";
				html = `<span class="${cls}" data-user-group-id="${target.id}">${isSilent ? "" : "@"}${escapeHtml(target.name)}</span>`;
				if (!silent && !isSilent) env.mentions.groupIds.add(target.id);
			}
		}
		// An unknown name stays plain text, as in Zulip.
		if (html === undefined) return false;
		if (!silent) {
			const token = state.push("html_inline", "", 0);
			token.content = html;
		}
		state.pos += match[0].length;
		return true;
	});
}
