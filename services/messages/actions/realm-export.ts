// What the uploads service reads of this service for an organization export (export-data.ts).
import { EXPORT_PAGE } from "../../../shared/export-rows";
import { p, params } from "../../../shared/params";
import { exportCount, exportMessages, exportReactions } from "../export-data";
import type { Ctx, ServiceDeps } from "./deps";

/** The most channels one call names: every public channel of a large organization. */
const MAX_CHANNELS = 100_000;

export function realmExportActions({ db }: ServiceDeps) {
	return {
		exportMessages: {
			visibility: "public",
			params: params({ channel_ids: p.intList({ max: MAX_CHANNELS }), after_id: p.int(), limit: p.int({ min: 1, max: EXPORT_PAGE }) }),
			async handler(ctx: Ctx<{ channel_ids: number[]; after_id: number; limit: number }>) {
				const messages = await exportMessages(db, ctx.params.channel_ids, ctx.params.after_id, ctx.params.limit);
				return { messages, reactions: messages.length ? await exportReactions(db, messages.map((m) => m.id)) : [] };
			},
		},
		exportCount: {
			visibility: "public",
			params: params({ channel_ids: p.intList({ max: MAX_CHANNELS }) }),
			async handler(ctx: Ctx<{ channel_ids: number[] }>) {
				return { count: await exportCount(db, ctx.params.channel_ids) };
			},
		},
	};
}
