// PATCH /bots/{bot_id}, as Zulip's patch_bot_backend, in three steps the handler calls in order:
// the checks (every parameter, in Zulip's order, before anything is written: checkBotUpdate), the
// change (one write, then the avatar: writeBotUpdate), and what is announced and answered after
// it (botUpdateEvent, botUpdateAnswer).
import type { Ctx, Identity } from "../../../shared/actions";
import type { UsersChanged } from "../../../shared/org-events";
import { adminRequired, badRequest, ownerRequired } from "../../../shared/errors";
import { isAdmin, isOwner } from "../../../shared/roles";
import { checkFullName, checkUniqueName } from "../accounts/accounts";
import { changeAvatar } from "../avatars/avatar-rules";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { realmSetting } from "../realm/realm-settings";
import { apiEmail } from "../user-view";
import {
	accessBot,
	botDefaults,
	checkBotNameAvailable,
	checkConfigData,
	checkInterfaceType,
	checkNewOwner,
	checkUrl,
	defaultChannelParam,
	realmBotView,
	serviceDicts,
	type ChannelNames,
} from "./bot-rules";

/** PATCH /bots/{bot_id}'s parameters. */
export interface BotPatch {
	bot_id: number;
	full_name?: string;
	role?: number;
	bot_owner_id?: number;
	config_data?: unknown;
	service_payload_url?: unknown;
	service_interface: number;
	default_sending_stream?: string;
	default_events_register_stream?: string;
	default_all_public_streams?: boolean;
}

/** A checked PATCH /bots/{bot_id}: the bot as it was, what to write, and what the checks decided. */
export interface BotUpdate {
	patch: BotPatch;
	bot: UserDoc;
	/** The fields written (nothing to write: empty). */
	set: Record<string, unknown>;
	/** The `realm_user` update event's changed fields. */
	changes: Record<string, unknown>;
	/** The new owner, when the owner changes. */
	owner?: UserDoc;
	/** The default channels asked for (null: none; undefined: not asked). */
	sending?: number | null;
	register?: number | null;
	payloadUrl?: string;
	config?: Record<string, string>;
}

/** Every check of a PATCH /bots/{bot_id}, in Zulip's order; answers what to write. */
export async function checkBotUpdate(db: UsersDb, ctx: Ctx<any>, actor: Identity, patch: BotPatch): Promise<BotUpdate> {
	const payloadUrl = patch.service_payload_url === undefined ? undefined : checkUrl("service_payload_url", patch.service_payload_url);
	const config = patch.config_data === undefined ? undefined : checkConfigData(patch.config_data);
	const bot = await accessBot(db, actor, patch.bot_id);
	const set: Record<string, unknown> = {};
	const changes: Record<string, unknown> = {};

	const fullName = await checkNewName(db, bot, patch.full_name);
	if (fullName !== undefined) set.full_name = changes.full_name = fullName;
	if (patch.role !== undefined && patch.role !== bot.role) {
		checkRoleChange(actor, bot, patch.role);
		set.role = changes.role = patch.role;
	}
	const owner = patch.bot_owner_id === undefined ? undefined : await checkNewOwner(db, patch.bot_owner_id);
	if (owner && owner._id !== bot.bot_owner_id) set.bot_owner_id = owner._id;
	const sending = await defaultChannelParam(ctx, patch.default_sending_stream);
	if (sending !== undefined) set.default_sending_stream_id = sending;
	const register = await defaultChannelParam(ctx, patch.default_events_register_stream);
	if (register !== undefined) set.default_events_register_stream_id = register;
	if (patch.default_all_public_streams !== undefined) set.default_all_public_streams = patch.default_all_public_streams;
	if (payloadUrl !== undefined) {
		checkInterfaceType(patch.service_interface);
		// Zulip keeps one service per bot; a bot without one has nothing to update.
		if (bot.bot_service) set.bot_service = { ...bot.bot_service, base_url: payloadUrl, interface: patch.service_interface };
	}
	if (config !== undefined) set.bot_config = { ...(bot.bot_config ?? {}), ...config };
	return { patch, bot, set, changes, owner: set.bot_owner_id === undefined ? undefined : owner, sending, register, payloadUrl, config };
}

