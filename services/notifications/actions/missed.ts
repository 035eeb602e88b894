// Missed-message notifications in the notifications service: the `message.sent` listener that
// stores the notices a message makes (off the sender's request path), the `messages.updated` one
// for the users a content edit newly mentions, and a sweep of the due
// batches now (the timer runs them too; tests sweep by hand, moving the clock).
import type { Context } from "moleculer";
import type { Meta } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { claimant } from "../claims";
import { keepUntilSettled } from "../background";
import { noticeSent, type EnqueueDeps } from "../missed/enqueue";
import { sweepMissed, type BatchDeps } from "../missed/batches";
import { decideEdit } from "../missed/notification-data";
import type { MessageUpdated, SentMessage } from "../missed/sent-message";

export type MissedDeps = BatchDeps &
	EnqueueDeps & {
		/** Notices being stored after a message.sent (not awaited by the broadcast). */
		storing: Set<Promise<unknown>>;
	};

export function missedActions(deps: MissedDeps) {
	return {
		/** One sweep of the due batches now; `replica` names the claimant (tests race two). Waits for notices being stored and first attempts in flight. */
		missedSweep: {
			visibility: "public",
			params: params({ replica: p.string({ optional: true, min: 1 }) }),
			async handler(ctx: Context<{ replica?: string }, Meta>) {
				await Promise.all([...deps.storing, ...deps.inflight]);
				const out = await sweepMissed(deps, claimant(deps.replica(), ctx.params.replica));
				await Promise.all([...deps.inflight]);
				return out;
			},
		},
	};
}

/** The listener: not awaited by the broadcast (the sender's request may await it); the work is kept in `storing` for a sweep or a stop to wait for. */
export function missedEvents(deps: MissedDeps) {
	const track = (work: Promise<unknown>) => keepUntilSettled(deps.storing, work);
	return {
		"message.sent"(ctx: Context<SentMessage>) {
			const sent = ctx.params;
			if (!deps.Notice) return; // not started yet
			track(noticeSent(deps, sent).catch((err: unknown) => deps.logger.error({ err, message_id: sent.message_id }, "missed-message notices not stored")));
		},
		"messages.updated"(ctx: Context<MessageUpdated>) {
			const edited = ctx.params.new_mentions;
			if (!edited || !deps.Notice) return;
			track(noticeSent(deps, edited, decideEdit).catch((err: unknown) => deps.logger.error({ err, message_id: edited.message_id }, "missed-message notices of an edit not stored")));
		},
	};
}
