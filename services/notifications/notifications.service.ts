// The notifications service: what reaches people who are away. Today email: the outbox (its own
// database, `<prefix>_notifications`), delivery over SMTP (SMTP_URL) or into EMAIL_DIR, dead
// letters, new-login emails, missed-message emails, weekly digests and unsubscribe links. This
// file wires the service, its `message.sent` listener and its timers (EMAIL_SWEEP_SECONDS: the
// outbox and the due missed-message batches; DIGEST_INTERVAL_SECONDS); the actions are in
// actions/, the outbox and its delivery in outbox/, the emails in templates/, login-notice/ and
// digest/, missed messages in missed/, unsubscribing in unsubscribe/.
import { randomBytes } from "node:crypto";
import type { Connection } from "mongoose";
import type { ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { clock } from "../../shared/clock";
import { connectServiceDb, ensureIndexes } from "../../shared/db";
import { outboxEmailModel } from "./models/outbox-email";
import { unsubscribeKeyModel } from "./models/unsubscribe-key";
import { transportFor } from "./outbox/transports";
import { sweep } from "./outbox/delivery";
import { missedClaimModel, missedNoticeModel } from "./models/missed-notice";
import { sweepMissed } from "./missed/batches";
import { noPush, type PushHook } from "./missed/push-hook";
import { emailActions } from "./actions/emails";
import { outboxActions } from "./actions/outbox";
import { unsubscribeActions } from "./actions/unsubscribe";
import { missedActions, missedEvents, type MissedDeps } from "./actions/missed";
import { digestActions } from "./actions/digests";
import { digestPass } from "./digest/digest-pass";

/**
 * `cli`: the node of `npm run manage`, which reads the outbox and sends nothing. `pushDue`: where
 * the push half of the missed-message decision goes (missed/push-hook.ts); nothing by default.
 */
export function notificationsService(config: Config & { mongoUrl: string; cli?: boolean }, pushDue: PushHook = noPush): ServiceSchema {
	let conn: Connection;
	let timer: NodeJS.Timeout | undefined;
	let digestTimer: NodeJS.Timeout | undefined;
	let sweeping: Promise<unknown> | undefined;
	let digesting: Promise<unknown> | undefined;
	// This replica's name in claims: the node and a random part (several may share a node in tests).
	let replica = "";
	const deps = { replica: () => replica, inflight: new Set(), storing: new Set(), pushDue } as unknown as MissedDeps;

	return {
		name: "notifications",
		actions: {
			...emailActions(deps),
			...outboxActions(deps),
			...unsubscribeActions(deps),
			...missedActions(deps),
			...digestActions(deps),
		},

		events: config.cli ? {} : missedEvents(deps),

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "notifications");
			replica = `${this.broker.nodeID}/${randomBytes(4).toString("hex")}`;
			Object.assign(deps, {
				broker: this.broker,
				logger: this.logger,
				Outbox: outboxEmailModel(conn),
				UnsubscribeKey: unsubscribeKeyModel(conn),
				Notice: missedNoticeModel(conn),
				Claim: missedClaimModel(conn),
				transport: transportFor(config),
				noreply: config.noreplyEmail,
				maxAttempts: config.emailMaxAttempts,
				retrySeconds: config.emailRetrySeconds,
			} satisfies Partial<MissedDeps>);
			await ensureIndexes(conn);
			this.logger.info(`email goes ${config.smtpUrl ? "out over SMTP" : `into ${config.emailDir}`}`);
			if (config.cli) return;
			if (config.digestIntervalSeconds) {
				// No pass at start (the other services may still be starting): a digest day has many ticks.
				digestTimer = setInterval(() => {
					if (digesting) return;
					digesting = digestPass(deps, clock.nowMs())
						.catch((err: unknown) => this.logger.error({ err }, "digest pass failed"))
						.finally(() => (digesting = undefined));
				}, config.digestIntervalSeconds * 1000).unref();
			}
			if (!config.emailSweepSeconds) return;
			const tick = () => {
				if (sweeping) return; // the previous sweep is still sending
				sweeping = Promise.all([sweep(deps, replica), sweepMissed(deps, replica)])
					.catch((err: unknown) => this.logger.error({ err }, "email sweep failed"))
					.finally(() => (sweeping = undefined));
			};
			timer = setInterval(tick, config.emailSweepSeconds * 1000).unref();
			// What fell due while no replica ran goes out now, not at the next tick.
			tick();
		},

		async stopped() {
			clearInterval(timer);
			clearInterval(digestTimer);
			await Promise.all([sweeping, digesting]);
			await Promise.all([...deps.storing]);
			await Promise.all([...(deps.inflight ?? [])]);
			deps.transport?.close();
			await conn?.close();
		},
	} as ServiceSchema;
}
