// The scheduling service: scheduled messages (their own database, `<prefix>_scheduling`) and
// their delivery. This file wires the service and its sweep timer; the endpoints are in
// actions/, the rules in rules.ts and the exactly-once delivery in delivery.ts.
import { randomBytes } from "node:crypto";
import type { Connection } from "mongoose";
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
	let timer: NodeJS.Timeout | undefined;
	let sweeping: Promise<unknown> | undefined;
	// This replica's name in claims: the node and a random part (several may share a node in tests).
	let replica = "";
	const deps = {} as SchedulingDeps & DeliveryDeps;
	const runSweep = (replicaName = replica) => sweep(deps, replicaName);

	return {
		name: "scheduling",
		actions: {
			...scheduledMessageActions(deps),

			/** One delivery sweep now (the timer runs them too); `replica` names the claimant (tests race two). */
			sweep: {
				visibility: "public",
				params: params({ replica: p.string({ optional: true, min: 1 }) }),
				async handler(ctx: Context<{ replica?: string }, Meta>) {
					return runSweep(ctx.params.replica ? `${replica}/${ctx.params.replica}` : replica);
				},
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "scheduling");
			replica = `${this.broker.nodeID}/${randomBytes(4).toString("hex")}`;
			Object.assign(deps, {
				broker: this.broker,
				ScheduledMessage: scheduledMessageModel(conn),
				nextId: counters(conn),
				claimTimeoutSeconds: config.schedulingClaimTimeoutSeconds,
				// Zulip's scheduled_messages events, for the sender's clients (the events service delivers them).
				announce: async (userId: number, change: Record<string, unknown>) => {
					await this.broker.broadcast("scheduling.changed", { user_id: userId, ...change });
				},
			});
			await ensureIndexes(conn);
			if (config.schedulingSweepMs > 0) {
				timer = setInterval(() => {
					if (sweeping) return; // the previous sweep is still delivering
					sweeping = runSweep()
						.catch((err: unknown) => this.logger.error({ err }, "scheduled message sweep failed"))
						.finally(() => (sweeping = undefined));
				}, config.schedulingSweepMs);
				timer.unref();
			}
		},

		async stopped() {
			if (timer) clearInterval(timer);
			await sweeping;
			await conn?.close();
		},
	} as ServiceSchema;
}
