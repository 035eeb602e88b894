// Requests fail fast while the node's own embedded store is down (between its unexpected exit and
// its restart, shared/store.ts): each action of a service with a database on this node answers
// 503 SERVICE_UNAVAILABLE with Retry-After at once, where it would otherwise wait for the driver's
// server selection (15 s) and then fail. A call that was running when the store went away and
// fails for it (a write cut off, a pool cleared) answers the same 503, made here where the
// driver's error is at hand: over the bus only its name would travel (a MongoBulkWriteError
// wrapping the network error would be a 500 at the gateway).
//
// Decision: a broker middleware on the node that runs the store, not a check in the gateway. The
// node that knows the store is down is the one that supervises it, and in a cluster the gateway
// is often another process; the error is a Moleculer client error, so it crosses the bus intact
// and the gateway renders it as it renders any other (shared/errors.ts). Only local actions of the
// services named are refused: the gateway, the events service and the broker's own `$node`
// actions, which need no store, go on.
import type { Middleware } from "moleculer";
import { apiError, databaseUnavailable } from "./errors";

/** What a refused call answers: a client should retry after a second or so (the first restart comes after 100 ms). */
export const storeUnavailable = () => apiError(503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable", { "retry-after": 1 });

/** The middleware: the actions of `services` refuse while `storeDown()` says so. */
export function storeGuard(services: ReadonlySet<string>, storeDown: () => boolean): Middleware {
	return {
		name: "StoreGuard",
		localAction(next: (ctx: unknown) => Promise<unknown>, action: { service?: { name?: string } }) {
			if (!services.has(action.service?.name ?? "")) return next;
			return (ctx: unknown) => {
				if (storeDown()) return Promise.reject(storeUnavailable());
				return next(ctx).catch((err: unknown) => {
					// Any driver error while the store is down is the store's absence.
					if (databaseUnavailable(err) || (storeDown() && String((err as Error | null)?.name).startsWith("Mongo"))) throw storeUnavailable();
					throw err;
				});
			};
		},
	} as Middleware;
}
