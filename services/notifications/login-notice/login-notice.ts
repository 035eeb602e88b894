// New-login emails (Zulip's email_on_new_login, zerver/signals.py): a user who logs in with their
// password (POST /fetch_api_key) is told, unless they turned enable_login_emails off or their
// account was created in the last minute (a sign-up logs in at once). The gateway asks after the
// login succeeded, with the client's User-Agent and address.
import type { Context } from "moleculer";
import { call, type Identity, type Meta } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { longTime } from "../templates/layout";
import { mail, type MailerDeps } from "../outbox/mailer";
import { deviceBrowser, deviceOs } from "./device";
import { newLoginEmail } from "./new-login-email";

/** Zulip's JUST_CREATED_THRESHOLD: no notice for an account this young (seconds). */
export const JUST_CREATED_SECONDS = 60;

export interface LoginDetails {
	user_agent: string;
	ip: string;
	idempotency_key: string;
}

/** Sends the notice if the user wants it; answers whether one was stored. */
export async function noticeLogin(deps: MailerDeps, ctx: Context<unknown, Meta>, user: Identity, login: LoginDetails): Promise<{ stored: boolean }> {
	if (user.is_bot) return { stored: false };
	const [{ values }, { users }, { realm }] = await Promise.all([
		call(ctx, "users.mySettings", { names: ["enable_login_emails", "timezone", "twenty_four_hour_time"] }, { meta: { user } }),
		call(ctx, "users.getMany", { user_ids: [user.user_id] }, { meta: { user } }),
		call(ctx, "users.inviteContext", { emails: [] }),
	]);
	if (values.enable_login_emails === false) return { stored: false };
	const joined = Date.parse(users[0]?.date_joined ?? "");
	if (!Number.isNaN(joined) && clock.nowMs() - joined <= JUST_CREATED_SECONDS * 1000) return { stored: false };
	const context = {
		realm_name: realm.name,
		realm_url: realm.url,
		email: user.delivery_email,
		login_time: longTime(clock.nowMs(), typeof values.timezone === "string" ? values.timezone : "", values.twenty_four_hour_time === true),
		browser: deviceBrowser(login.user_agent) ?? "An unknown browser",
		os: deviceOs(login.user_agent) ?? "an unknown operating system",
		ip: login.ip || "Unknown IP address",
	};
	return mail(deps, {
		key: login.idempotency_key,
		kind: "notify_new_login",
		to: user.delivery_email,
		user_id: user.user_id,
		realm_url: realm.url,
		unsubscribe: { type: "login", as: user },
		render: (footer) => newLoginEmail(context, footer),
	});
}
