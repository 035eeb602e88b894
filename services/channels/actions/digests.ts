// For the notifications service's weekly digest: in one call, the channels each user would hear
// about (Zulip's get_user_stream_map: active, unmuted subscriptions to channels not archived,
// leaving out those whose subscription changed since the cutoff, so every reader of a channel's
// history in the digest could read all of it), their names, and the channels created since.
import type { Ctx } from "../../../shared/actions";
import type { DigestChannels } from "../../../shared/digest";
import { p, params } from "../../../shared/params";
import type { ChannelsDb } from "../db";

export function digestChannelActions(db: ChannelsDb) {
	return {
		digestChannels: {
			visibility: "public",
			params: params({ user_ids: p.intList(), since_ms: p.int({ min: 0 }) }),
			async handler(ctx: Ctx<{ user_ids: number[]; since_ms: number }>): Promise<DigestChannels> {
				const { user_ids, since_ms } = ctx.params;
				const [subs, created] = await Promise.all([
					user_ids.length ? db.Subscription.find({ user_id: { $in: user_ids }, active: true, is_muted: false }, { user_id: 1, channel_id: 1, changed_at: 1 }).lean() : [],
					db.Channel.find({ realm_id: db.realmId, is_archived: false, date_created: { $gt: Math.floor(since_ms / 1000) } }, { name: 1, invite_only: 1, is_web_public: 1 })
						.sort({ name_key: 1 })
						.lean(),
				]);
				const kept = subs.filter((s) => (s.changed_at ?? 0) <= since_ms);
				const channels = kept.length ? await db.Channel.find({ _id: { $in: [...new Set(kept.map((s) => s.channel_id))] }, is_archived: false }, { name: 1 }).lean() : [];
				const names = Object.fromEntries(channels.map((c) => [String(c._id), c.name]));
				const subscriptions: Record<string, number[]> = {};
				for (const s of kept) if (names[String(s.channel_id)] !== undefined) (subscriptions[String(s.user_id)] ??= []).push(s.channel_id);
				return {
					subscriptions,
					names,
					new_channels: created.map((c) => ({ id: c._id, name: c.name, invite_only: c.invite_only, is_web_public: c.is_web_public })),
				};
			},
		},
	};
}
