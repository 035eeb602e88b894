// Zulip's `presence` event: a user came back online (or switched presence_enabled). Queues
// registered with the simplified_presence_events capability get the modern form, keyed by user
// ID; the others the legacy form, by client name.
import type { Context } from "moleculer";
import type { PresenceChanged } from "../../shared/org-events";
import type { Deliver } from "./deliver";
import type { QueueRegistry } from "./queues";

export function presenceChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	return {
		"users.presenceChanged"(ctx: Context<PresenceChanged>) {
			const p = ctx.params;
			const queues = [...registry().of(new Set(p.user_ids))];
			deliver(
				queues.filter((q) => !q.options.simplified_presence_events),
				"presence",
				() => ({ email: p.email, user_id: p.user_id, server_timestamp: p.server_timestamp, presence: p.presence }),
			);
			deliver(
				queues.filter((q) => q.options.simplified_presence_events),
				"presence",
				() => ({ presences: { [String(p.user_id)]: p.modern } }),
			);
		},
	};
}
