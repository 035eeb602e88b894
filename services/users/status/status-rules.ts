// User status, as Zulip's zerver/lib/user_status.py: what a POST /users/me/status asks for
// (check_update_user_status), how a status reads (format_user_status: `away` is the deprecated
// mirror of presence_enabled), the organization's statuses for POST /register, and the write.
//
// Emoji are checked as Zulip's check_emoji_request checks them (the checks of reactions, with
// Zulip's own words): Unicode emoji by Zulip's names (shared/emoji.ts), the one extra emoji
// "zulip", and the organization's custom emoji by ID (the catalog service's; by name, an active
// one before a Unicode emoji of the same name, as Zulip's get_emoji_data). The extra emoji's
// type is Zulip's `zulip_extra_emoji`; `service_extra_emoji` (the spec's neutral name, which
// reactions answer) is taken as another name for it.
import { upsertRetrying } from "../../../shared/db";
import { emojiCode, emojiNames, normalizeEmojiCode } from "../../../shared/emoji";
import { badRequest } from "../../../shared/errors";
import type { UsersDb } from "../db";
import type { RealmEmoji } from "../../../shared/org-events";
import type { StatusReactionType, UserStatusDoc } from "./user-status-model";
import type { UserDoc } from "../models/user";
import { userSettings } from "../settings/user-settings";

export const STATUS_TEXT_MAX = 60;
const EXTRA_EMOJI = "zulip";

/** The parameters of POST /users/me/status. */
export interface StatusRequest {
	away?: boolean;
	status_text?: string;
	emoji_name?: string;
	emoji_code?: string;
	reaction_type?: string;
}

export interface StatusEmoji {
	emoji_name: string;
	emoji_code: string;
	reaction_type: StatusReactionType;
}

/** What changes: only what the request named (Zulip's NewUserStatus, with `away`). */
export interface NewStatus {
	away?: boolean;
	status_text?: string;
	emoji?: StatusEmoji;
}

/** A status as the API shows it: only what is set. */
export interface StatusView {
	away?: true;
	status_text?: string;
	emoji_name?: string;
	emoji_code?: string;
	reaction_type?: string;
}

// The parameter is declared Annotated[str, StringConstraints(strip_whitespace=True, max_length=60)]:
// pydantic trims Unicode White_Space (Rust's trim) before it counts characters, then the view's
// str.strip() also takes the separators \x1c-\x1f that Python counts as whitespace.
const WHITE_SPACE = "\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const UNICODE_TRIM = new RegExp(`^[${WHITE_SPACE}]+|[${WHITE_SPACE}]+$`, "g");
const PYTHON_STRIP = new RegExp(`^[${WHITE_SPACE}\\x1c-\\x1f]+|[${WHITE_SPACE}\\x1c-\\x1f]+$`, "g");

/** The status text as stored, or Zulip's error for one too long. */
export function checkStatusText(raw: string): string {
	const trimmed = raw.replace(UNICODE_TRIM, "");
	if ([...trimmed].length > STATUS_TEXT_MAX) throw badRequest(`status_text is too long (limit: ${STATUS_TEXT_MAX} characters)`);
	return trimmed.replace(PYTHON_STRIP, "");
}

/** The emoji a name stands for (Zulip's get_emoji_data): the extra emoji, else a Unicode one. */
function emojiByName(name: string, custom: Record<string, RealmEmoji>): { emoji_code: string; reaction_type: StatusReactionType } {
	const own = Object.values(custom).find((e) => e.name === name && !e.deactivated);
	if (own) return { emoji_code: own.id, reaction_type: "realm_emoji" };
	if (name === EXTRA_EMOJI) return { emoji_code: EXTRA_EMOJI, reaction_type: "zulip_extra_emoji" };
	const code = emojiCode(name);
	if (code === undefined) throw badRequest(`Emoji '${name}' does not exist`);
	return { emoji_code: code, reaction_type: "unicode_emoji" };
}

