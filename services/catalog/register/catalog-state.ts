// The catalog's part of POST /register: realm_playgrounds, realm_linkifiers and realm_emoji, for
// the event types the client wants.
import type { CatalogDb } from "../db";
import { customEmoji } from "../emoji/custom-emoji";
import { listLinkifiers } from "../linkifiers/linkifier-rules";
import { listPlaygrounds } from "../playgrounds/playground-rules";

export async function catalogState(db: CatalogDb, wants: (type: string) => boolean) {
	const out: Record<string, unknown> = {};
	const [playgrounds, linkifiers, emoji] = await Promise.all([
		wants("realm_playgrounds") ? listPlaygrounds(db) : undefined,
		wants("realm_linkifiers") ? listLinkifiers(db) : undefined,
		wants("realm_emoji") ? customEmoji(db) : undefined,
	]);
	if (playgrounds) out.realm_playgrounds = playgrounds;
	if (linkifiers) out.realm_linkifiers = linkifiers;
	if (emoji) out.realm_emoji = emoji;
	return out;
}
