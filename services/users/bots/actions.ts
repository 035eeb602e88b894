// Bots over the API, as Zulip's add_bot_backend, get_bots_backend, patch_bot_backend,
// regenerate_bot_api_key and regenerate_api_key: POST /bots, GET /bots, PATCH /bots/{bot_id},
// POST /bots/{bot_id}/api_key/regenerate and POST /users/me/api_key/regenerate. DELETE
// /bots/{bot_id} is in ../accounts/actions.ts, with the other deactivations. The rules live in
// bot-rules.ts, bot-creation.ts (POST /bots) and bot-update.ts (PATCH /bots/{bot_id}).
// POST /bots and PATCH /bots/{bot_id} take an optional avatar file (multipart, the gateway's
// `file: "optional"`): its images are made by the uploads service (uploads.botAvatarImages) after
// every check, so a refused request stores nothing, and removed if the change then fails.
import { call, requireUser } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { SERVICE_NAME_MAX } from "../../../shared/param-bounds";
import { ROLES } from "../../../shared/roles";
import { randomToken } from "../../../shared/passwords";
import { createUser } from "../accounts/accounts";
import { tellChannels, visibleChannels } from "../accounts/channel-calls";
import type { UserDoc } from "../models/user";
import { avatarEventFields } from "../avatars/avatar-rules";
import type { Ctx, ServiceDeps } from "../deps";
import { accessBot, botInfo, channelNames, defaultChannelIds } from "./bot-rules";
import { checkNewBot, newBotAnswer, withAvatar, type NewBot } from "./bot-creation";
import { botUpdateAnswer, botUpdateEvent, checkBotUpdate, writeBotUpdate, type BotPatch } from "./bot-update";

export function botActions({ db, graphs, host, changed, systemGroupsChanged }: ServiceDeps) {
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

	/** After a role change, the user_group events of its system groups and the channels service's stream and peer events. */
	async function roleChanged(ctx: Ctx<any>, bot: UserDoc, role: number, seen: number[] | undefined) {
		await systemGroupsChanged(ctx, bot._id, bot.role);
		if (seen) await tellChannels(ctx, () => call(ctx, "channels.userRoleChanged", { user_id: bot._id, role, channel_ids: seen }));
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
				service_name: p.string({ optional: true, max: SERVICE_NAME_MAX }),
				config_data: p.json({ optional: true }),
				interface_type: p.int({ optional: true }),
				default_sending_stream: p.string({ optional: true }),
				default_events_register_stream: p.string({ optional: true }),
				default_all_public_streams: p.bool({ optional: true }),
			}),
			async handler(ctx: Ctx<NewBot>) {
				const input = await checkNewBot(db, graphs, ctx, requireUser(ctx), ctx.params);
				const bot = await withBotAvatar(ctx, (avatarPath) => createUser(db.User, db.nextId, withAvatar(input, avatarPath)));
				await changed(ctx, [bot._id], undefined, true);
				return newBotAnswer(bot, await channelNames(ctx, defaultChannelIds([bot])));
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
				const update = await checkBotUpdate(db, ctx, requireUser(ctx), ctx.params);
				const { bot } = update;
				const roleChange = update.set.role !== undefined;
				const seen = roleChange ? await visibleChannels(ctx, bot) : undefined;
				const { bot: now, avatar } = await withBotAvatar(ctx, (avatarPath) => writeBotUpdate(db, update, avatarPath));

				const names = await channelNames(ctx, defaultChannelIds([now]));
				if (Object.keys(update.set).length) await changed(ctx, [bot._id], update.changes, false, await botUpdateEvent(db, update, now, names));
				if (roleChange) await roleChanged(ctx, bot, now.role, seen);
				if (avatar) {
					await changed(ctx, [bot._id], avatarEventFields(now));
					// The previous upload's images go, as users.setAvatar's do.
					if (avatar.previous) await call(ctx, "uploads.removeAvatarImages", { avatar_path: avatar.previous });
				}
				return botUpdateAnswer(db, update, now, names, host());
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
