// The organization's custom emoji: their names (Zulip's check_valid_emoji_name), who may add one
// (can_add_custom_emoji_group; a built-in emoji's name only administrators) and remove one (its
// author or an administrator, Zulip's check_remove_custom_emoji), and how GET /realm/emoji,
// POST /register's realm_emoji and realm_emoji events show them (by ID, deactivated ones too).
import type { Identity } from "../../../shared/actions";
import type { RealmEmoji } from "../../../shared/org-events";
import { apiError, badRequest, insufficientPermission } from "../../../shared/errors";
import { emojiCode } from "../../../shared/emoji";
import type { GroupGraph } from "../../../shared/group-settings";
import { emojiPath, emojiStillPath, publicImageUrl } from "../../../shared/public-images";
import { isAdmin } from "../../../shared/roles";
import type { CatalogDb } from "../db";
import type { RealmEmojiDoc } from "./realm-emoji-model";

/**
 * The name a request gives, as Zulip stores it (stripped, spaces made underscores), or Zulip's
 * error. Zulip sets no length limit; the route takes at most 1,000 characters.
 */
export function emojiName(raw: string): string {
	const name = raw.replace(/^[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g, "").replace(/ /g, "_");
	if (!name) throw badRequest("Emoji name is missing");
	if (/^[0-9a-z_-]+$/.test(name)) {
		if (/[-_]$/.test(name)) throw badRequest("Emoji names must end with either a letter or digit.");
		return name;
	}
	throw badRequest("Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
}

/** The active emoji named `name`, if any. */
export const activeEmoji = (db: CatalogDb, name: string) => db.RealmEmoji.findOne({ realm_id: db.realmId, name, deactivated: false }).lean();

/** Zulip's upload_emoji checks, in its order, before any byte is read: answers the name to store. */
export async function checkEmojiUpload(db: CatalogDb, graph: GroupGraph, actor: Identity, raw: string): Promise<string> {
	const name = emojiName(raw);
	if (!graph.realmAllows("can_add_custom_emoji_group", actor.user_id)) throw insufficientPermission();
	if (await activeEmoji(db, name)) throw badRequest("A custom emoji with this name already exists.");
	if (emojiCode(name) !== undefined && !isAdmin(actor.role)) throw badRequest("Only administrators can override default emoji.");
	return name;
}

/** Zulip's delete_emoji checks: the active emoji of that name, which the caller may remove. */
export async function removableEmoji(db: CatalogDb, actor: Identity, name: string): Promise<RealmEmojiDoc> {
	const emoji = await activeEmoji(db, name);
	// Zulip's ResourceNotFoundError: 404 with the BAD_REQUEST code.
	if (!emoji) throw apiError(404, "BAD_REQUEST", `Emoji '${name}' does not exist`);
	if (!isAdmin(actor.role) && emoji.author_id !== actor.user_id) throw badRequest("Must be an organization administrator or emoji author");
	return emoji;
}

export function emojiView(e: RealmEmojiDoc): RealmEmoji {
	return {
		id: String(e._id),
		name: e.name,
		source_url: publicImageUrl(emojiPath(e.realm_id, e.file_name)),
		still_url: e.is_animated ? publicImageUrl(emojiStillPath(e.realm_id, e.file_name)) : null,
		deactivated: e.deactivated,
		author_id: e.author_id,
	};
}

/** Every custom emoji of the organization by ID, deactivated ones too (Zulip's get_all_custom_emoji_for_realm). */
export async function customEmoji(db: CatalogDb): Promise<Record<string, RealmEmoji>> {
	const all = await db.RealmEmoji.find({ realm_id: db.realmId }).sort({ _id: 1 }).lean();
	return Object.fromEntries(all.map((e) => [String(e._id), emojiView(e)]));
}
