// One promotion run to role:fullmembers now (the node-cron job in ../users.service.ts runs them too);
// for tests, which race several runs.
import type { Ctx } from "../../../shared/actions";
import type { ServiceDeps } from "../deps";
import { promoteFullMembers } from "./full-member-promotion";

export function fullMemberActions({ db }: ServiceDeps) {
	return {
		promoteFullMembers: {
			visibility: "public",
			async handler(ctx: Ctx) {
				return { user_ids: await promoteFullMembers(db, (event, payload) => ctx.broadcast(event, payload)) };
			},
		},
	};
}
