// The events service: Zulip's real-time event queues. POST /register creates a queue here
// (`events.createQueue`; GET /events without a queue ID does too, with dont_block), GET /events
// long-polls it and DELETE /events removes it. Each replica
// keeps its own queues in memory and hears every domain event the other services broadcast,
// keeping what its queues want; a queue ID names the replica that owns it, and a request that
// reaches another replica is passed on to the owner. A replica that stops loses its queues: their
// clients get BAD_EVENT_QUEUE_ID and register again, as Zulip clients do. So does a client whose
// queue holds EVENT_QUEUE_MAX_EVENTS unread events when another arrives: the queue is dropped.
import type { ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import type { Deliver } from "./deliver";
import { messageEventHandlers } from "./message-events";
import { messageChanges } from "./message-changes";
import { orgChangeHandlers } from "./org-changes";
import { realmChangeHandlers } from "./realm-changes";
import { inviteChangeHandlers } from "./invite-changes";
import { settingsChangeHandlers } from "./settings-changes";
import { presenceChangeHandlers } from "./presence-changes";
import { exportChangeHandlers } from "./export-changes";
import { attachmentChangeHandlers } from "./attachment-changes";
import { QueueRegistry } from "./queues";
import { eventQueueActions } from "./actions/event-queues";

export function eventsService(config: Config): ServiceSchema {
	const heartbeatMs = config.eventsHeartbeatSeconds * 1000;
	let queues: QueueRegistry;
	let sweeper: NodeJS.Timeout | undefined;

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

		actions: eventQueueActions({ queues: () => queues, heartbeatMs }),

		events: {
			// The domain events, grouped in the modules beside this one: each a map of handlers built
			// from `deliver` and `queues`. The endpoints are in actions/event-queues.ts.
			...messageEventHandlers(() => queues, deliver),
			...messageChanges(() => queues, deliver),
			...orgChangeHandlers(() => queues, deliver),
			...realmChangeHandlers(() => queues, deliver),
			...inviteChangeHandlers(() => queues, deliver),
			...settingsChangeHandlers(() => queues, deliver),
			...presenceChangeHandlers(() => queues, deliver),
			...exportChangeHandlers(() => queues, deliver),
			...attachmentChangeHandlers(() => queues, deliver),
		},
	};
}
