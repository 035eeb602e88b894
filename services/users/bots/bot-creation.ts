// POST /bots, as Zulip's add_bot_backend: every check of a new bot, in Zulip's order, before
// anything is written (checkNewBot, answering the account to create), and the answer
// (newBotAnswer). The handler makes the account with its avatar between the two.
import type { Ctx, Identity } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import type { GroupGraphCache } from "../../../shared/group-settings";
import { randomToken } from "../../../shared/passwords";
import { checkFullName, checkUniqueName, type NewUser } from "../accounts/accounts";
import type { UsersDb } from "../db";
import type { BotService, UserDoc } from "../models/user";
import { botDomain, realmSetting } from "../realm/realm-settings";
import {
	botEmail,
	BotType,
	checkBotCreation,
	checkBotNameAvailable,
	checkConfigData,
	checkInterfaceType,
	checkUrl,
	defaultChannelParam,
	realmBotView,
	type ChannelNames,
} from "./bot-rules";

/** POST /bots' parameters. */
export interface NewBot {
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

/** Every check of a new bot; answers the account to create (its avatar aside). */
export async function checkNewBot(db: UsersDb, graphs: GroupGraphCache, ctx: Ctx<any>, actor: Identity, q: NewBot): Promise<NewUser> {
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
	const sending = await defaultChannelParam(ctx, q.default_sending_stream);
	const register = await defaultChannelParam(ctx, q.default_events_register_stream);

	const service: BotService | null = botType === BotType.OUTGOING_WEBHOOK ? { name: serviceName!, base_url: payloadUrl, interface: interfaceType, token: randomToken(32) } : null;
	const botConfig = botType === BotType.INCOMING_WEBHOOK ? { ...(serviceName ? { integration_id: serviceName } : {}), ...config } : {};
	return {
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
		},
	};
}

/** The account with its avatar: as Zulip's add_bot_backend, avatar_source "U" with an uploaded file, else the gravatar. */
export function withAvatar(input: NewUser, avatarPath: string | null): NewUser {
	if (!avatarPath || !input.bot_fields) return input;
	return { ...input, bot_fields: { ...input.bot_fields, avatar_source: "U", avatar_path: avatarPath } };
}

/** POST /bots' answer, as Zulip's. */
export function newBotAnswer(bot: UserDoc, names: ChannelNames) {
	const view = realmBotView(bot, names);
	return {
		user_id: bot._id,
		api_key: bot.api_key,
		avatar_url: view.avatar_url,
		default_sending_stream: view.default_sending_stream,
		default_events_register_stream: view.default_events_register_stream,
		default_all_public_streams: view.default_all_public_streams,
	};
}
