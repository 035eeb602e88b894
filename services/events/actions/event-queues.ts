// POST /register's queue (`events.createQueue`), GET /events (a long poll) and DELETE /events. A
// queue ID names the replica that owns the queue; a request that reaches another replica is
// passed on to the owner.
import { Errors } from "moleculer";
import { requireUser, type Ctx } from "../../../shared/actions";
import { apiError } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { isGuest } from "../../../shared/roles";
import { ownerOf, type QueueOptions, type QueueRegistry } from "../queues";

const badQueue = (queueId: string) => apiError(400, "BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`, { queue_id: queueId });
// Zulip's fetch_events refusals of a last_event_id.
const alreadyPruned = (id: number) => apiError(400, "BAD_REQUEST", `An event newer than ${id} has already been pruned!`);
const notInQueue = (id: number) => apiError(400, "BAD_REQUEST", `Event ${id} was not in this queue`);
// A JsonableError in Zulip's fetch_events, checked before the queue is looked up: no var_name.
const missingLastEventId = () => apiError(400, "BAD_REQUEST", "Missing 'last_event_id' argument");

interface GetParams {
	queue_id: string;
	last_event_id?: number;
	dont_block?: boolean;
}

/** This replica's queues, and how long a long poll waits before a heartbeat. */
export interface QueueDeps {
	queues(): QueueRegistry;
	heartbeatMs: number;
}

export function eventQueueActions({ queues: registry, heartbeatMs }: QueueDeps) {
	/**
	 * Passes a queue's request to the replica that owns it. A replica that is gone, or that fails
	 * to answer, took its queues with it: the client registers again, as after a server restart.
	 */
	async function forward(ctx: Ctx<{ queue_id: string }>, owner: string, action: string, timeout?: number) {
		const node = ctx.broker.registry.nodes.get(owner);
		if (!owner || !node?.available) throw badQueue(ctx.params.queue_id);
		try {
			// The same action on the replica that owns the queue: no call to another service.
			// eslint-disable-next-line no-restricted-syntax
			return await ctx.call(action, ctx.params, { nodeID: owner, timeout });
		} catch (err) {
			if (err instanceof Errors.MoleculerClientError) throw err;
			throw badQueue(ctx.params.queue_id);
		}
	}

	return {
		/** Called by POST /register before it gathers the state, so no event falls in between. */
		createQueue: {
			params: params({
				event_types: p.stringList({ optional: true }),
				narrow: p.list({ type: "any" }, { optional: true }),
				apply_markdown: p.bool({ optional: true }),
				client_gravatar: p.bool({ optional: true }),
				all_public_streams: p.bool({ optional: true }),
				client_capabilities: { type: "record", key: "string", value: "boolean", optional: true },
			}),
			handler(ctx: Ctx<Partial<Omit<QueueOptions, "user_id" | "narrow">> & { narrow?: unknown[]; client_capabilities?: Record<string, boolean> }>) {
				const user = requireUser(ctx);
				// Zulip's rule: anyone who may read public channels without joining them (not guests).
				if (ctx.params.all_public_streams && isGuest(user.role)) throw apiError(400, "BAD_REQUEST", "User not authorized for this query");
				const q = registry().create({
					user_id: user.user_id,
					event_types: ctx.params.event_types ?? null,
					narrow: narrowTerms(ctx.params.narrow ?? []),
					apply_markdown: ctx.params.apply_markdown ?? false,
					client_gravatar: ctx.params.client_gravatar ?? false,
					all_public_streams: ctx.params.all_public_streams ?? false,
					bulk_message_deletion: ctx.params.client_capabilities?.bulk_message_deletion ?? false,
					stream_typing_notifications: ctx.params.client_capabilities?.stream_typing_notifications ?? false,
					include_deactivated_groups: ctx.params.client_capabilities?.include_deactivated_groups ?? false,
					archived_channels: ctx.params.client_capabilities?.archived_channels ?? false,
					simplified_presence_events: ctx.params.client_capabilities?.simplified_presence_events ?? false,
				});
				return { queue_id: q.id, last_event_id: q.lastEventId };
			},
		},

		/** GET /events: the events after last_event_id, waiting for one unless dont_block. */
		get: {
			// Longer than a heartbeat period, so a long poll ends with an answer, not a timeout
			// (Moleculer reads an action's own timeout; its types do not declare it).
			...({ timeout: heartbeatMs + 30_000 } as object),
			params: params({ queue_id: p.string(), last_event_id: p.int({ optional: true, min: -1 }), dont_block: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<GetParams>) {
				const user = requireUser(ctx);
				const { queue_id, last_event_id: last } = ctx.params;
				if (last === undefined) throw missingLastEventId();
				const owner = ownerOf(queue_id);
				if (owner !== ctx.broker.nodeID) {
					return forward(ctx, owner, "events.get", heartbeatMs + 20_000);
				}
				const q = registry().get(queue_id);
				if (!q || q.options.user_id !== user.user_id) throw badQueue(queue_id);
				const refused = q.acknowledge(last);
				if (refused) throw refused === "pruned" ? alreadyPruned(last) : notInQueue(last);
				let events = q.after(last);
				if (!events.length && !ctx.params.dont_block) {
					await q.wait(heartbeatMs);
					if (registry().get(queue_id) !== q) throw badQueue(queue_id);
					events = q.after(last);
					// Nothing in a whole period: a heartbeat, so the client knows the queue lives.
					if (!events.length && !q.waiting()) {
						q.push({ type: "heartbeat" });
						events = q.after(last);
					}
				}
				return { events, queue_id };
			},
		},

		/** DELETE /events. */
		delete: {
			params: params({ queue_id: p.string() }),
			async handler(ctx: Ctx<{ queue_id: string }>) {
				const user = requireUser(ctx);
				const { queue_id } = ctx.params;
				const owner = ownerOf(queue_id);
				if (owner !== ctx.broker.nodeID) {
					return forward(ctx, owner, "events.delete");
				}
				const q = registry().get(queue_id);
				if (!q || q.options.user_id !== user.user_id) throw badQueue(queue_id);
				registry().delete(queue_id);
				return {};
			},
		},
	};
}

/** A register narrow as terms: Zulip takes [operator, operand] pairs or {operator, operand} objects. */
function narrowTerms(raw: unknown[]): QueueOptions["narrow"] {
	return raw.map((t) => {
		if (Array.isArray(t) && t.length === 2 && typeof t[0] === "string") return { operator: t[0], operand: t[1] };
		if (t && typeof t === "object" && typeof (t as { operator?: unknown }).operator === "string") {
			const o = t as { operator: string; operand: unknown; negated?: boolean };
			return { operator: o.operator, operand: o.operand, negated: !!o.negated };
		}
		throw apiError(400, "BAD_REQUEST", "Invalid narrow");
	});
}
