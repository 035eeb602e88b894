// POST /register's queue (`events.createQueue`), GET /events (a long poll) and DELETE /events. A
// queue ID names the replica that owns the queue; a request that reaches another replica is
// passed on to the owner. GET /events without a queue ID allocates a queue on the replica that
// answers, as Zulip's get_events_backend does with dont_block.
import { Errors } from "moleculer";
import { requireUser, type Ctx, type Identity } from "../../../shared/actions";
import { apiError } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { IDENTIFIER_MAX, eventTypesParam } from "../../../shared/param-bounds";
import { isGuest } from "../../../shared/roles";
import { ownerOf, type Queue, type QueueOptions, type QueueRegistry } from "../queues";

const badQueue = (queueId: string) => apiError(400, "BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`, { queue_id: queueId });
// Zulip's fetch_events refusals of a last_event_id.
const alreadyPruned = (id: number) => apiError(400, "BAD_REQUEST", `An event newer than ${id} has already been pruned!`);
const notInQueue = (id: number) => apiError(400, "BAD_REQUEST", `Event ${id} was not in this queue`);
// JsonableErrors in Zulip's fetch_events, checked before the queue is looked up: no var_name.
const missingLastEventId = () => apiError(400, "BAD_REQUEST", "Missing 'last_event_id' argument");
const missingQueueId = () => apiError(400, "BAD_REQUEST", "Missing 'queue_id' argument");
const notAuthorized = () => apiError(400, "BAD_REQUEST", "User not authorized for this query");
/** The operators a queue's narrow may use (Zulip's check_narrow_for_events). */
const EVENT_NARROW_OPERATORS = new Set(["channel", "stream", "topic", "sender", "is"]);

/** A new queue's options, from POST /register or from GET /events without a queue ID. */
type NewQueue = Partial<Omit<QueueOptions, "user_id" | "narrow">> & { narrow: QueueOptions["narrow"] };

const flag = () => p.bool({ optional: true });

interface GetParams {
	queue_id?: string;
	last_event_id?: number;
	dont_block?: boolean;
	// A new queue's options, read only without queue_id (Zulip's intentionally undocumented ones).
	event_types?: string[];
	narrow?: string[][];
	apply_markdown?: boolean;
	client_gravatar?: boolean;
	all_public_streams?: boolean;
	lifespan_secs?: number;
	bulk_message_deletion?: boolean;
	stream_typing_notifications?: boolean;
	include_deactivated_groups?: boolean;
	archived_channels?: boolean;
	simplified_presence_events?: boolean;
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
	async function forward(ctx: Ctx<{ queue_id?: string }>, queueId: string, owner: string, action: string, timeout?: number) {
		const node = ctx.broker.registry.nodes.get(owner);
		if (!owner || !node?.available) throw badQueue(queueId);
		try {
			// The same action on the replica that owns the queue: no call to another service.
			// eslint-disable-next-line no-restricted-syntax
			return await ctx.call(action, ctx.params, { nodeID: owner, timeout });
		} catch (err) {
			if (err instanceof Errors.MoleculerClientError) throw err;
			throw badQueue(queueId);
		}
	}

	/** A new queue on this replica; anyone but a guest may ask for all_public_streams (Zulip's rule). */
	function allocate(user: Identity, o: NewQueue): Queue {
		if (o.all_public_streams && isGuest(user.role)) throw notAuthorized();
		return registry().create({
			user_id: user.user_id,
			event_types: o.event_types ?? null,
			narrow: o.narrow,
			apply_markdown: o.apply_markdown ?? false,
			client_gravatar: o.client_gravatar ?? false,
			all_public_streams: o.all_public_streams ?? false,
			bulk_message_deletion: o.bulk_message_deletion ?? false,
			stream_typing_notifications: o.stream_typing_notifications ?? false,
			include_deactivated_groups: o.include_deactivated_groups ?? false,
			archived_channels: o.archived_channels ?? false,
			simplified_presence_events: o.simplified_presence_events ?? false,
			lifespan_secs: o.lifespan_secs,
		});
	}

	return {
		/** Called by POST /register before it gathers the state, so no event falls in between. */
		createQueue: {
			params: params({
				event_types: eventTypesParam,
				narrow: p.list({ type: "any" }, { optional: true }),
				apply_markdown: p.bool({ optional: true }),
				client_gravatar: p.bool({ optional: true }),
				all_public_streams: p.bool({ optional: true }),
				client_capabilities: { type: "record", key: "string", value: "boolean", optional: true },
				lifespan_secs: p.int({ optional: true, min: 0 }),
			}),
			handler(ctx: Ctx<Partial<Omit<QueueOptions, "user_id" | "narrow">> & { narrow?: unknown[]; client_capabilities?: Record<string, boolean> }>) {
				const { client_capabilities: caps, narrow, ...o } = ctx.params;
				const q = allocate(requireUser(ctx), {
					...o,
					narrow: checkEventsNarrow(narrowTerms(narrow ?? [])),
					bulk_message_deletion: caps?.bulk_message_deletion,
					stream_typing_notifications: caps?.stream_typing_notifications,
					include_deactivated_groups: caps?.include_deactivated_groups,
					archived_channels: caps?.archived_channels,
					simplified_presence_events: caps?.simplified_presence_events,
				});
				return { queue_id: q.id, last_event_id: q.lastEventId };
			},
		},

		/** GET /events: the events after last_event_id, waiting for one unless dont_block. */
		get: {
			// Longer than a heartbeat period, so a long poll ends with an answer, not a timeout
			// (Moleculer reads an action's own timeout; its types do not declare it).
			...({ timeout: heartbeatMs + 30_000 } as object),
			params: params({
				queue_id: p.string({ optional: true, max: IDENTIFIER_MAX }),
				last_event_id: p.int({ optional: true, min: -1 }),
				dont_block: flag(),
				event_types: eventTypesParam,
				narrow: p.list(p.stringList(), { optional: true }),
				apply_markdown: flag(),
				client_gravatar: flag(),
				all_public_streams: flag(),
				lifespan_secs: p.int({ optional: true, min: 0 }),
				bulk_message_deletion: flag(),
				stream_typing_notifications: flag(),
				include_deactivated_groups: flag(),
				archived_channels: flag(),
				simplified_presence_events: flag(),
				// Accepted as Zulip accepts them, with no effect on a queue here.
				slim_presence: flag(),
				pronouns_field_type_supported: flag(),
				linkifier_url_template: flag(),
				user_list_incomplete: flag(),
				empty_topic_name: flag(),
				user_client: p.string({ optional: true, max: IDENTIFIER_MAX }),
			}),
			async handler(ctx: Ctx<GetParams>) {
				const user = requireUser(ctx);
				const { queue_id, last_event_id: last, ...o } = ctx.params;
				// Zulip's view checks this first, whether or not a queue is named.
				if (o.all_public_streams && isGuest(user.role)) throw notAuthorized();
				if (queue_id === undefined) {
					// Zulip's fetch_events: a queue made on the fly, answered at once (so empty).
					if (!o.dont_block) throw missingQueueId();
					const q = allocate(user, { ...o, narrow: checkEventsNarrow(narrowTerms(o.narrow ?? [])) });
					return { events: q.after(-1), queue_id: q.id };
				}
				if (last === undefined) throw missingLastEventId();
				const owner = ownerOf(queue_id);
				if (owner !== ctx.broker.nodeID) {
					return forward(ctx, queue_id, owner, "events.get", heartbeatMs + 20_000);
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
			params: params({ queue_id: p.string({ max: IDENTIFIER_MAX }) }),
			async handler(ctx: Ctx<{ queue_id: string }>) {
				const user = requireUser(ctx);
				const { queue_id } = ctx.params;
				const owner = ownerOf(queue_id);
				if (owner !== ctx.broker.nodeID) {
					return forward(ctx, queue_id, owner, "events.delete");
				}
				const q = registry().get(queue_id);
				if (!q || q.options.user_id !== user.user_id) throw badQueue(queue_id);
				registry().delete(queue_id);
				return {};
			},
		},
	};
}

/** Zulip's check_narrow_for_events, for GET /events' narrow and POST /register's alike. */
function checkEventsNarrow(terms: QueueOptions["narrow"]): QueueOptions["narrow"] {
	for (const { operator, operand } of terms) {
		if (!EVENT_NARROW_OPERATORS.has(operator)) throw apiError(400, "BAD_REQUEST", `Operator ${operator} not supported.`);
		if (operator === "is" && operand === "followed") throw apiError(400, "BAD_REQUEST", `Operand ${operand} not supported.`);
	}
	return terms;
}

/**
 * A narrow as terms: [operator, operand] pairs (GET /events' only form) or, for POST /register,
 * {operator, operand} objects; anything else (a 500 in Zulip) is "Invalid narrow".
 */
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
