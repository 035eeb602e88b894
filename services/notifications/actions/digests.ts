// The digest pass by hand (the timer runs it every DIGEST_INTERVAL_SECONDS): tests and operators
// run it at a given time; it answers the period served and the readers whose digest it stored.
import type { Context } from "moleculer";
import type { Meta } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { p, params } from "../../../shared/params";
import type { MailerDeps } from "../outbox/mailer";
import { digestPass } from "../digest/digest-pass";

export function digestActions(deps: MailerDeps) {
	return {
		runDigests: {
			visibility: "public",
			/** `now`: UNIX milliseconds the pass takes as the present (default: the clock's). */
			params: params({ now: p.int({ optional: true, min: 0 }) }),
			async handler(ctx: Context<{ now?: number }, Meta>) {
				return digestPass(deps, ctx.params.now ?? clock.nowMs());
			},
		},
	};
}
