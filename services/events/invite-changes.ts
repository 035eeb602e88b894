// Zulip's `invites_changed`: a bare event telling administrators and an invitation's creator to
// fetch GET /invites again.
import type { Context } from "moleculer";
import type { InvitesChanged } from "../../shared/org-events";
import type { Deliver } from "./deliver";
import type { QueueRegistry } from "./queues";

export function inviteChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	return {
		"invites.changed"(ctx: Context<InvitesChanged>) {
			deliver([...registry().of(new Set(ctx.params.user_ids))], "invites_changed", () => ({}));
		},
	};
}
