// The catalog's part of POST /register: realm_playgrounds, realm_linkifiers and realm_emoji, for
// the event types the client wants.
import type { UsersDb } from "../db";
import { customEmoji } from "./custom-emoji";
import { listLinkifiers } from "./linkifier-rules";
import { listPlaygrounds } from "./playground-rules";

export async function catalogState(db: UsersDb, wants: (type: string) => boolean) {
	const out: Record<string, unknown> = {};
	if (wants("realm_playgrounds")) out.realm_playgrounds = await listPlaygrounds(db);
	if (wants("realm_linkifiers")) out.realm_linkifiers = await listLinkifiers(db);
	if (wants("realm_emoji")) out.realm_emoji = await customEmoji(db);
	return out;
}
