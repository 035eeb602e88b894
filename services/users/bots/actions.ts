// Bots over the API, as Zulip's add_bot_backend, get_bots_backend, patch_bot_backend,
// regenerate_bot_api_key and regenerate_api_key: POST /bots, GET /bots, PATCH /bots/{bot_id},
// POST /bots/{bot_id}/api_key/regenerate and POST /users/me/api_key/regenerate. DELETE
// /bots/{bot_id} is in ../accounts/actions.ts, with the other deactivations. The rules live in bot-rules.ts.
// POST /bots and PATCH /bots/{bot_id} take an optional avatar file (multipart, the gateway's
// `file: "optional"`): its images are made by the uploads service (uploads.botAvatarImages) after
// every check, so a refused request stores nothing, and removed if the change then fails.
import { Errors } from "moleculer";
import { call, requireUser, type Identity } from "../../../shared/actions";
import { adminRequired, badRequest, ownerRequired } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { isAdmin, isOwner, ROLES } from "../../../shared/roles";
import { randomToken } from "../../../shared/passwords";
import { checkFullName, checkUniqueName, createUser } from "../accounts/accounts";
import { botDomain, realmSetting } from "../realm/realm-settings";
import type { BotService, UserDoc } from "../models/user";
import { apiEmail } from "../user-view";
import { avatarEventFields, changeAvatar } from "../avatars/avatar-rules";
import {
	accessBot,
	accessChannelByName,
	botDefaults,
	botEmail,
	botInfo,
	BotType,
	channelNames,
	checkBotCreation,
	checkBotNameAvailable,
	checkConfigData,
	checkInterfaceType,
	checkNewOwner,
	checkUrl,
	defaultChannelIds,
	realmBotView,
	serviceDicts,
} from "./bot-rules";
import type { Ctx, ServiceDeps } from "../deps";

interface NewBot {
	full_name: string;
	short_name: string;
	bot_type?: number;
	payload_url?: unknown;
	service_name?: string;
	config_data?: unknown;
	interface_type?: number;
	default_sending_stream?: string;
	default_events_register_stream?: string;
	default_all_public_streams?: boolean;
}

