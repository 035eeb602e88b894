// The outbox's actions: a delivery sweep now (the timer runs them too), and the dead letters, which
// `npm run manage -- email-dead-letters` lists.
import type { Context } from "moleculer";
import type { Meta } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { claimant } from "../claims";
import { sweep } from "../outbox/delivery";
import type { MailerDeps } from "../outbox/mailer";

export interface DeadLetter {
	idempotency_key: string;
	kind: string;
	to: string;
	subject: string;
	attempts: number;
	last_error: string | null;
	/** UNIX milliseconds. */
	created_at: number;
	failed_at: number | null;
}

export function outboxActions(deps: MailerDeps) {
	return {
		/** One sweep now; `replica` names the claimant (tests race two). Waits for this replica's first attempts in flight. */
		sweep: {
			visibility: "public",
			params: params({ replica: p.string({ optional: true, min: 1 }) }),
			async handler(ctx: Context<{ replica?: string }, Meta>) {
				await Promise.all([...deps.inflight]);
				return sweep(deps, claimant(deps.replica(), ctx.params.replica));
			},
		},

		/** The emails that could not be delivered, newest first. */
		deadLetters: {
			visibility: "public",
			params: params({ limit: p.int({ optional: true, min: 1, max: 10_000 }) }),
			async handler(ctx: Context<{ limit?: number }, Meta>): Promise<{ dead_letters: DeadLetter[] }> {
				const docs = await deps.Outbox.find({ state: "dead" }).sort({ failed_at: -1 }).limit(ctx.params.limit ?? 100).lean();
				return {
					dead_letters: docs.map((d) => ({
						idempotency_key: d._id,
						kind: d.kind,
						to: d.to,
						subject: d.subject,
						attempts: d.attempts,
						last_error: d.last_error,
						created_at: d.created_at,
						failed_at: d.failed_at,
					})),
				};
			},
		},
	};
}
