// GET, POST and DELETE /default_streams (administrators change them). Each change is announced
// with the whole list (the `default_streams` event).
import { requireUser, type Ctx } from "../../../shared/actions";
import { adminRequired } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { isAdmin, isGuest } from "../../../shared/roles";
import type { ChannelsDb } from "../db";
import { channelView } from "../channel-view";
import { visibleChannel } from "../channel-lookup";
import { announceDefaults } from "../channel-events";
import { addDefault, removeDefault } from "../stream-update";

export function defaultChannelActions(db: ChannelsDb) {
	return {
		listDefaults: {
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = requireUser(ctx);
				const graph = await db.graphs.get();
				if (isGuest(actor.role)) return { default_streams: [] };
				const defaults = await db.Channel.find({ realm_id: db.realmId, is_default: true, is_archived: false }).sort({ name_key: 1 }).lean();
				return { default_streams: defaults.map((c) => channelView(graph, c)) };
			},
		},

		addDefault: {
			params: params({ stream_id: p.int() }),
			async handler(ctx: Ctx<{ stream_id: number }>) {
				if (!isAdmin(requireUser(ctx).role)) throw adminRequired();
				const { channel } = await visibleChannel(db, ctx, ctx.params.stream_id);
				await addDefault(db, channel);
				await announceDefaults(db, ctx);
				return {};
			},
		},

		removeDefault: {
			params: params({ stream_id: p.int() }),
			async handler(ctx: Ctx<{ stream_id: number }>) {
				if (!isAdmin(requireUser(ctx).role)) throw adminRequired();
				const { channel } = await visibleChannel(db, ctx, ctx.params.stream_id);
				await removeDefault(db, channel);
				await announceDefaults(db, ctx);
				return {};
			},
		},
	};
}
