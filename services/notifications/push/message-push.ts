// Sending a message's notification to a user's phones through the bouncer, and taking it away when
// the message is read: Zulip's handle_push_notification and handle_remove_push_notification with
// send_notifications_to_bouncer (zerver/lib/push_notifications.py). The notification goes to
// push/notify as JSON with the user's and organization's identity, the APNs and FCM payloads and
// the tokens this server has for the user; a user without devices costs the bouncer nothing. Each
// notification sent is recorded (Zulip's active_mobile_push_notification flag), so that when
// messages.flagsChanged says the user read it, messages.deleted that it is gone, or
// messages.updated that an edit took the user's mention away, a `remove` notification follows, once.
import { createHash } from "node:crypto";
import { call, type PushDevice, type PushDevices } from "../../../shared/actions";
import { insertNew } from "../../../shared/db";
import { clock } from "../../../shared/clock";
import { notificationData, type NotificationTrigger } from "../missed/notification-data";
import type { PushHook } from "../missed/push-hook";
import { readRecipients } from "../missed/recipients";
import type { SentMessage } from "../missed/sent-message";
import { realmUuid, TOKEN_KIND, userUuid } from "./bouncer";
import { storeJob, storeJobs, startNow, type PushDeps } from "./jobs";
import { messagePayloadApns, messagePayloadGcm, removePayloads, type MentionedGroup, type PushMessage, type PushRecipient } from "./payloads";

/** Message IDs looked up at a time when a read marks many. */
const CHUNK = 1000;

export interface MessagePush {
	/** Who is notified. */
	user_id: number;
	/** The message as the API shows it (message.sent's `event.message`, content as HTML). */
	message: PushMessage;
	/** Why: the decision's push trigger (missed/notification-data.ts pushTrigger). */
	trigger: NotificationTrigger;
	/** The group a mention reached the user through, when not mentioned personally. */
	mentioned_user_group?: MentionedGroup | null;
}

/** The body of push/notify for a user, whatever the payloads (Zulip's send_notifications_to_bouncer). */
function notifyBody(deps: PushDeps, to: PushRecipient, devices: PushDevice[], payloads: Record<string, unknown>): Record<string, unknown> {
	const orgId = deps.bouncer!.orgId;
	const tokens = (kind: number) => devices.filter((d) => d.kind === kind).map((d) => d.token);
	return {
		user_uuid: userUuid(orgId, to.user_id),
		user_id: to.user_id,
		realm_uuid: realmUuid(orgId, to.realm.id),
		...payloads,
		android_devices: tokens(TOKEN_KIND.fcm),
		apple_devices: tokens(TOKEN_KIND.apns),
	};
}

/** The users' devices and their organization, in one call. */
async function recipients(deps: PushDeps, userIds: number[]): Promise<Map<number, { to: PushRecipient; devices: PushDevice[] }>> {
	const found: PushDevices = await call(deps.broker, "users.pushDevices", { user_ids: userIds });
	return new Map(userIds.map((id) => [id, { to: { user_id: id, realm: found.realm, server: deps.server }, devices: found.devices[String(id)] ?? [] }]));
}

/** The sender's avatar when the message left it out (a client_gravatar view). */
async function withAvatar(deps: PushDeps, m: PushMessage): Promise<PushMessage> {
	if (m.avatar_url !== null) return m;
	const { users } = await call(deps.broker, "users.getMany", { user_ids: [m.sender_id], client_gravatar: false });
	return { ...m, avatar_url: users[0]?.avatar_url ?? null };
}

type Due = Omit<MessagePush, "message">;
const jobId = (userId: number, messageId: number) => `message:${userId}:${messageId}`;

/**
 * Sends one message's push notification to these users, through the bouncer (nothing without
 * PUSH_NOTIFICATION_BOUNCER_URL, or to a user without a device). The caller has decided they are
 * to be notified (the missed-message rules); this reads their devices and the sender's avatar once
 * for all of them, builds Zulip's payloads, stores each request under `message:<user>:<message>`
 * (asked twice, by two replicas, it is made once) and makes it off the caller's path, retrying
 * what fails. Answers the users whose request this call stored.
 */
export async function sendMessagePushes(deps: PushDeps, message: PushMessage, due: Due[]): Promise<Set<number>> {
	const queued = new Set<number>();
	if (!deps.bouncer || !due.length) return queued;
	const asked = new Set((await deps.Job.find({ _id: { $in: due.map((d) => jobId(d.user_id, message.id)) } }, { _id: 1 }).lean()).map((j) => j._id));
	const fresh = due.filter((d) => !asked.has(jobId(d.user_id, message.id)));
	if (!fresh.length) return queued;
	const found = await recipients(deps, fresh.map((d) => d.user_id));
	const reached = fresh.filter((d) => {
		if (found.get(d.user_id)!.devices.length) return true;
		deps.logger.info({ user_id: d.user_id }, "no push notification: the user has no registered devices");
		return false;
	});
	if (!reached.length) return queued;
	const shown = await withAvatar(deps, message);
	const jobs = reached.map((d) => {
		const { to, devices } = found.get(d.user_id)!;
		const group = d.mentioned_user_group ?? null;
		const json = notifyBody(deps, to, devices, { apns_payload: messagePayloadApns(to, shown, d.trigger, group), ...messagePayloadGcm(to, shown, group) });
		return { _id: jobId(d.user_id, shown.id), kind: "message", user_id: d.user_id, endpoint: "push/notify", json };
	});
	// Recorded before the requests (one insert each for all the recipients), so a read that comes
	// while one is in flight removes it.
	const now = clock.nowMs();
	await insertNew(deps.Sent.collection, reached.map((d) => ({ _id: `${d.user_id}:${shown.id}`, user_id: d.user_id, message_id: shown.id, created_at: now })));
	for (const job of await storeJobs(deps, jobs)) {
		queued.add(job.user_id);
		startNow(deps, job._id);
	}
	return queued;
}

