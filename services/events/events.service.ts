// The events service: Zulip's real-time event queues. POST /register creates a queue here
// (`events.createQueue`), GET /events long-polls it and DELETE /events removes it. Each replica
// keeps its own queues in memory and hears every domain event the other services broadcast,
// keeping what its queues want; a queue ID names the replica that owns it, and a request that
// reaches another replica is passed on to the owner. A replica that stops loses its queues: their
// clients get BAD_EVENT_QUEUE_ID and register again, as Zulip clients do. So does a client whose
// queue holds EVENT_QUEUE_MAX_EVENTS unread events when another arrives: the queue is dropped.
import { Errors, type Context, type ServiceSchema } from "moleculer";
import { requireUser, type Meta } from "../../shared/actions";
import type { Config } from "../../shared/config";
import { apiError } from "../../shared/errors";
import { p, params } from "../../shared/params";
import { isGuest } from "../../shared/roles";
import { flagsEvent, messageEvent, personalEvent, reactionEvent, type Deliver, type MessageSent } from "./deliver";
import { messageChanges } from "./message-changes";
import { orgChangeHandlers } from "./org-changes";
import { realmChangeHandlers } from "./realm-changes";
import { inviteChangeHandlers } from "./invite-changes";
import { settingsChangeHandlers } from "./settings-changes";
import { ownerOf, QueueRegistry, type QueueOptions } from "./queues";

type Ctx<P = unknown> = Context<P, Meta>;

const badQueue = (queueId: string) => apiError(400, "BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`, { queue_id: queueId });

interface GetParams {
	queue_id: string;
	last_event_id?: number;
	dont_block?: boolean;
}

export function eventsService(config: Config): ServiceSchema {
	const heartbeatMs = config.eventsHeartbeatSeconds * 1000;
	let queues: QueueRegistry;
	let sweeper: NodeJS.Timeout | undefined;

	/**
	 * Passes a queue's request to the replica that owns it. A replica that is gone, or that fails
	 * to answer, took its queues with it: the client registers again, as after a server restart.
	 */
	async function forward(ctx: Ctx<{ queue_id: string }>, owner: string, action: string, timeout?: number) {
		const node = ctx.broker.registry.nodes.get(owner);
		if (!owner || !node?.available) throw badQueue(ctx.params.queue_id);
		try {
			return await ctx.call(action, ctx.params, { nodeID: owner, timeout });
		} catch (err) {
			if (err instanceof Errors.MoleculerClientError) throw err;
			throw badQueue(ctx.params.queue_id);
		}
	}

	/** Delivers one event to each of these queues that wants its type. */
	const deliver: Deliver = (targets, type, event) => {
		let built: Record<string, unknown> | undefined;
		for (const q of targets) {
			if (!q.wants(type)) continue;
			built ??= event();
			q.push({ ...built, type });
		}
	};

	return {
		name: "events",

		created() {
			queues = new QueueRegistry(this.broker.nodeID, config.eventQueueTimeoutSeconds * 1000, config.eventQueueMaxEvents, (q) =>
				this.logger.warn({ queue_id: q.id, user_id: q.options.user_id, max_events: config.eventQueueMaxEvents }, "event queue dropped: too many unread events"),
			);
		},
		started() {
			sweeper = setInterval(() => queues.expire(), Math.min(10_000, (config.eventQueueTimeoutSeconds * 1000) / 2));
			sweeper.unref();
		},
		stopped() {
			clearInterval(sweeper);
			queues.close();
		},

		actions: {
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
					const q = queues.create({
						user_id: user.user_id,
						event_types: ctx.params.event_types ?? null,
						narrow: narrowTerms(ctx.params.narrow ?? []),
						apply_markdown: ctx.params.apply_markdown ?? false,
						client_gravatar: ctx.params.client_gravatar ?? false,
						all_public_streams: ctx.params.all_public_streams ?? false,
						bulk_message_deletion: ctx.params.client_capabilities?.bulk_message_deletion ?? false,
						stream_typing_notifications: ctx.params.client_capabilities?.stream_typing_notifications ?? false,
						include_deactivated_groups: ctx.params.client_capabilities?.include_deactivated_groups ?? false,
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
					const { queue_id } = ctx.params;
					const owner = ownerOf(queue_id);
					if (owner !== this.broker.nodeID) {
						return forward(ctx, owner, "events.get", heartbeatMs + 20_000);
					}
					const q = queues.get(queue_id);
					if (!q || q.options.user_id !== user.user_id) throw badQueue(queue_id);
					const last = ctx.params.last_event_id ?? -1;
					let events = q.take(last);
					if (!events.length && !ctx.params.dont_block) {
						await q.wait(heartbeatMs);
						if (queues.get(queue_id) !== q) throw badQueue(queue_id);
						events = q.take(last);
						// Nothing in a whole period: a heartbeat, so the client knows the queue lives.
						if (!events.length && !q.waiting()) {
							q.push({ type: "heartbeat" });
							events = q.take(last);
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
					if (owner !== this.broker.nodeID) {
						return forward(ctx, owner, "events.delete");
					}
					const q = queues.get(queue_id);
					if (!q || q.options.user_id !== user.user_id) throw badQueue(queue_id);
					queues.delete(queue_id);
					return {};
				},
			},
		},

		events: {
			// More domain events are added by the modules beside this one, each a map of handlers
			// built from `deliver` and `queues` (see message-changes.ts and org-changes.ts).
			"message.sent"(ctx: Context<MessageSent>) {
				const recipients = new Set(ctx.params.user_ids ?? []);
				for (const q of queues.of(recipients)) {
					const event = messageEvent(q, ctx.params);
					if (event) q.push(event);
				}
				// A public channel's message also reaches the all_public_streams queues of the others (no flags).
				if (!ctx.params.public_channel) return;
				for (const q of queues.allPublicStreams()) {
					if (recipients.has(q.options.user_id)) continue;
					const event = messageEvent(q, ctx.params);
					if (event) q.push(event);
				}
			},
			"messages.flagsChanged"(ctx: Context<{ user_id: number; op: string; flag: string; message_ids: number[]; all: boolean }>) {
				deliver(queues.of([ctx.params.user_id]), "update_message_flags", () => flagsEvent(ctx.params));
			},
			"messages.reactionChanged"(ctx: Context<Record<string, unknown> & { user_ids?: number[] }>) {
				deliver(queues.of(ctx.params.user_ids ?? []), "reaction", () => reactionEvent(ctx.params));
			},
			"messages.draftsChanged"(ctx: Context<Record<string, unknown> & { user_id: number }>) {
				deliver(queues.of([ctx.params.user_id]), "drafts", () => personalEvent("drafts", ctx.params));
			},
			"messages.savedSnippetsChanged"(ctx: Context<Record<string, unknown> & { user_id: number }>) {
				deliver(queues.of([ctx.params.user_id]), "saved_snippets", () => personalEvent("saved_snippets", ctx.params));
			},
			...messageChanges(() => queues, deliver),
			...orgChangeHandlers(() => queues, deliver),
			...realmChangeHandlers(() => queues, deliver),
			...inviteChangeHandlers(() => queues, deliver),
			...settingsChangeHandlers(() => queues, deliver),
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
