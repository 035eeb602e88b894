// POST and DELETE /users/me/apns_device_token and /users/me/android_gcm_reg_id: the mobile apps
// register their push tokens at login (Zulip's zerver/views/push_notifications.py). Humans only,
// refused by the gateway before the parameters are read, as Zulip's human_users_only. The tokens
// are kept here; with a push bouncer configured, each change is handed to the notifications
// service, which registers it with the bouncer off the request path (docs/push.md). And
// users.pushDevices, for that service: a user's devices and the organization they belong to.
import { call, requireUser, type Ctx, type Identity, type PushDevices } from "../../../shared/actions";
import { pushConfigured } from "../../../shared/config";
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

export function pushDeviceActions({ db, config }: ServiceDeps) {
	/** With a bouncer: the change, for the notifications service to register (Zulip's send_to_push_bouncer register/unregister). */
	async function tellBouncer(ctx: Ctx<unknown>, registered: boolean, kind: number, token: string, iosAppId: string | null): Promise<void> {
		if (!pushConfigured(config)) return;
		const me: Identity = requireUser(ctx);
		await call(ctx, "notifications.pushDeviceChanged", { user_id: me.user_id, realm_id: me.realm_id, kind, token, ios_app_id: iosAppId, registered });
	}

	return {
		addApnsDeviceToken: {
			params: params({ token: p.string({ empty: true }), appid: p.string({ empty: true, max: IDENTIFIER_MAX }) }),
			async handler(ctx: Ctx<{ token: string; appid: string }>) {
				const userId = humanOf(ctx);
				validateAppId(ctx.params.appid);
				validateToken(ctx.params.token, PUSH_KIND.apns);
				await addPushDevice(db, userId, PUSH_KIND.apns, ctx.params.token, ctx.params.appid);
				await tellBouncer(ctx, true, PUSH_KIND.apns, ctx.params.token, ctx.params.appid);
				return {};
			},
		},

		removeApnsDeviceToken: {
			params: params({ token: p.string({ empty: true }) }),
			async handler(ctx: Ctx<{ token: string }>) {
				const userId = humanOf(ctx);
				validateToken(ctx.params.token, PUSH_KIND.apns);
				await removePushDevice(db, userId, PUSH_KIND.apns, ctx.params.token);
				await tellBouncer(ctx, false, PUSH_KIND.apns, ctx.params.token, null);
				return {};
			},
		},

		addAndroidRegId: {
			params: params({ token: p.string({ empty: true }) }),
			async handler(ctx: Ctx<{ token: string }>) {
				const userId = humanOf(ctx);
				validateToken(ctx.params.token, PUSH_KIND.fcm);
				await addPushDevice(db, userId, PUSH_KIND.fcm, ctx.params.token, null);
				await tellBouncer(ctx, true, PUSH_KIND.fcm, ctx.params.token, null);
				return {};
			},
		},

		removeAndroidRegId: {
			params: params({ token: p.string({ empty: true }) }),
			async handler(ctx: Ctx<{ token: string }>) {
				const userId = humanOf(ctx);
				validateToken(ctx.params.token, PUSH_KIND.fcm);
				await removePushDevice(db, userId, PUSH_KIND.fcm, ctx.params.token);
				await tellBouncer(ctx, false, PUSH_KIND.fcm, ctx.params.token, null);
				return {};
			},
		},

		/** Users' devices, each one's oldest first (Zulip's order_by("id")), and their organization, for push notifications: one call for all of a message's recipients. */
		pushDevices: {
			visibility: "public",
			params: params({ user_ids: p.intList() }),
			async handler(ctx: Ctx<{ user_ids: number[] }>): Promise<PushDevices> {
				const docs = await db.PushDevice.find({ user_id: { $in: ctx.params.user_ids } }).sort({ user_id: 1, _id: 1 }).lean();
				const devices: PushDevices["devices"] = {};
				for (const d of docs) (devices[String(d.user_id)] ??= []).push({ kind: d.kind, token: d.token, ios_app_id: d.ios_app_id });
				return { devices, realm: { id: db.realm._id, name: db.realm.name, url: db.realm.url } };
			},
		},

		/** Forgets tokens the bouncer no longer has (its `deleted_devices`), as Zulip's send_notifications_to_bouncer. */
		forgetPushDevices: {
			visibility: "public",
			params: params({ kind: p.int({ min: 1 }), tokens: p.stringList() }),
			async handler(ctx: Ctx<{ kind: number; tokens: string[] }>) {
				const res = await db.PushDevice.deleteMany({ kind: ctx.params.kind, token: { $in: ctx.params.tokens } });
				return { deleted: res.deletedCount };
			},
		},
	};
}