/** Zulip's check_emoji_request: the code names an emoji of its type, and the name is that emoji's. */
function checkEmoji(name: string, code: string, type: string, custom: Record<string, RealmEmoji>): StatusEmoji {
	const reactionType = type === "service_extra_emoji" ? "zulip_extra_emoji" : type;
	if (reactionType === "realm_emoji") {
		const own = Object.hasOwn(custom, code) ? custom[code] : undefined;
		if (!own) throw badRequest("Invalid custom emoji.");
		if (own.name !== name) throw badRequest("Invalid custom emoji name.");
		if (own.deactivated) throw badRequest("This custom emoji has been deactivated.");
	} else if (reactionType === "zulip_extra_emoji") {
		if (code !== EXTRA_EMOJI) throw badRequest("Invalid emoji code.");
		if (name !== code) throw badRequest("Invalid emoji name.");
	} else if (reactionType === "unicode_emoji") {
		// Codes as Zulip's table writes them, exactly (lowercase, no FE0F).
		if (normalizeEmojiCode(code) !== code || emojiNames(code) === undefined) throw badRequest("Invalid emoji code.");
		if (emojiCode(name) !== code) throw badRequest("Invalid emoji name.");
	} else throw badRequest("Invalid emoji type.");
	return { emoji_name: name, emoji_code: code, reaction_type: reactionType };
}

/** Zulip's check_update_user_status: what a request changes, every check before any write. */
export function checkStatusUpdate(q: StatusRequest, custom: Record<string, RealmEmoji> = {}): NewStatus {
	const statusText = q.status_text === undefined ? undefined : checkStatusText(q.status_text);
	if (q.away === undefined && statusText === undefined && q.emoji_name === undefined) throw badRequest("Client did not pass any new values.");
	const out: NewStatus = {};
	if (q.away !== undefined) out.away = q.away;
	if (statusText !== undefined) out.status_text = statusText;
	if (q.emoji_name === "") {
		// An empty name clears the emoji, whatever code and type came with it.
		out.emoji = { emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" };
	} else if (q.emoji_name !== undefined) {
		let { emoji_code: code, reaction_type: type } = q;
		if (code === undefined || type === undefined) {
			const found = emojiByName(q.emoji_name, custom);
			code ??= found.emoji_code;
			type ??= found.reaction_type;
		}
		out.emoji = checkEmoji(q.emoji_name, code, type, custom);
	} else if (q.emoji_code || q.reaction_type) {
		throw badRequest("Client must pass emoji_name if they pass either emoji_code or reaction_type.");
	}
	return out;
}

/** Zulip's format_user_status: away (presence_enabled off), the text and the emoji, each only when set. */
export function statusView(row: Pick<UserStatusDoc, "status_text" | "emoji_name" | "emoji_code" | "reaction_type">, presenceEnabled: boolean): StatusView {
	const out: StatusView = {};
	if (!presenceEnabled) out.away = true;
	if (row.status_text) out.status_text = row.status_text;
	if (row.emoji_name) Object.assign(out, { emoji_name: row.emoji_name, emoji_code: row.emoji_code, reaction_type: row.reaction_type });
	return out;
}

const presenceEnabled = (u: UserDoc) => userSettings(u).presence_enabled === true;

/** A user's status (GET /users/{user_id}/status): `{}` for one who never set any. */
export async function statusOf(db: UsersDb, user: UserDoc): Promise<StatusView> {
	const row = await db.UserStatus.findById(user._id).lean();
	return row ? statusView(row, presenceEnabled(user)) : {};
}

/**
 * POST /register's user_status (Zulip's get_all_users_status_dict): by user ID, the active users
 * whose status is not empty, or who are away.
 */
export async function realmStatuses(db: UsersDb, users: UserDoc[]): Promise<Record<string, StatusView>> {
	const rows = await db.UserStatus.find({ realm_id: db.realm._id }).lean();
	const byId = new Map(users.map((u) => [u._id, u]));
	const out: Record<string, StatusView> = {};
	for (const row of rows.sort((a, b) => a._id - b._id)) {
		const user = byId.get(row._id);
		if (!user?.is_active) continue;
		const view = statusView(row, presenceEnabled(user));
		if (Object.keys(view).length) out[String(row._id)] = view;
	}
	return out;
}

/** Zulip's update_user_status: sets what the request named, making the user's document if needed. */
export async function saveStatus(db: UsersDb, userId: number, change: NewStatus, now: Date): Promise<void> {
	const set: Partial<UserStatusDoc> = { timestamp: now };
	if (change.status_text !== undefined) set.status_text = change.status_text;
	if (change.emoji) Object.assign(set, change.emoji);
	const empty: Partial<UserStatusDoc> = { status_text: "", emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" };
	const onInsert = Object.fromEntries(Object.entries({ realm_id: db.realm._id, ...empty }).filter(([k]) => !(k in set)));
	await upsertRetrying(() => db.UserStatus.updateOne({ _id: userId }, { $set: set, $setOnInsert: onInsert }, { upsert: true }));
}
