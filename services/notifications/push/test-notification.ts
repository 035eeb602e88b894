// POST /mobile_push/test_notification: Zulip's send_test_push_notification_api and
// send_test_push_notification. The device named by `token` (any kind), or every device of the
// user; an unknown token is INVALID_PUSH_DEVICE_TOKEN "Device not recognized". With a bouncer,
// each device gets push/test_notification as JSON (the user's and organization's identity, the
// token and its kind, and the base payload; the bouncer words the notification itself), on the
// request path so its answer reaches the client: a device the bouncer does not know is
// INVALID_REMOTE_PUSH_DEVICE_TOKEN, a bouncer down a 502. Without one, nothing is sent and the
// answer is success, as Zulip's server that has neither a bouncer nor APNs/FCM credentials.
import { call, type Identity } from "../../../shared/actions";
import { apiError, badRequest } from "../../../shared/errors";
import { BouncerError, realmUuid, sendToBouncer, userUuid } from "./bouncer";
import type { PushDeps } from "./jobs";
import { basePayload } from "./payloads";

function asApiError(err: BouncerError) {
	switch (err.failure) {
		case "unknown_device":
			return apiError(400, "INVALID_REMOTE_PUSH_DEVICE_TOKEN", "Device not recognized by the push bouncer");
		case "refused":
			return badRequest(err.message);
		default:
			// Zulip's PushNotificationBouncerRetryLaterError is a 502; its other bouncer errors are too, here (never a 500).
			return apiError(502, "BAD_REQUEST", err.message);
	}
}

export async function sendTestNotification(deps: PushDeps, me: Identity, token: string | undefined): Promise<Record<string, never>> {
	const found = await call(deps.broker, "users.pushDevices", { user_ids: [me.user_id] });
	const { realm } = found;
	const devices = found.devices[String(me.user_id)] ?? [];
	const targets = token === undefined ? devices : devices.filter((d) => d.token === token).slice(0, 1);
	if (token !== undefined && !targets.length) throw apiError(400, "INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
	if (!deps.bouncer) return {};
	const orgId = deps.bouncer.orgId;
	const base = basePayload({ user_id: me.user_id, realm, server: deps.server });
	for (const d of targets) {
		const json = { realm_uuid: realmUuid(orgId, realm.id), user_uuid: userUuid(orgId, me.user_id), user_id: me.user_id, token: d.token, token_kind: d.kind, base_payload: base };
		deps.logger.info({ user_id: me.user_id, token_kind: d.kind }, "sending a test push notification to the bouncer");
		try {
			await sendToBouncer(deps.bouncer, "push/test_notification", { json });
		} catch (err) {
			if (err instanceof BouncerError) throw asApiError(err);
			throw err;
		}
	}
	return {};
}
