// The notifications service: what reaches people who are away. Email: the outbox (its own
// database, `<prefix>_notifications`), delivery over SMTP (SMTP_URL) or into EMAIL_DIR, dead
// letters, new-login emails, missed-message emails, weekly digests and unsubscribe links. Mobile
// push through Zulip's push notification bouncer (PUSH_NOTIFICATION_BOUNCER_URL): device
// registrations, the missed-message decision's pushes (an edit's new mentions too) and their
// removal when read, deleted, or no longer mentioning the user. This file wires the service, its
// listeners and its timers (EMAIL_SWEEP_SECONDS: the outbox and the due missed-message batches;
// DIGEST_INTERVAL_SECONDS; PUSH_SWEEP_SECONDS: the bouncer requests); the actions are in actions/,
// the outbox and its delivery in outbox/, the emails in templates/, login-notice/ and digest/,
// missed messages in missed/, unsubscribing in unsubscribe/, push in push/.
import { randomBytes } from "node:crypto";
import type { Connection } from "mongoose";
import type { Context, ServiceSchema } from "moleculer";
import { pushConfigured, type Config } from "../../shared/config";
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
import { pushActions, pushEvents } from "./actions/push";
import { pushJobModel, pushSentModel } from "./models/push-job";
import { sweepPush, type PushDeps } from "./push/jobs";
import { bouncerPushHook } from "./push/message-push";
import { keepUntilSettled } from "./background";

type Listeners = Record<string, (ctx: Context<any>) => void>;

/** The missed-message and push listeners; an event both hear (an edit) calls each in turn. */
function bothHalves(missed: Listeners, push: Listeners): Listeners {
	const out: Listeners = { ...missed, ...push };
	for (const name of Object.keys(missed).filter((n) => n in push)) {
		out[name] = (ctx) => {
			missed[name](ctx);
			push[name](ctx);
		};
	}
	return out;
}

/**
 * `cli`: the node of `npm run manage`, which reads the outbox and sends nothing. `pushDue`: where
 * the push half of the missed-message decision goes (missed/push-hook.ts); by default the bouncer
 * (push/message-push.ts) when PUSH_NOTIFICATION_BOUNCER_URL is set, else nowhere.
 */
export function notificationsService(config: Config & { mongoUrl: string; cli?: boolean }, pushDue?: PushHook): ServiceSchema {
	let conn: Connection;
	let timer: NodeJS.Timeout | undefined;
	let digestTimer: NodeJS.Timeout | undefined;
	let sweeping: Promise<unknown> | undefined;
	let digesting: Promise<unknown> | undefined;
	let pushTimer: NodeJS.Timeout | undefined;
	let pushSweeping: Promise<unknown> | undefined;
	// This replica's name in claims: the node and a random part (several may share a node in tests).
	let replica = "";
	const push = { replica: () => replica, inflight: new Set() } as unknown as PushDeps;
	// Without a bouncer no push hook listens, so push-only decisions are not even stored.
	const hook = pushDue ?? (pushConfigured(config) ? bouncerPushHook(push) : noPush);
	const deps = { replica: () => replica, inflight: new Set(), storing: new Set(), pushDue: hook } as unknown as MissedDeps;
	/** Work a broadcast set off (not awaited by it): a sweep or a stop waits for it. */
	const track = (work: Promise<unknown>) => keepUntilSettled(deps.storing, work);

	return {
		name: "notifications",
		actions: {
			...emailActions(deps),
			...outboxActions(deps),
			...unsubscribeActions(deps),
			...missedActions(deps),
			...digestActions(deps),
			...pushActions(push),
		},

		events: config.cli ? {} : bothHalves(missedEvents(deps), pushEvents(push, track)),

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
			Object.assign(push, {
				broker: this.broker,
				logger: this.logger,
				Job: pushJobModel(conn),
				Sent: pushSentModel(conn),
				bouncer: pushConfigured(config) ? { url: config.pushBouncerUrl, orgId: config.zulipOrgId, orgKey: config.zulipOrgKey } : null,
				server: new URL(config.externalUrl).host,
				maxAttempts: config.pushMaxAttempts,
				retrySeconds: config.pushRetrySeconds,
			} satisfies Partial<PushDeps>);
			await ensureIndexes(conn);
			this.logger.info(`email goes ${config.smtpUrl ? "out over SMTP" : `into ${config.emailDir}`}`);
			this.logger.info(push.bouncer ? `push notifications go through the bouncer at ${config.pushBouncerUrl}` : "push notifications are off (no PUSH_NOTIFICATION_BOUNCER_URL)");
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
			if (push.bouncer && config.pushSweepSeconds) {
				const pushTick = () => {
					if (pushSweeping) return; // the previous sweep is still sending
					pushSweeping = sweepPush(push, replica)
						.catch((err: unknown) => this.logger.error({ err }, "push sweep failed"))
						.finally(() => (pushSweeping = undefined));
				};
				pushTimer = setInterval(pushTick, config.pushSweepSeconds * 1000).unref();
				pushTick();
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
			clearInterval(pushTimer);
			await Promise.all([sweeping, digesting, pushSweeping]);
			await Promise.all([...deps.storing]);
			await Promise.all([...(deps.inflight ?? []), ...(push.inflight ?? [])]);
			deps.transport?.close();
			await conn?.close();
		},
	} as ServiceSchema;
}