interface BotPatch {
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

const serviceMissing = (err: unknown) => err instanceof Errors.ServiceNotFoundError || err instanceof Errors.ServiceNotAvailableError;

export function botActions({ db, graphs, host, changed, systemGroupsChanged }: ServiceDeps) {
	/** "" is no channel; a name, a channel the caller may read (Zulip's access_stream_by_name). */
	const channelParam = async (ctx: Ctx<any>, name: string | undefined): Promise<number | null | undefined> => {
		if (name === undefined) return undefined;
		return name === "" ? null : accessChannelByName(ctx, name);
	};

	/**
	 * The avatar images of the request's file, if it has one (ctx.meta.upload); `then` runs with
	 * their path, which goes again if it fails.
	 * Decision: Zulip counts the files after its other checks of POST /bots; here a second file is
	 * refused as the body is read, before them ("You may only upload one file at a time" alike).
	 */
	async function withBotAvatar<T>(ctx: Ctx<any>, then: (avatarPath: string | null) => Promise<T>): Promise<T> {
		if (!ctx.meta.upload) return then(null);
		const { avatar_path } = await call(ctx, "uploads.botAvatarImages", {});
		try {
			return await then(avatar_path);
		} catch (err) {
			await call(ctx, "uploads.removeAvatarImages", { avatar_path }).catch((e: unknown) => ctx.service?.logger.warn({ err: e, avatar_path }, "removing a refused bot avatar failed"));
			throw err;
		}
	}

	/** After a role change, the channels service's stream and peer events (the change stands if that fails). */
	async function roleChanged(ctx: Ctx<any>, bot: UserDoc, role: number, seen: number[] | undefined) {
		await systemGroupsChanged(ctx, bot._id, bot.role);
		if (!seen) return;
		try {
			await call(ctx, "channels.userRoleChanged", { user_id: bot._id, role, channel_ids: seen });
		} catch (err) {
			if (!serviceMissing(err)) ctx.service?.logger.error({ err }, "the channels service could not announce a bot's role change");
		}
	}

	async function visibleChannels(ctx: Ctx<any>, bot: UserDoc): Promise<number[] | undefined> {
		try {
			return (await call(ctx, "channels.visibleChannels", { user_id: bot._id, role: bot.role })).channel_ids;
		} catch (err) {
			if (serviceMissing(err)) return undefined;
			throw err;
		}
	}

	/** A new API key; the old one stops working at once (every gateway forgets it on users.changed). */
	async function regenerate(ctx: Ctx<any>, user: UserDoc): Promise<{ api_key: string }> {
		const api_key = randomToken(32);
		await db.User.updateOne({ _id: user._id }, { $set: { api_key } });
		if (user.is_bot) await changed(ctx, [user._id], {}, false, { bot_updates: [{ api_key }] });
		else await changed(ctx, [user._id]);
		return { api_key };
	}

	return {
		createBot: {
			params: params({
				full_name: p.string(),
				short_name: p.string(),
				bot_type: p.int({ optional: true }),
				payload_url: p.json({ optional: true }),
				service_name: p.string({ optional: true }),
				config_data: p.json({ optional: true }),
				interface_type: p.int({ optional: true }),
				default_sending_stream: p.string({ optional: true }),
				default_events_register_stream: p.string({ optional: true }),
				default_all_public_streams: p.bool({ optional: true }),
			}),
			async handler(ctx: Ctx<NewBot>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				const botType = q.bot_type ?? BotType.GENERIC;
				const payloadUrl = q.payload_url === undefined ? "" : checkUrl("payload_url", q.payload_url);
				const config = q.config_data === undefined ? {} : checkConfigData(q.config_data);
				const interfaceType = q.interface_type ?? 1;
				// In Zulip's order: the names, the type, the address, who may, then the channels.
				const { short_name, email } = botEmail(q.short_name, botDomain(db.realm));
				const serviceName = botType !== BotType.INCOMING_WEBHOOK ? q.service_name || short_name : q.service_name;
				const full_name = checkFullName(q.full_name);
				if (realmSetting(db.realm, "realm_require_unique_names")) await checkUniqueName(db.User, db.realm._id, full_name, null);
				if (botType === BotType.EMBEDDED) throw badRequest("Embedded bots are not enabled.");
				if (await db.User.exists({ realm_id: db.realm._id, email_key: email.toLowerCase() })) throw badRequest("Username already in use");
				await checkBotNameAvailable(db, full_name);
				checkBotCreation(await graphs.get(), actor, botType);
				checkInterfaceType(interfaceType);
				const sending = await channelParam(ctx, q.default_sending_stream);
				const register = await channelParam(ctx, q.default_events_register_stream);

				const service: BotService | null = botType === BotType.OUTGOING_WEBHOOK ? { name: serviceName!, base_url: payloadUrl, interface: interfaceType, token: randomToken(32) } : null;
				const botConfig = botType === BotType.INCOMING_WEBHOOK ? { ...(serviceName ? { integration_id: serviceName } : {}), ...config } : {};
				const bot = await withBotAvatar(ctx, (avatarPath) => createUser(db.User, db.nextId, {
					realm_id: db.realm._id,
					email,
					full_name,
					password: null,
					is_bot: true,
					bot_type: botType,
					bot_owner_id: actor.user_id,
					require_unique_names: false,
					bot_fields: {
						default_sending_stream_id: sending ?? null,
						default_events_register_stream_id: register ?? null,
						default_all_public_streams: q.default_all_public_streams ?? false,
						bot_service: service,
						bot_config: botConfig,
						// As Zulip's add_bot_backend: avatar_source "U" with an uploaded file, else the gravatar.
						...(avatarPath ? { avatar_source: "U", avatar_path: avatarPath } : {}),
					},
				}));
				await changed(ctx, [bot._id], undefined, true);
				const view = realmBotView(bot, await channelNames(ctx, defaultChannelIds([bot])));
				return {
					user_id: bot._id,
					api_key: bot.api_key,
					avatar_url: view.avatar_url,
					default_sending_stream: view.default_sending_stream,
					default_events_register_stream: view.default_events_register_stream,
					default_all_public_streams: view.default_all_public_streams,
				};
			},
		},

		listBots: {
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = requireUser(ctx);
				const bots = (await db.User.find({ realm_id: db.realm._id, bot_owner_id: actor.user_id }).lean()).filter((b) => b.is_bot && b.is_active);
				bots.sort((a, b) => a.date_joined.getTime() - b.date_joined.getTime() || a._id - b._id);
				const names = await channelNames(ctx, defaultChannelIds(bots));
				return { bots: bots.map((b) => botInfo(b, names)) };
			},
		},

		updateBot: {
			params: params({
				bot_id: p.int(),
				full_name: p.string({ optional: true }),
				role: p.oneOf(ROLES, { optional: true }),
				bot_owner_id: p.int({ optional: true }),
				config_data: p.json({ optional: true }),
				service_payload_url: p.json({ optional: true }),
				service_interface: p.int({ optional: true, default: 1 }),
				default_sending_stream: p.string({ optional: true }),
				default_events_register_stream: p.string({ optional: true }),
				default_all_public_streams: p.bool({ optional: true }),
			}),
			async handler(ctx: Ctx<BotPatch>) {
				const actor: Identity = requireUser(ctx);
				const q = ctx.params;
				const payloadUrl = q.service_payload_url === undefined ? undefined : checkUrl("service_payload_url", q.service_payload_url);
				const config = q.config_data === undefined ? undefined : checkConfigData(q.config_data);
				const bot = await accessBot(db, actor, q.bot_id);
				const set: Record<string, unknown> = {};
				const changes: Record<string, unknown> = {};
				const botUpdates: Array<Record<string, unknown>> = [];

				// Every check first, in Zulip's order; then one write.
				if (q.full_name !== undefined) {
					const name = checkFullName(q.full_name);
					// Zulip's web app sends the name unchanged: silently nothing to do.
					if (name !== bot.full_name) {
						if (realmSetting(db.realm, "realm_require_unique_names")) await checkUniqueName(db.User, db.realm._id, name, bot._id);
						await checkBotNameAvailable(db, name);
						set.full_name = changes.full_name = name;
					}
				}
				if (q.role !== undefined && q.role !== bot.role) {
					if ((isOwner(q.role) || isOwner(bot.role)) && !isOwner(actor.role)) throw ownerRequired();
					if (!isAdmin(actor.role)) throw adminRequired();
					set.role = changes.role = q.role;
				}
				let owner: UserDoc | undefined;
				if (q.bot_owner_id !== undefined) {
					owner = await checkNewOwner(db, q.bot_owner_id);
					if (owner._id !== bot.bot_owner_id) set.bot_owner_id = owner._id;
					else owner = undefined;
				}
				const sending = await channelParam(ctx, q.default_sending_stream);
				if (sending !== undefined) set.default_sending_stream_id = sending;
				const register = await channelParam(ctx, q.default_events_register_stream);
				if (register !== undefined) set.default_events_register_stream_id = register;
				if (q.default_all_public_streams !== undefined) set.default_all_public_streams = q.default_all_public_streams;
				if (payloadUrl !== undefined) {
					checkInterfaceType(q.service_interface);
					// Zulip keeps one service per bot; a bot without one has nothing to update.
					if (bot.bot_service) set.bot_service = { ...bot.bot_service, base_url: payloadUrl, interface: q.service_interface };
				}
				if (config !== undefined) set.bot_config = { ...(bot.bot_config ?? {}), ...config };

				const oldRole = bot.role;
				const seen = set.role !== undefined ? await visibleChannels(ctx, bot) : undefined;
				// The avatar last, as Zulip's patch_bot_backend (do_change_avatar_fields: a new version).
				let avatar: { previous: string | null } | undefined;
				const now = await withBotAvatar(ctx, async (avatarPath) => {
					const written = Object.keys(set).length ? await db.User.findOneAndUpdate({ _id: bot._id }, { $set: set }, { returnDocument: "after" }).lean() : bot;
					if (!written) throw badRequest("No such bot");
					if (!avatarPath) return written;
					const { user, previous } = await changeAvatar(db, bot._id, avatarPath);
					avatar = { previous };
					return user;
				});

				const names = await channelNames(ctx, defaultChannelIds([now]));
				const defaults = botDefaults(now, names);
				if (sending !== undefined) botUpdates.push({ default_sending_stream: defaults.default_sending_stream });
				if (register !== undefined) botUpdates.push({ default_events_register_stream: defaults.default_events_register_stream });
				if (q.default_all_public_streams !== undefined) botUpdates.push({ default_all_public_streams: defaults.default_all_public_streams });
				if (set.bot_service) botUpdates.push({ services: serviceDicts(now) });
				if (set.bot_config && now.bot_service) botUpdates.push({ services: [{ service_name: now.bot_service.name, config_data: now.bot_config ?? {} }] });
				if (Object.keys(set).length) {
					const extra: Record<string, unknown> = { bot_updates: botUpdates };
					if (owner) {
						const previous = bot.bot_owner_id === null ? null : await db.User.findOne({ _id: bot.bot_owner_id, realm_id: db.realm._id }, { role: 1 }).lean();
						extra.bot_owner_change = {
							previous_owner_id: bot.bot_owner_id,
							previous_owner_is_admin: !!previous && isAdmin(previous.role),
							owner_is_admin: isAdmin(owner.role),
							bot: realmBotView(now, names),
						};
					}
					await changed(ctx, [bot._id], changes, false, extra);
				}
				if (set.role !== undefined) await roleChanged(ctx, { ...now, role: oldRole }, now.role, seen);
				if (avatar) {
					await changed(ctx, [bot._id], avatarEventFields(now));
					// The previous upload's images go, as users.setAvatar's do.
					if (avatar.previous) await call(ctx, "uploads.removeAvatarImages", { avatar_path: avatar.previous });
				}

				const out: Record<string, unknown> = {
					full_name: now.full_name,
					avatar_url: realmBotView(now).avatar_url,
					service_interface: q.service_interface,
					service_payload_url: payloadUrl ?? null,
					config_data: config ?? null,
					...defaults,
				};
				if (now.bot_owner_id !== null) {
					const o = owner ?? (await db.User.findOne({ _id: now.bot_owner_id, realm_id: db.realm._id }).lean());
					if (o) out.bot_owner = apiEmail(o, host());
				}
				return out;
			},
		},

		regenerateBotKey: {
			params: params({ bot_id: p.int() }),
			async handler(ctx: Ctx<{ bot_id: number }>) {
				return regenerate(ctx, await accessBot(db, requireUser(ctx), ctx.params.bot_id));
			},
		},

		regenerateMyKey: {
			params: params({}),
			async handler(ctx: Ctx) {
				const self = await db.User.findOne({ _id: requireUser(ctx).user_id, realm_id: db.realm._id }).lean();
				if (!self) throw badRequest("No such user");
				return regenerate(ctx, self);
			},
		},
	};
}
