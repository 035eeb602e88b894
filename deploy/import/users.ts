// Users and bots (zerver_userprofile), and Zulip's cross-realm bots (zerver_userprofile_crossrealm),
// which become this server's system bots.
import { randomToken } from "../../shared/passwords";
import { Role } from "../../shared/roles";
import { USER_SETTINGS } from "../../services/users/settings/user-settings";
import { ensureSystemBots, NOTIFICATION_BOT_EMAIL, SYSTEM_REALM_ID } from "../../services/users/accounts/system-bots";
import { counters } from "../../shared/db";
import type { UserDoc } from "../../services/users/models/user";
import { USERPROFILE_HANDLED, USERPROFILE_UNKEPT } from "../../shared/zulip-format/import-coverage";
import { insertAll, table, type ImportContext } from "./context";

const ROLES = new Set<number>(Object.values(Role));

/** What each imported user needs to get in: their address and new API key. */
export interface Credential {
	user_id: number;
	email: string;
	full_name: string;
	role: number;
	is_bot: boolean;
	api_key: string;
}

export async function importUsers(ctx: ImportContext): Promise<Credential[]> {
	const records = table(ctx, "zerver_userprofile");
	ctx.progress.start("users", records.length);
	const docs: UserDoc[] = [];
	for (const r of records) ctx.ids.users.set(r.int("id"), r.int("id"));
	for (const r of records) {
		const role = r.int("role");
		if (!ROLES.has(role)) r.fail(`"role" ${role} is not a role this server knows`);
		const email = r.str("delivery_email");
		const settings: Record<string, unknown> = {};
		for (const [name, def] of Object.entries(USER_SETTINGS)) {
			const v = r.raw[name];
			if (v === undefined || v === def.default) continue;
			if (typeof v !== (def.type === "bool" ? "boolean" : def.type === "int" ? "number" : "string")) continue;
			if (def.values && !def.values.includes(v as never)) continue;
			settings[name] = v;
		}
		docs.push({
			_id: r.int("id"),
			realm_id: ctx.realmId,
			delivery_email: email,
			email_key: email.toLowerCase(),
			full_name: r.str("full_name"),
			role,
			is_bot: r.bool("is_bot"),
			bot_type: r.optInt("bot_type"),
			bot_owner_id: ctx.ids.users.opt(r.optInt("bot_owner"), r, "bot_owner"),
			is_active: r.bool("is_active"),
			is_billing_admin: r.optBool("is_billing_admin") ?? false,
			api_key: randomToken(32),
			password_hash: null,
			date_joined: new Date(r.num("date_joined") * 1000),
			timezone: r.optStr("timezone") ?? "",
			// Uploaded avatars are set from avatars/ (avatars.ts).
			avatar_source: "G",
			avatar_version: r.optInt("avatar_version") ?? 1,
			email_address_visibility: r.optInt("email_address_visibility") ?? 1,
			settings,
			profile_data: {},
			can_change_user_emails: r.optBool("can_change_user_emails") ?? false,
			can_create_users: r.optBool("can_create_users") ?? false,
			...(r.raw.default_sending_stream != null ? { default_sending_stream_id: r.int("default_sending_stream") } : {}),
			...(r.raw.default_events_register_stream != null ? { default_events_register_stream_id: r.int("default_events_register_stream") } : {}),
			...(r.raw.default_all_public_streams != null ? { default_all_public_streams: r.bool("default_all_public_streams") } : {}),
		});
	}
	for (const [field, { unset, why }] of Object.entries(USERPROFILE_UNKEPT)) ctx.notKept.add("zerver_userprofile", why, records.filter((r) => !unset(r.raw[field])).length);
	const fields = new Set(records.flatMap((r) => Object.keys(r.raw)));
	const unknown = [...fields].filter((f) => !USERPROFILE_HANDLED.has(f) && !Object.hasOwn(USERPROFILE_UNKEPT, f) && !Object.hasOwn(USER_SETTINGS, f)).sort();
	if (unknown.length) ctx.notKept.add("zerver_userprofile", `fields with no place here: ${unknown.join(", ")}`, unknown.length);
	await insertAll(ctx.target.m.User, docs, ctx.progress);
	ctx.progress.finish();

	await crossRealmBots(ctx);
	return docs.map((u) => ({ user_id: u._id, email: u.delivery_email, full_name: u.full_name, role: u.role, is_bot: u.is_bot, api_key: u.api_key }));
}

/** Zulip's cross-realm bots are this server's system bots, matched by address. */
async function crossRealmBots(ctx: ImportContext): Promise<void> {
	const { User } = ctx.target.m;
	await ctx.target.raiseCounter("users", "user", ctx.ids.users.max());
	await ensureSystemBots(User, counters(ctx.target.conns.users));
	const bots = new Map((await User.find({ realm_id: SYSTEM_REALM_ID }).lean()).map((b) => [b.email_key, b._id]));
	for (const r of table(ctx, "zerver_userprofile_crossrealm")) {
		const email = r.str("email").toLowerCase();
		const ours = bots.get(email);
		if (ours === undefined) {
			// Zulip's email gateway bot: its messages appear sent by Notification Bot.
			ctx.notKept.add("zerver_userprofile_crossrealm", `${email} (no such bot here: its messages appear sent by Notification Bot)`);
		}
		const bot = ours ?? bots.get(NOTIFICATION_BOT_EMAIL)!;
		ctx.ids.users.set(r.int("id"), bot);
		// Its personal recipient, which zerver_recipient does not hold: direct messages sent to it name it.
		const recipient = r.optInt("recipient_id");
		if (recipient !== null) ctx.ids.recipients.set(recipient, { kind: "user", user_id: bot });
	}
}
