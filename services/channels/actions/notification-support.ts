// What the notifications service asks of the channels service about a sent channel message.
import type { Ctx } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import type { ChannelsDb } from "../db";
import { channelNotifyFacts } from "../notify-facts";

export function notificationSupportActions(db: ChannelsDb) {
	return {
		/** The recipients' subscription settings and topic policies, once per message. */
		notificationFacts: {
			visibility: "public",
			params: params({ channel_id: p.int(), topic: p.string({ empty: true }), user_ids: p.intList() }),
			async handler(ctx: Ctx<{ channel_id: number; topic: string; user_ids: number[] }>) {
				return channelNotifyFacts(db, ctx.params.channel_id, ctx.params.topic, ctx.params.user_ids);
			},
		},
	};
}
