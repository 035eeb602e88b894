// Bots over the API (POST /bots, PATCH /bots/{bot_id}, GET /bots): Zulip's checks of a new bot's
// short name, type and service, who may create which bot (can_create_bots_group and
// can_create_write_only_bots_group), who may administer a bot (access_bot_by_id), and how a bot
// looks to its owner and the administrators (realm_bots, the realm_bot events).
import { call, type Ctx, type Identity } from "../../../shared/actions";
import { badRequest, insufficientPermission } from "../../../shared/errors";
import type { GroupGraph } from "../../../shared/group-settings";
import type { UsersChanged } from "../../../shared/org-events";
import { isAdmin } from "../../../shared/roles";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { avatarUrl } from "../user-view";

export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;
/** Zulip's Service.ALLOWED_INTERFACE_TYPES: generic, Slack-compatible. */
const INTERFACE_TYPES = [1, 2];
const EMAIL_LOCAL = /^[^\s@"<>()[\]\\,;:\p{Cc}]+$/u;

/** Zulip's check_short_name and the address built from it: `<short>-bot@<bot domain>`. */
export function botEmail(shortNameRaw: string, domain: string): { short_name: string; email: string } {
	const short_name = shortNameRaw.trim();
	if (!short_name) throw badRequest("Bad name or username");
	const local = `${short_name}-bot`;
	if (!EMAIL_LOCAL.test(local) || local.startsWith(".") || local.includes("..")) throw badRequest("Bad name or username");
	return { short_name, email: `${local}@${domain}` };
}

/** Zulip's check_bot_name_available: no active user of the organization has that name. */
export async function checkBotNameAvailable(db: UsersDb, fullName: string, isActivation = false): Promise<void> {
	const name = fullName.trim();
	const users = await db.User.find({ realm_id: db.realm._id }, { full_name: 1, is_active: 1 }).lean();
	if (!users.some((u) => u.is_active && u.full_name === name)) return;
	if (isActivation) throw badRequest(`There is already an active bot named "${fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`);
	throw badRequest("Name is already in use.");
}

/** Zulip's check_can_create_bot and check_valid_bot_type (embedded bots are not enabled here). */
export function checkBotCreation(graph: GroupGraph, actor: Identity, botType: number): void {
	const any = graph.realmAllows("can_create_bots_group", actor.user_id);
	const writeOnly = !any && graph.realmAllows("can_create_write_only_bots_group", actor.user_id);
	if (!any && !(writeOnly && botType === BotType.INCOMING_WEBHOOK)) throw insufficientPermission();
	const allowed: number[] = any ? [BotType.GENERIC, BotType.INCOMING_WEBHOOK, BotType.OUTGOING_WEBHOOK] : [BotType.INCOMING_WEBHOOK];
	if (!allowed.includes(botType)) throw badRequest("Invalid bot type");
}

export function checkInterfaceType(type: number): void {
	if (!INTERFACE_TYPES.includes(type)) throw badRequest("Invalid interface type");
}

/** Zulip's check_url, for a JSON-encoded URL parameter. */
export function checkUrl(name: string, value: unknown): string {
	if (typeof value !== "string") throw badRequest(`${name} is not a string`);
	let ok = false;
	try {
		const u = new URL(value);
		ok = (u.protocol === "http:" || u.protocol === "https:") && !!u.hostname;
	} catch {
		ok = false;
	}
	if (!ok) throw badRequest(`${name} is not a URL`);
	return value;
}

/** Zulip's check_dict(value_validator=check_string), for config_data. */
export function checkConfigData(value: unknown): Record<string, string> {
	if (!value || typeof value !== "object" || Array.isArray(value)) throw badRequest("config_data is not a dict");
	for (const [k, v] of Object.entries(value)) if (typeof v !== "string") throw badRequest(`config_data["${k}"] is not a string`);
	return value as Record<string, string>;
}

/** Zulip's can_admin_user: the bot's owner, or an administrator. */
export const canAdminBot = (actor: Identity, bot: UserDoc) => bot.bot_owner_id === actor.user_id || isAdmin(actor.role);

/** Zulip's access_bot_by_id: an existing bot of the organization that the caller may administer. */
export async function accessBot(db: UsersDb, actor: Identity, botId: number): Promise<UserDoc> {
	const bot = await db.User.findOne({ _id: botId, realm_id: db.realm._id }).lean();
	if (!bot || !bot.is_bot) throw badRequest("No such bot");
	if (!canAdminBot(actor, bot)) throw insufficientPermission();
	return bot;
}

/**
 * Reactivating a bot, as Zulip's: the actor may create such a bot, its name is free, and an owner
 * deactivated since hands the bot to the actor. Answers the fields to write and users.changed's
 * extra (an owner change's `bot` view is filled once the bot is written).
 */
export async function checkBotReactivation(db: UsersDb, graph: GroupGraph, actor: Identity, bot: UserDoc): Promise<{ set: Record<string, unknown>; extra: Partial<UsersChanged> }> {
	checkBotCreation(graph, actor, bot.bot_type ?? 1);
	await checkBotNameAvailable(db, bot.full_name, true);
	const owner = bot.bot_owner_id === null ? null : await db.User.findOne({ _id: bot.bot_owner_id, realm_id: db.realm._id }).lean();
	const set: Record<string, unknown> = { is_active: true };
	const extra: Partial<UsersChanged> = { bot_updates: [{ is_active: true }] };
	if (owner && !owner.is_active) {
		set.bot_owner_id = actor.user_id;
		extra.bot_owner_change = { previous_owner_id: owner._id, previous_owner_is_admin: isAdmin(owner.role), owner_is_admin: isAdmin(actor.role), bot: {} };
	}
	return { set, extra };
}

/** Zulip's PATCH /bots bot_owner_id checks: an active human of the organization. */
export async function checkNewOwner(db: UsersDb, ownerId: number): Promise<UserDoc> {
	const owner = await db.User.findOne({ _id: ownerId, realm_id: db.realm._id }).lean();
	if (!owner) throw badRequest("Failed to change owner, no such user");
	if (!owner.is_active) throw badRequest("Failed to change owner, user is deactivated");
	if (owner.is_bot) throw badRequest("Failed to change owner, bots can't own other bots");
	return owner;
}

/** Zulip's get_service_dicts_for_bot. */
export function serviceDicts(b: UserDoc): Array<Record<string, unknown>> {
	const s = b.bot_service;
	if (!s) return [];
	if (b.bot_type === BotType.OUTGOING_WEBHOOK) return [{ base_url: s.base_url, interface: s.interface, token: s.token }];
	if (b.bot_type === BotType.EMBEDDED) return [{ config_data: b.bot_config ?? {}, service_name: s.name }];
	return [];
}

/** Channel IDs to names, for a bot's default channels. */
export type ChannelNames = Record<string, string>;

/** The names of these channels (none on a node of a cluster without the channels service). */
export async function channelNames(ctx: Ctx<any>, ids: number[]): Promise<ChannelNames> {
	if (!ids.length || !ctx.broker.registry.actions.isAvailable("channels.names")) return {};
	return (await call(ctx, "channels.names", { channel_ids: ids })).names;
}

/**
 * Zulip's access_stream_by_name for a bot's default channel: a channel whose content the caller
 * may read, else "Invalid channel name". Answers its ID.
 */
export async function accessChannelByName(ctx: Ctx<any>, name: string): Promise<number> {
	const invalid = () => badRequest(`Invalid channel name '${name}'`);
	const key = name.trim().toLowerCase();
	const { ids } = await call(ctx, "channels.idsByName", { names: [name] });
	const id = ids[key];
	if (id === undefined) throw invalid();
	const { channels } = await call(ctx, "channels.readableChannels", { channel_ids: [id] });
	if (!channels.length) throw invalid();
	return id;
}

/** "" is no channel; a name, a channel the caller may read (Zulip's access_stream_by_name). */
export async function defaultChannelParam(ctx: Ctx<any>, name: string | undefined): Promise<number | null | undefined> {
	if (name === undefined) return undefined;
	return name === "" ? null : accessChannelByName(ctx, name);
}

const nameOf = (id: number | null | undefined, names: ChannelNames) => (id ? (names[id] ?? null) : null);

/** The channel IDs a list of bots names as defaults. */
export const defaultChannelIds = (bots: UserDoc[]) => [...new Set(bots.flatMap((b) => [b.default_sending_stream_id, b.default_events_register_stream_id]).filter((id): id is number => !!id))];

/** A bot's default channels and default_all_public_streams, as Zulip answers them. */
export function botDefaults(b: UserDoc, names: ChannelNames) {
	return {
		default_sending_stream: nameOf(b.default_sending_stream_id, names),
		default_events_register_stream: nameOf(b.default_events_register_stream_id, names),
		default_all_public_streams: b.default_all_public_streams ?? false,
	};
}

/** A bot as `realm_bots` (and the `realm_bot` add event, Zulip's created_bot_event) shows it to its owner and administrators. */
export function realmBotView(b: UserDoc, names: ChannelNames = {}): Record<string, unknown> {
	return {
		email: b.delivery_email,
		user_id: b._id,
		full_name: b.full_name,
		bot_type: b.bot_type,
		is_active: b.is_active,
		api_key: b.api_key,
		...botDefaults(b, names),
		avatar_url: avatarUrl(b),
		owner_id: b.bot_owner_id,
		services: serviceDicts(b),
	};
}

/** GET /bots' entry for one bot (Zulip's bot_info). */
export function botInfo(b: UserDoc, names: ChannelNames): Record<string, unknown> {
	return {
		username: b.delivery_email,
		full_name: b.full_name,
		api_key: b.api_key,
		avatar_url: avatarUrl(b),
		...botDefaults(b, names),
	};
}
