// The scheduling service: scheduled messages (their own database, `<prefix>_scheduling`) and
// their delivery. This file wires the service and its node-cron job (SCHEDULING_CRON), which sweeps
// for due messages; the endpoints are in actions/, the rules in scheduled-message-rules.ts and the
// exactly-once delivery in delivery.ts.
import { randomBytes } from "node:crypto";
import type { Connection } from "mongoose";
import cron, { type ScheduledTask } from "node-cron";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import type { Meta } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { p, params } from "../../shared/params";
import { scheduledMessageModel } from "./models/scheduled-message";
import { scheduledMessageActions, type SchedulingDeps } from "./actions/scheduled-messages";
import { sweep, type DeliveryDeps } from "./delivery";

export function schedulingService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	let job: ScheduledTask | undefined;
	let sweeping: Promise<unknown> | undefined;
	// This replica's name in claims: the node and a random part (several may share a node in tests).
	let replica = "";
	const deps = {} as SchedulingDeps & DeliveryDeps;
	const runSweep = (replicaName = replica) => sweep(deps, replicaName);

	return {
		name: "scheduling",
		actions: {
			...scheduledMessageActions(deps),

			/** One delivery sweep now (the cron job runs them too); `replica` names the claimant (tests race two). */
			sweep: {
				visibility: "public",
				params: params({ replica: p.string({ optional: true, min: 1 }) }),
				async handler(ctx: Context<{ replica?: string }, Meta>) {
					return runSweep(ctx.params.replica ? `${replica}/${ctx.params.replica}` : replica);
				},
			},
		},

		async started(this: any) {
			const off = config.schedulingCron === "off";
			if (!off && !cron.validate(config.schedulingCron)) throw new Error(`SCHEDULING_CRON is not a cron expression: "${config.schedulingCron}"`);
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "scheduling");
			replica = `${this.broker.nodeID}/${randomBytes(4).toString("hex")}`;
			Object.assign(deps, {
				broker: this.broker,
				ScheduledMessage: scheduledMessageModel(conn),
				externalUrl: config.externalUrl,
				nextId: counters(conn),
				claimTimeoutSeconds: config.schedulingClaimTimeoutSeconds,
				// Zulip's scheduled_messages events, for the sender's clients (the events service delivers them).
				announce: async (userId: number, change: Record<string, unknown>) => {
					await this.broker.broadcast("scheduling.changed", { user_id: userId, ...change });
				},
			});
			await ensureIndexes(conn);
			if (off) return;
			const tick = () => {
				if (sweeping) return; // the previous sweep is still delivering
				sweeping = runSweep()
					.catch((err: unknown) => this.logger.error({ err }, "scheduled message sweep failed"))
					.finally(() => (sweeping = undefined));
			};
			const log = this.logger;
			job = cron.schedule(config.schedulingCron, tick, {
				name: `scheduling ${replica}`,
				unref: true,
				// A tick skipped while a long sweep runs is expected, not a warning.
				suppressMissedWarning: true,
				logger: { info: (m) => log.debug(m), debug: (m) => log.debug(m), warn: (m) => log.warn(m), error: (m, err) => log.error({ err }, String(m)) },
			});
			// What fell due while no replica ran goes out now, not at the next tick.
			tick();
		},

		async stopped() {
			await job?.destroy();
			await sweeping;
			await conn?.close();
		},
	} as ServiceSchema;
}
