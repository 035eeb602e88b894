// Registering devices with the bouncer, as Zulip's add_push_device_token and
// remove_push_device_token (zerver/lib/push_notifications.py) ask it to: push/register with the
// server's UUID, the user's UUID and ID, the organization's UUID, the token and its kind (and the
// iOS app's ID for APNs), as a form; push/unregister the same way. The users service keeps the
// tokens and hands each change here (notifications.pushDeviceChanged); the request is made off
// the sender's request path, one job per device, so the last change made is the one the bouncer
// ends with.
import { createHash } from "node:crypto";
import type { PushDeviceChange } from "../../../shared/actions";
import { realmUuid, TOKEN_KIND, userUuid } from "./bouncer";
import { replaceJob, startNow, type PushDeps } from "./jobs";

/** The job key of one user's device: one document however often it is added and removed. */
const deviceKey = (c: PushDeviceChange) => `device:${createHash("sha256").update(`${c.user_id}:${c.kind}:${c.token}`).digest("hex")}`;

export async function deviceChanged(deps: PushDeps, c: PushDeviceChange): Promise<void> {
	if (!deps.bouncer) return;
	const orgId = deps.bouncer.orgId;
	const identity = { server_uuid: orgId, user_uuid: userUuid(orgId, c.user_id), realm_uuid: realmUuid(orgId, c.realm_id), user_id: c.user_id, token: c.token, token_kind: c.kind };
	const form: Record<string, string | number> = c.registered && c.kind === TOKEN_KIND.apns && c.ios_app_id !== null ? { ...identity, ios_app_id: c.ios_app_id } : identity;
	const _id = deviceKey(c);
	await replaceJob(deps, { _id, kind: c.registered ? "register" : "unregister", user_id: c.user_id, endpoint: c.registered ? "push/register" : "push/unregister", form });
	startNow(deps, _id);
}
