// What the uploads service reads of this service for an organization export (export-data.ts).
import type { Ctx } from "../../../shared/actions";
import { EXPORT_CHANNEL_BATCH } from "../../../shared/export-rows";
import { p, params } from "../../../shared/params";
import type { ChannelsDb } from "../db";
import { exportChannels, exportSubscriptions } from "../export-data";

export function realmExportActions(db: ChannelsDb) {
	return {
		exportChannels: {
			visibility: "public",
			params: params({}),
			handler: () => exportChannels(db),
		},
		exportSubscriptions: {
			visibility: "public",
			params: params({ channel_ids: p.intList({ max: EXPORT_CHANNEL_BATCH }) }),
			async handler(ctx: Ctx<{ channel_ids: number[] }>) {
				return { subscriptions: await exportSubscriptions(db, ctx.params.channel_ids) };
			},
		},
	};
}
