// The organization's custom emoji for reactions and rendering: asked of the catalog service once,
// then kept current by catalog.realmEmojiChanged (which carries the whole list), so no reaction or
// message costs a bus call.
import type { Context } from "moleculer";
import { call, type Meta } from "../../shared/actions";
import { currentCustomEmoji, setCustomEmoji } from "../../shared/markdown/custom-emoji";
import type { RealmEmoji } from "../../shared/org-events";

let heard = 0;

/** From the broadcast: always the newest. */
export function realmEmojiChanged(all: Record<string, RealmEmoji>): void {
	heard++;
	setCustomEmoji(all);
}

export async function loadedRealmEmoji(ctx: Context<unknown, Meta>): Promise<Record<string, RealmEmoji>> {
	const known = currentCustomEmoji();
	if (known) return known;
	const before = heard;
	const { emoji } = await call(ctx, "catalog.realmEmoji", {});
	// A broadcast heard meanwhile is newer than this answer.
	if (heard === before) setCustomEmoji(emoji);
	return currentCustomEmoji() ?? {};
}
