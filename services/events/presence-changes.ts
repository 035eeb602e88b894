// Zulip's `presence` event: a user came back online (or switched presence_enabled). Queues
// registered with the simplified_presence_events capability get the modern form, keyed by user
// ID; the others the legacy form, by client name. And Zulip's `user_status` event: a user set a status.
import type { Context } from "moleculer";
import type { PresenceChanged, UserStatusChanged } from "../../shared/org-events";
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
		"users.statusChanged"(ctx: Context<UserStatusChanged>) {
			const { user_id, status, user_ids } = ctx.params;
			deliver(registry().of(new Set(user_ids)), "user_status", () => ({ user_id, ...status }));
		},
	};
}
