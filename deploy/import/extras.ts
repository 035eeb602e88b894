// The small per-organization and per-user tables: linkifiers, code playgrounds, alert words, muted users, user
// statuses, bots' storage, services and configuration, custom
// profile fields and each user's values (kept on the user, keyed by field ID, as the API shows them).
import { serverReactionType } from "../../shared/zulip-format/reaction-types";
import type { ProfileFieldDoc } from "../../services/users/profile-fields/profile-field-model";
import type { UserStatusDoc, StatusReactionType } from "../../services/users/status/user-status-model";
import type { BotStorageDoc } from "../../services/users/bot-storage/bot-storage-model";
import type { PlaygroundDoc } from "../../services/catalog/playgrounds/playground-model";
import type { LinkifierDoc } from "../../services/catalog/linkifiers/linkifier-model";
import { mutedUserKey, type MutedUserDoc } from "../../services/users/muting/muted-user-model";
import type { AlertWordsDoc } from "../../services/messages/models/alert-words";
import { insertAll, seconds, table, type ImportContext } from "./context";

export async function importExtras(ctx: ImportContext): Promise<void> {
	const { ids, target } = ctx;
	const linkifiers: LinkifierDoc[] = table(ctx, "zerver_realmfilter").map((r) => ({
		_id: r.int("id"),
		realm_id: ctx.realmId,
		pattern: r.str("pattern"),
		url_template: r.str("url_template"),
		order: r.optInt("order") ?? 0,
	}));
	await insertAll(target.m.Linkifier, linkifiers);
	await target.raiseCounter("catalog", "realm_filter", Math.max(0, ...linkifiers.map((l) => l._id)));

	const playgrounds: PlaygroundDoc[] = table(ctx, "zerver_realmplayground").map((r) => ({
		_id: r.int("id"),
		realm_id: ctx.realmId,
		name: r.str("name"),
		pygments_language: r.str("pygments_language"),
		// Zulip before feature level 196 kept a URL prefix, to which the code was appended.
		url_template: r.optStr("url_template") ?? `${r.str("url_prefix")}{code}`,
	}));
	await insertAll(target.m.Playground, playgrounds);
	await target.raiseCounter("catalog", "realm_playground", Math.max(0, ...playgrounds.map((p) => p._id)));

	const words = new Map<number, string[]>();
	for (const r of table(ctx, "zerver_alertword")) {
		const user = ids.users.get(r.int("user_profile"), r, "user_profile");
		(words.get(user) ?? words.set(user, []).get(user)!).push(r.str("word"));
	}
	const alertWords: AlertWordsDoc[] = [...words].map(([user, list]) => ({ _id: user, words: [...new Set(list)] }));
	await insertAll(target.m.AlertWords, alertWords);

	const muted = new Map<string, MutedUserDoc>();
	for (const r of table(ctx, "zerver_muteduser")) {
		const user = ids.users.get(r.int("user_profile"), r, "user_profile");
		const mutedUser = ids.users.get(r.int("muted_user"), r, "muted_user");
		muted.set(mutedUserKey(user, mutedUser), { _id: mutedUserKey(user, mutedUser), user_id: user, muted_user_id: mutedUser, date_muted: seconds(r.num("date_muted")) });
	}
	await insertAll(target.m.MutedUser, [...muted.values()]);

	const statuses: UserStatusDoc[] = table(ctx, "zerver_userstatus").map((r) => ({
		_id: ids.users.get(r.int("user_profile"), r, "user_profile"),
		realm_id: ctx.realmId,
		status_text: r.optStr("status_text") ?? "",
		emoji_name: r.optStr("emoji_name") ?? "",
		emoji_code: r.optStr("emoji_code") ?? "",
		reaction_type: (serverReactionType(r.optStr("reaction_type") ?? "unicode_emoji") ?? "unicode_emoji") as StatusReactionType,
		timestamp: new Date(r.num("timestamp") * 1000),
	}));
	await insertAll(target.m.UserStatus, statuses);

	// A stored entry's size counts code points, as Zulip's len() (bot-storage-rules.ts).
	const codePoints = (s: string) => [...s].length;
	const storage: BotStorageDoc[] = table(ctx, "zerver_botstoragedata").map((r) => {
		const key = r.str("key");
		const value = r.str("value");
		return { bot_id: ids.users.get(r.int("bot_profile"), r, "bot_profile"), key, value, size: codePoints(key) + codePoints(value) };
	});
	await insertAll(target.m.BotStorage, storage);

	// Bots' service (outgoing webhook and embedded bots, one each) and configuration, kept on the bot.
	const botUpdates = [];
	for (const r of table(ctx, "zerver_service")) {
		const bot = ids.users.get(r.int("user_profile"), r, "user_profile");
		const service = { name: r.str("name"), base_url: r.str("base_url"), interface: r.int("interface"), token: r.str("token") };
		botUpdates.push({ updateOne: { filter: { _id: bot }, update: { $set: { bot_service: service } } } });
	}
	// Whole objects per bot: a key may hold a dot, which a `bot_config.<key>` path would split.
	const configs = new Map<number, Record<string, string>>();
	for (const r of table(ctx, "zerver_botconfigdata")) {
		const bot = ids.users.get(r.int("bot_profile"), r, "bot_profile");
		(configs.get(bot) ?? configs.set(bot, {}).get(bot)!)[r.str("key")] = r.str("value");
	}
	for (const [bot, config] of configs) botUpdates.push({ updateOne: { filter: { _id: bot }, update: { $set: { bot_config: config } } } });
	if (botUpdates.length) await target.m.User.bulkWrite(botUpdates);
}

export async function importProfileFields(ctx: ImportContext): Promise<void> {
	const { target } = ctx;
	const fields: ProfileFieldDoc[] = table(ctx, "zerver_customprofilefield").map((r) => ({
		_id: r.int("id"),
		realm_id: ctx.realmId,
		name: r.str("name"),
		hint: r.optStr("hint") ?? "",
		type: r.int("field_type"),
		field_data: r.optStr("field_data") ?? "",
		order: r.int("order"),
		display_in_profile_summary: r.optBool("display_in_profile_summary") ?? false,
		required: r.optBool("required") ?? false,
		editable_by_user: r.optBool("editable_by_user") ?? true,
	}));
	await insertAll(target.m.ProfileField, fields);
	await target.raiseCounter("users", "profile_field", Math.max(0, ...fields.map((f) => f._id)));
	const known = new Set(fields.map((f) => f._id));
	const updates = table(ctx, "zerver_customprofilefieldvalue").map((r) => {
		const field = r.int("field");
		if (!known.has(field)) r.fail(`"field" names profile field ${field}, which the export does not hold`);
		const user = ctx.ids.users.get(r.int("user_profile"), r, "user_profile");
		return { updateOne: { filter: { _id: user }, update: { $set: { [`profile_data.${field}`]: r.str("value") } } } };
	});
	if (updates.length) await target.m.User.bulkWrite(updates);
}