/** A new full name, checked; undefined when none is asked or it is the bot's own (Zulip's web app sends it unchanged). */
async function checkNewName(db: UsersDb, bot: UserDoc, raw: string | undefined): Promise<string | undefined> {
	if (raw === undefined) return undefined;
	const name = checkFullName(raw);
	if (name === bot.full_name) return undefined;
	if (realmSetting(db.realm, "realm_require_unique_names")) await checkUniqueName(db.User, db.realm._id, name, bot._id);
	await checkBotNameAvailable(db, name);
	return name;
}

/** Owners alone make a bot an owner or change an owner bot's role; administrators any other. */
function checkRoleChange(actor: Identity, bot: UserDoc, role: number): void {
	if ((isOwner(role) || isOwner(bot.role)) && !isOwner(actor.role)) throw ownerRequired();
	if (!isAdmin(actor.role)) throw adminRequired();
}

/**
 * The change: one write of the checked fields, then the avatar (`avatarPath`, an uploaded
 * image's; Zulip's do_change_avatar_fields, a new version), last as in patch_bot_backend.
 * Answers the bot as it is now and, after an avatar change, the previous upload's path.
 */
export async function writeBotUpdate(db: UsersDb, update: BotUpdate, avatarPath: string | null): Promise<{ bot: UserDoc; avatar?: { previous: string | null } }> {
	const { bot, set } = update;
	const written = Object.keys(set).length ? await db.User.findOneAndUpdate({ _id: bot._id }, { $set: set }, { returnDocument: "after" }).lean() : bot;
	if (!written) throw badRequest("No such bot");
	if (!avatarPath) return { bot: written };
	const { user, previous } = await changeAvatar(db, bot._id, avatarPath);
	return { bot: user, avatar: { previous } };
}

/** users.changed's extra for a written update: the `realm_bot` updates, and the owner change if any. */
export async function botUpdateEvent(db: UsersDb, update: BotUpdate, now: UserDoc, names: ChannelNames): Promise<Partial<UsersChanged>> {
	const { patch, bot, set, owner } = update;
	const defaults = botDefaults(now, names);
	const botUpdates: Array<Record<string, unknown>> = [];
	if (update.sending !== undefined) botUpdates.push({ default_sending_stream: defaults.default_sending_stream });
	if (update.register !== undefined) botUpdates.push({ default_events_register_stream: defaults.default_events_register_stream });
	if (patch.default_all_public_streams !== undefined) botUpdates.push({ default_all_public_streams: defaults.default_all_public_streams });
	if (set.bot_service) botUpdates.push({ services: serviceDicts(now) });
	if (set.bot_config && now.bot_service) botUpdates.push({ services: [{ service_name: now.bot_service.name, config_data: now.bot_config ?? {} }] });
	const extra: Partial<UsersChanged> = { bot_updates: botUpdates };
	if (owner) {
		const previous = bot.bot_owner_id === null ? null : await db.User.findOne({ _id: bot.bot_owner_id, realm_id: db.realm._id }, { role: 1 }).lean();
		extra.bot_owner_change = {
			previous_owner_id: bot.bot_owner_id,
			previous_owner_is_admin: !!previous && isAdmin(previous.role),
			owner_is_admin: isAdmin(owner.role),
			bot: realmBotView(now, names),
		};
	}
	return extra;
}

/** PATCH /bots/{bot_id}'s answer, as Zulip's. */
export async function botUpdateAnswer(db: UsersDb, update: BotUpdate, now: UserDoc, names: ChannelNames, host: string): Promise<Record<string, unknown>> {
	const out: Record<string, unknown> = {
		full_name: now.full_name,
		avatar_url: realmBotView(now).avatar_url,
		service_interface: update.patch.service_interface,
		service_payload_url: update.payloadUrl ?? null,
		config_data: update.config ?? null,
		...botDefaults(now, names),
	};
	if (now.bot_owner_id !== null) {
		const o = update.owner ?? (await db.User.findOne({ _id: now.bot_owner_id, realm_id: db.realm._id }).lean());
		if (o) out.bot_owner = apiEmail(o, host);
	}
	return out;
}