/** One user's notification of one message (the bus action notifications.pushMessage). */
export async function sendMessagePush(deps: PushDeps, push: MessagePush): Promise<{ queued: boolean }> {
	const { message, ...due } = push;
	return { queued: (await sendMessagePushes(deps, message, [due])).has(push.user_id) };
}

/**
 * The missed-message decision's push half (missed/push-hook.ts), sent through the bouncer: one
 * notification per user a push is due for, with the message as message.sent carried it.
 */
export function bouncerPushHook(deps: PushDeps): PushHook {
	return async (sent, due) => {
		if (!deps.bouncer) return;
		if (!sent.event) {
			deps.logger.warn({ message_id: sent.message_id }, "message.sent without the message: no push notification");
			return;
		}
		// Zulip's get_mentioned_user_group: the smallest group the user was mentioned through (not by name).
		const groupOf = (userId: number) => {
			const g = sent.mentioned_user_groups?.[String(userId)];
			return g ? { id: g.id, name: g.name } : null;
		};
		await sendMessagePushes(
			deps,
			sent.event.message as unknown as PushMessage,
			due.map((d) => ({ user_id: d.user_id, trigger: d.trigger, mentioned_user_group: groupOf(d.user_id) })),
		);
	};
}

/** Messages among these whose notification went out to the user (and was not removed yet). */
async function notifiedAmong(deps: PushDeps, userId: number, messageIds: number[]): Promise<number[]> {
	const found: number[] = [];
	for (let i = 0; i < messageIds.length; i += CHUNK) {
		const keys = messageIds.slice(i, i + CHUNK).map((id) => `${userId}:${id}`);
		const docs = await deps.Sent.find({ _id: { $in: keys } }, { message_id: 1 }).lean();
		found.push(...docs.map((d) => d.message_id));
	}
	return found;
}

/**
 * A `remove` notification of these messages, which had one, to the user's devices (Zulip's
 * handle_remove_push_notification: the newest 200 named), and their records let go: all of them,
 * as Zulip, the phone having let go of the older ones. Replicas hearing the same change store one
 * request (its key names the messages).
 */
async function removePushes(deps: PushDeps, { to, devices }: { to: PushRecipient; devices: PushDevice[] }, ids: number[]): Promise<void> {
	if (devices.length) {
		const digest = createHash("sha256").update(ids.join(",")).digest("hex").slice(0, 32);
		const _id = `remove:${to.user_id}:${digest}`;
		if (await storeJob(deps, { _id, kind: "remove", user_id: to.user_id, endpoint: "push/notify", json: notifyBody(deps, to, devices, removePayloads(to, ids)) })) startNow(deps, _id);
	}
	for (let i = 0; i < ids.length; i += CHUNK) {
		await deps.Sent.deleteMany({ _id: { $in: ids.slice(i, i + CHUNK).map((id) => `${to.user_id}:${id}`) } });
	}
}

/** Messages the user read: a `remove` notification for those that had one. */
export async function removeReadPushes(deps: PushDeps, userId: number, messageIds: number[]): Promise<void> {
	if (!deps.bouncer || !messageIds.length) return;
	const ids = (await notifiedAmong(deps, userId, messageIds)).sort((a, b) => a - b);
	if (ids.length) await removePushes(deps, (await recipients(deps, [userId])).get(userId)!, ids);
}

/**
 * Messages deleted: each user who had a notification of any of them gets one `remove` for those
 * (Zulip's do_delete_messages clearing active_mobile_push_notification for every user); users who
 * had none get nothing. One read of the records, one call for the users' devices.
 */
export async function removeDeletedPushes(deps: PushDeps, messageIds: number[]): Promise<void> {
	if (!deps.bouncer || !messageIds.length) return;
	const byUser = new Map<number, number[]>();
	for (let i = 0; i < messageIds.length; i += CHUNK) {
		const docs = await deps.Sent.find({ message_id: { $in: messageIds.slice(i, i + CHUNK) } }, { user_id: 1, message_id: 1 }).lean();
		for (const d of docs) byUser.set(d.user_id, [...(byUser.get(d.user_id) ?? []), d.message_id]);
	}
	if (!byUser.size) return;
	const found = await recipients(deps, [...byUser.keys()]);
	for (const [userId, ids] of byUser) await removePushes(deps, found.get(userId)!, ids.sort((a, b) => a - b));
}

/**
 * An edit took these users' mention of a channel message away (`messages.updated`'s
 * mentions_dropped): those who had its notification get a `remove`, unless the channel's push
 * notifications would have notified them anyway (Zulip's do_update_mobile_push_notification,
 * which leaves out stream_push_user_ids; nothing for a direct message).
 */
export async function removeUnmentionedPushes(deps: PushDeps, dropped: SentMessage): Promise<void> {
	if (!deps.bouncer || dropped.channel_id === undefined) return;
	const had = (await deps.Sent.find({ _id: { $in: dropped.user_ids.map((u) => `${u}:${dropped.message_id}`) } }, { user_id: 1 }).lean()).map((h) => h.user_id);
	if (!had.length) return;
	const facts = (await readRecipients(deps.broker, { ...dropped, user_ids: had }))?.facts ?? [];
	const channelPush = new Set(facts.filter((r) => notificationData({ sender_id: dropped.sender_id, direct: false }, r).stream_push_notify).map((r) => r.user_id));
	const users = had.filter((u) => !channelPush.has(u));
	if (!users.length) return;
	const found = await recipients(deps, users);
	for (const u of users) await removePushes(deps, found.get(u)!, [dropped.message_id]);
}
