// Authentication: an API key with its email for every request the gateway routes
// (users.authenticate), and POST /fetch_api_key (email and password). The rules live in
// authentication.ts.
import type { Identity, WebhookSender } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { PASSWORD_PARAM_MAX, USERNAME_MAX } from "../../../shared/param-bounds";
import { userByApiKey, userByPassword } from "./authentication";
import type { Ctx, ServiceDeps } from "../deps";

export function authActions({ db, host, identity }: ServiceDeps) {
	return {
		authenticate: {
			visibility: "public",
			params: params({ email: p.string(), api_key: p.string() }),
			async handler(ctx: Ctx<{ email: string; api_key: string }>): Promise<Identity> {
				const user = await userByApiKey(db, host(), ctx.params.email, ctx.params.api_key);
				return identity(user);
			},
		},

		/**
		 * For the integrations service: the user of an incoming webhook's URL, by its API key alone
		 * (Zulip's webhook_view), with what decides where the webhook may post.
		 */
		authenticateWebhook: {
			visibility: "public",
			params: params({ api_key: p.string(), email: p.string({ optional: true }) }),
			async handler(ctx: Ctx<{ api_key: string; email?: string }>): Promise<WebhookSender> {
				const user = await userByApiKey(db, host(), ctx.params.email ?? null, ctx.params.api_key);
				return { ...identity(user), bot_type: user.bot_type ?? null, bot_owner_id: user.bot_owner_id ?? null };
			},
		},

		fetchApiKey: {
			params: params({ username: p.string({ max: USERNAME_MAX }), password: p.string({ max: PASSWORD_PARAM_MAX }) }),
			async handler(ctx: Ctx<{ username: string; password: string }>) {
				const user = await userByPassword(db, ctx.params.username, ctx.params.password);
				return { api_key: user.api_key, email: user.delivery_email, user_id: user._id };
			},
		},
	};
}
