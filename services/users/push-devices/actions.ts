// POST and DELETE /users/me/apns_device_token and /users/me/android_gcm_reg_id: the mobile apps
// register their push tokens at login (Zulip's zerver/views/push_notifications.py). Humans only,
// refused by the gateway before the parameters are read, as Zulip's human_users_only. The tokens
// are kept; no push bouncer is reachable, so no notification is sent from them.
import { requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { IDENTIFIER_MAX } from "../../../shared/param-bounds";
import type { ServiceDeps } from "../deps";
import { PUSH_KIND } from "./push-device-model";
import { addPushDevice, removePushDevice, validateAppId, validateToken } from "./push-device-rules";

function humanOf(ctx: Ctx<unknown>): number {
	const me = requireUser(ctx);
	if (me.is_bot) throw badRequest("This endpoint does not accept bot requests.");
	return me.user_id;
}

export function pushDeviceActions({ db }: ServiceDeps) {
	return {
		addApnsDeviceToken: {
			params: params({ token: p.string({ empty: true }), appid: p.string({ empty: true, max: IDENTIFIER_MAX }) }),
			async handler(ctx: Ctx<{ token: string; appid: string }>) {
				const userId = humanOf(ctx);
				validateAppId(ctx.params.appid);
				validateToken(ctx.params.token, PUSH_KIND.apns);
				await addPushDevice(db, userId, PUSH_KIND.apns, ctx.params.token, ctx.params.appid);
				return {};
			},
		},

		removeApnsDeviceToken: {
			params: params({ token: p.string({ empty: true }) }),
			async handler(ctx: Ctx<{ token: string }>) {
				const userId = humanOf(ctx);
				validateToken(ctx.params.token, PUSH_KIND.apns);
				await removePushDevice(db, userId, PUSH_KIND.apns, ctx.params.token);
				return {};
			},
		},

		addAndroidRegId: {
			params: params({ token: p.string({ empty: true }) }),
			async handler(ctx: Ctx<{ token: string }>) {
				const userId = humanOf(ctx);
				validateToken(ctx.params.token, PUSH_KIND.fcm);
				await addPushDevice(db, userId, PUSH_KIND.fcm, ctx.params.token, null);
				return {};
			},
		},

		removeAndroidRegId: {
			params: params({ token: p.string({ empty: true }) }),
			async handler(ctx: Ctx<{ token: string }>) {
				const userId = humanOf(ctx);
				validateToken(ctx.params.token, PUSH_KIND.fcm);
				await removePushDevice(db, userId, PUSH_KIND.fcm, ctx.params.token);
				return {};
			},
		},
	};
}
