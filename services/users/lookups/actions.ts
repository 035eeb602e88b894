// What other services ask of the users service: users named by ID or email (principals, narrow
// operands), the users a message mentions, Notification Bot, and the group graph their
// permission checks use.
import type { Identity } from "../../../shared/actions";
import type { GroupGraphData } from "../../../shared/group-settings";
import { p, params } from "../../../shared/params";
import { notificationBot } from "../accounts/system-bots";
import { graphData } from "../groups/user-group-rules";
import { mentionedUsers, usersByNarrowOperand, usersByPrincipal } from "../user-lookup";
import type { Ctx, ServiceDeps } from "../deps";

export function lookupActions({ db, identity }: ServiceDeps) {
	return {
		/**
		 * Principals (user IDs or emails) as the users they name; unknown or deactivated users
		 * are an error, as the subscription endpoints require.
		 */
		resolvePrincipals: {
			visibility: "public",
			params: params({ principals: p.list({ type: "multi", rules: [{ type: "number", integer: true }, { type: "string" }] }) }),
			async handler(ctx: Ctx<{ principals: Array<number | string> }>) {
				return { users: await usersByPrincipal(db, ctx.params.principals) };
			},
		},

		/** For the messages service: the users narrow operands name, system bots and deactivated users included. */
		narrowUsers: {
			visibility: "public",
			params: params({ refs: p.list({ type: "multi", rules: [{ type: "number", integer: true }, { type: "string" }] }) }),
			async handler(ctx: Ctx<{ refs: Array<number | string> }>) {
				return { user_ids: await usersByNarrowOperand(db, ctx.params.refs) };
			},
		},

		/** For the messages service: Notification Bot, who announces moved and resolved topics. */
		notificationBot: {
			visibility: "public",
			cache: { ttl: 3600 },
			async handler(): Promise<Identity> {
				return identity(await notificationBot(db.User));
			},
		},

		/**
		 * For message rendering: the users a message mentions, by exact full name or by ID.
		 * A name several active users share matches none (the sender must add |ID).
		 */
		mentionTargets: {
			visibility: "public",
			params: params({ names: p.stringList(), ids: p.intList() }),
			async handler(ctx: Ctx<{ names: string[]; ids: number[] }>) {
				return { users: await mentionedUsers(db, ctx.params.names, ctx.params.ids) };
			},
		},

		/** Other services' permission checks evaluate group settings against this snapshot. */
		groupGraph: {
			visibility: "public",
			params: params({}),
			async handler(): Promise<GroupGraphData> {
				return graphData(db);
			},
		},
	};
}
