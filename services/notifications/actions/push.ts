// The notifications service's push actions: notifications.pushDeviceChanged (the users service,
// when a device is added or removed), notifications.pushMessage (a message's notification to a
// user the missed-message rules chose), POST /mobile_push/test_notification, and a sweep of the
// bouncer requests now (the timer runs them too; tests call it to see settled states). And the
// listeners that take notifications off the phones when their messages are read or deleted, or an
// edit takes the user's mention away.
import type { Context } from "moleculer";
import { requireUser, type Meta, type PushDeviceChange } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { claimant } from "../claims";
import { sweepPush, type PushDeps } from "../push/jobs";
import { deviceChanged } from "../push/registration";
import { removeDeletedPushes, removeReadPushes, removeUnmentionedPushes, sendMessagePush, type MessagePush } from "../push/message-push";
import type { MessageUpdated } from "../missed/sent-message";
import { sendTestNotification } from "../push/test-notification";

export function pushActions(deps: PushDeps) {
	return {
		pushDeviceChanged: {
			visibility: "public",
			params: params({
				user_id: p.int({ min: 1 }),
				realm_id: p.int({ min: 1 }),
				kind: p.oneOf([1, 2]),
				token: p.string({ min: 1 }),
				ios_app_id: { type: "string", nullable: true },
				registered: p.bool(),
			}),
			async handler(ctx: Context<PushDeviceChange, Meta>) {
				await deviceChanged(deps, ctx.params);
				return {};
			},
		},

		/** One message's notification to one user, decided by the caller (push/message-push.ts sendMessagePush). */
		pushMessage: {
			visibility: "public",
			params: params({
				user_id: p.int({ min: 1 }),
				message: { type: "object" },
				trigger: p.string({ min: 1 }),
				mentioned_user_group: { type: "object", optional: true, nullable: true, props: { id: p.int(), name: p.string() } },
			}),
			async handler(ctx: Context<MessagePush, Meta>) {
				return sendMessagePush(deps, ctx.params);
			},
		},

		testPushNotification: {
			params: params({ token: p.string({ optional: true, empty: true }) }),
			async handler(ctx: Context<{ token?: string }, Meta>) {
				return sendTestNotification(deps, requireUser(ctx), ctx.params.token);
			},
		},

		pushSweep: {
			visibility: "public",
			params: params({ replica: p.string({ optional: true, min: 1 }) }),
			async handler(ctx: Context<{ replica?: string }, Meta>) {
				await Promise.all([...deps.inflight]);
				return sweepPush(deps, claimant(deps.replica(), ctx.params.replica));
			},
		},
	};
}

interface FlagsChanged {
	user_id: number;
	op: string;
	flag: string;
	message_ids: number[];
}

/** Messages read, deleted, or no longer mentioning the user: their push notifications are removed. Not awaited by the broadcast; `track` keeps the work for a clean stop. */
export function pushEvents(deps: PushDeps, track: (work: Promise<unknown>) => void) {
	return {
		"messages.flagsChanged"(ctx: Context<FlagsChanged>) {
			const { user_id, op, flag, message_ids } = ctx.params;
			if (op !== "add" || flag !== "read" || !deps.bouncer) return;
			track(removeReadPushes(deps, user_id, message_ids).catch((err: unknown) => deps.logger.warn({ err, user_id }, "push notification removal not queued")));
		},
		"messages.updated"(ctx: Context<MessageUpdated>) {
			const dropped = ctx.params.mentions_dropped;
			if (!dropped || !deps.bouncer || !deps.Sent) return;
			track(removeUnmentionedPushes(deps, dropped).catch((err: unknown) => deps.logger.warn({ err, message_id: dropped.message_id }, "push notification removal after an edit not queued")));
		},
		"messages.deleted"(ctx: Context<{ message_ids: number[] }>) {
			const { message_ids } = ctx.params;
			if (!deps.bouncer || !deps.Sent) return;
			track(removeDeletedPushes(deps, message_ids).catch((err: unknown) => deps.logger.warn({ err, message_ids }, "push notification removal of deleted messages not queued")));
		},
	};
}
