// The unsubscribe page's action (the gateway serves the page: services/api/unsubscribe-page.ts).
import type { Context } from "moleculer";
import type { Meta } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { unsubscribe, type UnsubscribeDeps } from "../unsubscribe/unsubscribe-links";

export function unsubscribeActions(deps: UnsubscribeDeps) {
	return {
		unsubscribe: {
			visibility: "public",
			params: params({ type: p.string({ max: 64 }), key: p.string({ max: 64 }) }),
			async handler(ctx: Context<{ type: string; key: string }, Meta>) {
				return unsubscribe(deps, ctx.params.type, ctx.params.key);
			},
		},
	};
}
