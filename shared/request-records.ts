// A write the gateway may call again after losing its answer (services/api/lost-answers.ts) is
// done once. The gateway gives each write's call a request key (`<action>:<random ID>`, the same
// when it calls again); on the node, before a keyed action runs, the key is inserted into the
// service's own `requests` collection as "pending" (a unique insert on _id: atomic on every
// store, no upsert), and after the action succeeds its answer is recorded there ("done"). A call
// whose key is already there does not run: it is answered the recorded answer, waiting up to
// DUPLICATE_WAIT_MS while the first call is still running. If the first failed, its key was
// removed, and the repeat runs. If it is still pending after the wait (its replica died mid-write,
// or it is slow), the outcome is unknown: 504 OUTCOME_UNKNOWN, never the 503 that means "not done".
// Keys are kept RECORD_MS and pruned by each service at most once a minute (the embedded store
// has no TTL indexes).
//
// Which actions: every action of a service with a database that is not a read (RETRIED_ACTIONS)
// and does not keep keys of its own (OWN_KEYS: messages.send stores the key on the message, in
// the same write). markKeyed() marks them `requestKeyed` in their schema, a mark that travels
// with the action's description to the gateway, which calls a marked action again after a lost
// answer and answers OUTCOME_UNKNOWN for any other write. A nested call (another action the
// keyed one calls) carries the meta too, but the key names the action it is for: only that one
// honours it.
import type { Connection, Collection } from "mongoose";
import type { Middleware, ServiceSchema } from "moleculer";
import { isDuplicateKey, serviceConnection } from "./db";
import { outcomeUnknown } from "./errors";

/** The actions that keep request keys with their own writes (the gateway treats them as keyed). */
export const OWN_KEYS = new Set(["messages.send"]);

const RECORD_MS = 3_600_000;
const DUPLICATE_WAIT_MS = 5_000;
const POLL_MS = 100;
const PRUNE_EVERY_MS = 60_000;

interface RequestDoc {
	_id: string;
	state: "pending" | "done";
	/** The answer as JSON, as it crossed the bus ("null" for none). */
	answer?: string;
	expires: number;
}

const pruned = new WeakMap<Connection, number>();

function requestsOf(conn: Connection): Collection<RequestDoc> {
	const requests = conn.collection<RequestDoc>("requests");
	const now = Date.now();
	if ((pruned.get(conn) ?? 0) + PRUNE_EVERY_MS <= now) {
		// The index that serves the pruning, created (idempotent) before this process's first.
		const indexed = pruned.has(conn) ? Promise.resolve() : requests.createIndex({ expires: 1 });
		pruned.set(conn, now);
		void indexed.then(() => requests.deleteMany({ expires: { $lte: now } })).catch(() => undefined);
	}
	return requests;
}

/** Marks the actions of a service with a database that the request records cover (see above). */
export function markKeyed(schema: ServiceSchema, reads: ReadonlySet<string>): ServiceSchema {
	const actions = schema.actions ?? {};
	for (const [name, action] of Object.entries(actions)) {
		const full = `${schema.name}.${name}`;
		if (reads.has(full) || OWN_KEYS.has(full) || !action || typeof action !== "object") continue;
		actions[name] = { ...action, requestKeyed: true } as typeof action;
	}
	return schema;
}

/** What the first call with `key` left: its answer, "gone" (it failed), or "pending" after the wait. */
async function firstOutcome(requests: Collection<RequestDoc>, key: string): Promise<{ answer: unknown } | "gone" | "pending"> {
	for (const until = Date.now() + DUPLICATE_WAIT_MS; ; ) {
		const doc = await requests.findOne({ _id: key });
		if (!doc) return "gone";
		if (doc.state === "done") return { answer: (JSON.parse(doc.answer ?? "null") as unknown) ?? undefined };
		if (Date.now() >= until) return "pending";
		await new Promise((r) => setTimeout(r, POLL_MS));
	}
}

type Handler = (ctx: { meta?: { request_key?: unknown } }) => Promise<unknown>;

/** The middleware: runs a marked action once per request key. */
export function requestRecords(): Middleware {
	return {
		name: "RequestRecords",
		localAction(next: Handler, action: { name: string; requestKeyed?: boolean; service?: { broker?: { namespace?: string }; name?: string } }) {
			if (!action.requestKeyed) return next;
			return async (ctx: Parameters<Handler>[0]) => {
				const key = ctx.meta?.request_key;
				const conn = serviceConnection(`${action.service?.broker?.namespace}_${action.service?.name}`);
				if (typeof key !== "string" || !key.startsWith(`${action.name}:`) || !conn) return next(ctx);
				const requests = requestsOf(conn);
				for (;;) {
					try {
						await requests.insertOne({ _id: key, state: "pending", expires: Date.now() + RECORD_MS });
						break;
					} catch (err) {
						if (!isDuplicateKey(err)) throw err;
					}
					const first = await firstOutcome(requests, key);
					if (first === "pending") throw outcomeUnknown();
					if (first !== "gone") return first.answer;
				}
				let answer: unknown;
				try {
					answer = await next(ctx);
				} catch (err) {
					await requests.deleteOne({ _id: key }).catch(() => undefined);
					throw err;
				}
				await requests.updateOne({ _id: key }, { $set: { state: "done", answer: JSON.stringify(answer ?? null) } });
				return answer;
			};
		},
	} as unknown as Middleware;
}
