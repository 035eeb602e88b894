// The invites service: invitations by email and reusable invitation links (their own database,
// `<prefix>_invites`), and accepting them. This file wires the service; the endpoints are in
// actions/, the rules in the modules beside it (addresses, permissions, daily limit, acceptance).
import type { Connection } from "mongoose";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { call, type Meta } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { GroupGraphCache } from "../../shared/group-settings";
import type { InvitesChanged } from "../../shared/org-events";
import { invitationModel, multiuseInviteModel } from "./models/invitation";
import { inviteQuotaModel } from "./models/invite-quota";
import type { InvitesDeps } from "./actions/deps";
import { inviteActions } from "./actions/invites";
import { signupActions } from "./actions/signup";

export function invitesService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	const deps = {} as InvitesDeps;
	deps.config = config;

	return {
		name: "invites",
		actions: { ...inviteActions(deps), ...signupActions(deps) },

		events: {
			"users.changed"() {
				deps.graphs?.invalidate();
			},
			"users.groupsChanged"() {
				deps.graphs?.invalidate();
			},
			"users.realmChanged"() {
				deps.graphs?.invalidate();
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "invites");
			Object.assign(deps, {
				Invitation: invitationModel(conn),
				MultiuseInvite: multiuseInviteModel(conn),
				Quota: inviteQuotaModel(conn),
				nextId: counters(conn),
				graphs: new GroupGraphCache(() => call(this.broker, "users.groupGraph", {})),
				logger: this.logger,
				announce: async (ctx: Context<unknown, Meta>, userIds: number[]) => {
					const graph = await deps.graphs.get();
					const user_ids = [...new Set([...graph.members(graph.system("role:administrators")), ...userIds])];
					await ctx.broadcast("invites.changed", { user_ids } satisfies InvitesChanged);
				},
			} satisfies Omit<InvitesDeps, "config">);
			await ensureIndexes(conn);
		},

		async stopped() {
			await conn?.close();
		},
	} as ServiceSchema;
}
