// Emoji reactions: which emoji a request names, and the reactions as message objects show them.
//
// Unicode emoji go by Zulip's names (shared/emoji.ts): any name or alias of a code names it, and
// a reaction keeps the name it was made with (as Zulip does: "thumbs_up" stays "thumbs_up"); a
// later vote for the same code takes the first reaction's name. The one service emoji is Zulip's
// own, named and coded "zulip". Custom (realm) emoji go by their ID as the code; by name, an
// active custom emoji comes before a Unicode emoji of the same name (Zulip's get_emoji_data), and
// a new reaction needs the code of a custom emoji that is not deactivated, under its own name
// (Zulip's check_emoji_request). `custom` is the organization's custom emoji by ID.
import type { ApiUser } from "../../shared/actions";
import type { RealmEmoji } from "../../shared/org-events";
import { apiError, badRequest } from "../../shared/errors";
import { emojiCode, emojiNames, normalizeEmojiCode } from "../../shared/emoji";
import type { MessagesDb } from "./db";
import { rawFind } from "../../shared/db";
import { byMessage } from "./by-message";
import type { ReactionDoc, ReactionType } from "./models/reaction";

export const REACTION_TYPES = ["unicode_emoji", "realm_emoji", "service_extra_emoji", "zulip_extra_emoji"] as const;
const SERVICE_EMOJI = "zulip";

export interface EmojiRequest {
	emoji_name?: string;
	emoji_code?: string;
	/** zulip_extra_emoji is the older name of service_extra_emoji. */
	reaction_type?: ReactionType | "zulip_extra_emoji";
}

export interface Emoji {
	emoji_name: string;
	emoji_code: string;
	reaction_type: ReactionType;
}

export type CustomEmoji = Record<string, RealmEmoji>;

/** The emoji a name stands for, when no code is given. */
function byName(name: string, custom: CustomEmoji): Emoji {
	const own = Object.values(custom).find((e) => e.name === name && !e.deactivated);
	if (own) return { emoji_name: name, emoji_code: own.id, reaction_type: "realm_emoji" };
	if (name === SERVICE_EMOJI) return { emoji_name: name, emoji_code: SERVICE_EMOJI, reaction_type: "service_extra_emoji" };
	const code = emojiCode(name);
	if (!code) throw badRequest(`Emoji '${name}' does not exist`);
	return { emoji_name: name, emoji_code: code, reaction_type: "unicode_emoji" };
}

/** The emoji a request names: by code where one is given, else by name. */
export function requestedEmoji(q: EmojiRequest, custom: CustomEmoji): Emoji {
	if (q.emoji_code === undefined) {
		if (q.emoji_name === undefined) throw badRequest("At least one of the following arguments must be present: emoji_name, emoji_code");
		return byName(q.emoji_name, custom);
	}
	const type = q.reaction_type === "zulip_extra_emoji" ? "service_extra_emoji" : (q.reaction_type ?? "unicode_emoji");
	return { emoji_name: q.emoji_name ?? "", emoji_code: type === "realm_emoji" ? q.emoji_code : normalizeEmojiCode(q.emoji_code), reaction_type: type };
}

/** Refuses a code that names no emoji of its type, or a name that does not belong to the code. */
export function checkEmoji(e: Emoji, custom: CustomEmoji): void {
	if (e.reaction_type === "realm_emoji") {
		const own = Object.hasOwn(custom, e.emoji_code) ? custom[e.emoji_code] : undefined;
		if (!own) throw badRequest("Invalid custom emoji.");
		if (own.name !== e.emoji_name) throw badRequest("Invalid custom emoji name.");
		if (own.deactivated) throw badRequest("This custom emoji has been deactivated.");
		return;
	}
	if (e.reaction_type === "service_extra_emoji") {
		if (e.emoji_code !== SERVICE_EMOJI) throw invalidEmojiCode();
		if (e.emoji_name !== SERVICE_EMOJI) throw badRequest("Invalid emoji name.");
		return;
	}
	const names = emojiNames(e.emoji_code);
	if (!names) throw invalidEmojiCode();
	if (!names.includes(e.emoji_name)) throw badRequest("Invalid emoji name.");
}

/** Whether a code names an emoji of its type (removing a reaction checks only the code). */
export function isKnownCode(e: Emoji, custom: CustomEmoji): boolean {
	if (e.reaction_type === "realm_emoji") return Object.hasOwn(custom, e.emoji_code);
	if (e.reaction_type === "service_extra_emoji") return e.emoji_code === SERVICE_EMOJI;
	return e.reaction_type === "unicode_emoji" && emojiNames(e.emoji_code) !== undefined;
}

export const invalidEmojiCode = () => badRequest("Invalid emoji code");
export const reactionExists = () => apiError(400, "REACTION_ALREADY_EXISTS", "Reaction already exists.");
export const reactionMissing = () => apiError(400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");

/** The reactions on some messages, oldest first, grouped by message. */
export async function reactionsOf(db: MessagesDb, messageIds: number[]): Promise<Map<number, ReactionDoc[]>> {
	if (!messageIds.length) return new Map();
	return byMessage(await rawFind<ReactionDoc>(db.Reaction, { message_id: { $in: messageIds } }, { sort: { message_id: 1, _id: 1 } }));
}

/** A reaction as message objects show it, with the deprecated `user` object beside `user_id`. */
export function reactionView(r: ReactionDoc, user: ApiUser | undefined): Record<string, unknown> {
	return {
		emoji_name: r.emoji_name,
		emoji_code: r.emoji_code,
		reaction_type: r.reaction_type,
		user_id: r.user_id,
		user: { id: r.user_id, email: user?.email ?? "", full_name: user?.full_name ?? "", is_mirror_dummy: false },
	};
}
