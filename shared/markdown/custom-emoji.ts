// The organization's custom emoji as rendering knows them: `:name:` of an active one renders as
// Zulip's <img class="emoji"> (zulip-markdown.ts), before a Unicode emoji of the same name, as
// Zulip's EmojiPattern. Set by the process that renders messages (the messages service's cache,
// services/messages/realm-emoji-cache.ts); until then, no custom emoji is known.
import type { RealmEmoji } from "../org-events";

let byId: Record<string, RealmEmoji> | null = null;
let activeByName = new Map<string, RealmEmoji>();

export function setCustomEmoji(all: Record<string, RealmEmoji>): void {
	byId = all;
	activeByName = new Map(Object.values(all).filter((e) => !e.deactivated).map((e) => [e.name, e]));
}

/** Every custom emoji by ID (deactivated ones too), or null until they have been loaded. */
export function currentCustomEmoji(): Record<string, RealmEmoji> | null {
	return byId;
}

/** The active custom emoji of that name. */
export function activeCustomEmoji(name: string): RealmEmoji | undefined {
	return activeByName.get(name);
}
