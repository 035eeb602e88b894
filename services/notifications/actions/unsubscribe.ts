// The unsubscribe page's action (the gateway serves the page: services/api/unsubscribe-page.ts).
import type { Context } from "moleculer";
import type { Meta } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { unsubscribe, type UnsubscribeDeps } from "../unsubscribe/unsubscribe-links";

export function unsubscribeActions(deps: UnsubscribeDeps) {
	return {
		unsubscribe: {
			visibility: "public",
			// Any strings: a link that is not one of ours answers as an unknown one (unsubscribe()).
			params: params({ type: p.string({ empty: true }), key: p.string({ empty: true }) }),
			async handler(ctx: Context<{ type: string; key: string }, Meta>) {
				return unsubscribe(deps, ctx.params.type, ctx.params.key);
			},
		},
	};
}
