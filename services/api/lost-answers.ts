// A write whose answer was lost. The gateway answers 503 only when a write certainly did not
// happen: no replica to call (SERVICE_NOT_AVAILABLE), or the service's own refusal. When the call
// was published and its answer never came (the replica died: REQUEST_REJECTED; the NATS connection
// dropped, which rejects every call in flight; a timeout), the write may have been done. Then:
// - an action that honours the call's request key (one marked `requestKeyed`, whose service
//   records keys and answers, shared/request-records.ts, or one of OWN_KEYS, which stores the key
//   with its write) is called again with the same key, once a replica of it is reachable again
//   (at most RETRY_WAIT_MS): the answer is the write's, done once;
// - any other write, or one whose replica does not come back in time, is answered 504
//   OUTCOME_UNKNOWN: the request reached the server and whether it was carried out is unknown.
import { randomUUID } from "node:crypto";
import type { ServiceBroker } from "moleculer";
import { outcomeUnknown } from "../../shared/errors";
import { transportUp } from "../../shared/transport-recovery";
import { OWN_KEYS } from "../../shared/request-records";

/** How long a keyed write waits for a reachable replica before its outcome is answered unknown. */
const RETRY_WAIT_MS = 10_000;
const POLL_MS = 100;

/**
 * Whether the call of `action` may have run: it was sent, and its answer never came. The same
 * errors from a call that action made (its data names another action) are its own failure, as
 * any other error it answers.
 */
export function answerLost(err: unknown, action: string): boolean {
	const e = err as { type?: string; data?: { action?: string } } | null;
	return (e?.type === "REQUEST_REJECTED" || e?.type === "REQUEST_TIMEOUT") && e.data?.action === action;
}

/** A new request key for a write's call of `action`, for its meta: it names the action, so the calls that one makes ignore it. */
export const requestKey = (action: string) => `${action}:${randomUUID()}`;

/** Whether a replica of the action given by its endpoint answers a repeated request key with the first call's outcome. */
export const honoursKeys = (endpoint: { action: { name: string; requestKeyed?: boolean } }) => !!endpoint.action.requestKeyed || OWN_KEYS.has(endpoint.action.name);

/** Whether this node can reach a replica of `action` (its NATS connection up and the action listed). */
function reachable(broker: ServiceBroker, action: string): boolean {
	return transportUp(broker) && !((broker as unknown as { findNextActionEndpoint(a: string): unknown }).findNextActionEndpoint(action) instanceof Error);
}

/**
 * Runs a write's call; when its answer is lost, calls a keyed write again (`call(true)`: the same
 * meta, so the same key, to any replica) once a replica is reachable, else answers OUTCOME_UNKNOWN.
 */
export async function callWrite<T>(broker: ServiceBroker, action: string, keyed: boolean, call: (again: boolean) => Promise<T>): Promise<T> {
	try {
		return await call(false);
	} catch (err) {
		if (!answerLost(err, action)) throw err;
		if (!keyed) throw outcomeUnknown();
		for (const until = Date.now() + RETRY_WAIT_MS; !reachable(broker, action); ) {
			if (Date.now() >= until) throw outcomeUnknown();
			await new Promise((r) => setTimeout(r, POLL_MS));
		}
		broker.logger.info(`The answer of ${action} was lost (${(err as Error).name}): called again with the same request key`);
		try {
			return await call(true);
		} catch (again) {
			throw answerLost(again, action) ? outcomeUnknown() : again;
		}
	}
}
