// The catalog service's part of POST /register (the gateway calls every `<service>.registerState`
// in parallel, services/api/register.ts): the organization's playgrounds, linkifiers and emoji.
import { requireUser, type RegisterStateParams } from "../../../shared/actions";
import { catalogState } from "./catalog-state";
import type { Ctx, ServiceDeps } from "../deps";

export function registerActions({ db }: ServiceDeps) {
	return {
		registerState: {
			visibility: "public",
			async handler(ctx: Ctx<RegisterStateParams>) {
				requireUser(ctx);
				const { event_types } = ctx.params;
				return catalogState(db, (t) => event_types === null || event_types.includes(t));
			},
		},
	};
}
