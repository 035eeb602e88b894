// Outgoing webhook bots, wired into the integrations service (a mixin): its database
// (`<prefix>_integrations`), the `message.sent` listener that stores jobs and runs them at once
// without holding up the sender, and a timer that runs retries and takes back lost claims.
import { randomBytes } from "node:crypto";
import type { Context, ServiceBroker, ServiceSchema } from "moleculer";
import type { Connection } from "mongoose";
import type { Config } from "../../../shared/config";
import { clock } from "../../../shared/clock";
import { connectServiceDb, ensureIndexes } from "../../../shared/db";
import { p, params } from "../../../shared/params";
import { enqueue, purgeDone, runJobs, sweep, type OutgoingDeps } from "./delivery";
import { outgoingJobModel } from "./models/outgoing-job";
import { outgoingBotsCache } from "./outgoing-bots";
import { networkGuard } from "./network-guard";
import { mayTrigger, type SentFacts } from "./triggers";

/** The largest answer read from a bot's server (a reply is at most 10,000 characters). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export function outgoingWebhooks(config: Config & { mongoUrl: string }): Partial<ServiceSchema> {
	let conn: Connection | undefined;
	let timer: NodeJS.Timeout | undefined;
	let sweeping: Promise<unknown> | undefined;
	const inFlight = new Set<Promise<unknown>>();
	let replica = "";
	// Checked at start: a bad CIDR stops the service with its name.
	const guard = networkGuard(config.outgoingWebhookAllowedNetworks);
	let broker: ServiceBroker;
	const bots = outgoingBotsCache(() => broker);
	const deps = { bots: () => bots.get(), guard, timeoutMs: config.outgoingWebhookTimeoutSeconds * 1000, maxResponseBytes: MAX_RESPONSE_BYTES, retryMs: config.outgoingWebhookRetryMs, externalUrl: config.externalUrl } as OutgoingDeps;
	const track = (work: Promise<unknown>) => {
		inFlight.add(work);
		void work.finally(() => inFlight.delete(work));
	};

	return {
		actions: {
			/** One sweep now (the timer runs them too); `replica` names the claimant (tests race two). */
			outgoingSweep: {
				visibility: "public",
				params: params({ replica: p.string({ optional: true, min: 1 }) }),
				async handler(ctx: Context<{ replica?: string }>) {
					return sweep(deps, ctx.params.replica ? `${replica}/${ctx.params.replica}` : replica);
				},
			},
		},

		events: {
			"users.changed"() {
				bots.changed();
			},
			"message.sent"(this: any, ctx: Context<SentFacts>) {
				if (!conn || !mayTrigger(ctx.params)) return;
				const sent = ctx.params;
				// Not awaited: the broadcast may be awaited by the sender's request.
				track(
					enqueue(deps, sent)
						.then((ids) => (ids.length ? runJobs(deps, ids, replica) : undefined))
						.catch((err: unknown) => this.logger.error({ err, message_id: sent.message_id }, "outgoing webhook jobs not stored")),
				);
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "integrations");
			broker = this.broker;
			replica = `${this.broker.nodeID}/${randomBytes(4).toString("hex")}`;
			Object.assign(deps, { broker: this.broker, Job: outgoingJobModel(conn) });
			await ensureIndexes(conn);
			let purgedAt = 0;
			const tick = () => {
				if (sweeping) return;
				// Finished jobs older than a week go, checked once a minute.
				const purge = clock.nowMs() - purgedAt > 60_000 ? ((purgedAt = clock.nowMs()), purgeDone(deps)) : undefined;
				sweeping = Promise.all([purge, sweep(deps, replica)])
					.catch((err: unknown) => this.logger.error({ err }, "outgoing webhook sweep failed"))
					.finally(() => (sweeping = undefined));
			};
			timer = setInterval(tick, Math.min(1000, config.outgoingWebhookRetryMs));
			timer.unref();
			tick();
		},

		async stopped() {
			clearInterval(timer);
			await sweeping;
			await Promise.all([...inFlight]);
			await conn?.close();
		},
	};
}
