// GET, PUT and DELETE /bot_storage: a bot's own key-value storage (Zulip's zerver/views/storage.py).
// Only bots may call them; the gateway refuses anyone else before reading the parameters.
import { requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import type { ServiceDeps } from "../deps";
import { getStorage, removeStorage, setStorage, storageEntries } from "./bot-storage-rules";

/** The calling bot's ID; anyone else is refused as Zulip refuses them. */
function botOf(ctx: Ctx<unknown>): number {
	const me = requireUser(ctx);
	if (!me.is_bot) throw badRequest("Must be a bot user");
	return me.user_id;
}

export function botStorageActions({ db }: ServiceDeps) {
	return {
		getBotStorage: {
			params: params({ keys: p.stringList({ optional: true }) }),
			async handler(ctx: Ctx<{ keys?: string[] }>) {
				return { storage: await getStorage(db, botOf(ctx), ctx.params.keys) };
			},
		},

		updateBotStorage: {
			// Nullable: JSON null is a value here, refused as Zulip refuses it ("storage is not a dict").
			params: params({ storage: { ...p.json(), nullable: true } }),
			async handler(ctx: Ctx<{ storage: unknown }>) {
				const botId = botOf(ctx);
				await setStorage(db, botId, storageEntries(ctx.params.storage), db.config.botStorageLimit);
				return {};
			},
		},

		removeBotStorage: {
			params: params({ keys: p.stringList({ optional: true }) }),
			async handler(ctx: Ctx<{ keys?: string[] }>) {
				await removeStorage(db, botOf(ctx), ctx.params.keys);
				return {};
			},
		},
	};
}
