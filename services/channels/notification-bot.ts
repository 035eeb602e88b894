// What Notification Bot posts after a channel request, and to whom, as Zulip does
// (send_messages_for_new_subscribers, and the do_* actions of zerver/actions/streams.py); the texts
// are in notices.ts. The change is written and announced first: a notice that cannot be posted is
// logged, and the request still succeeds.
import { call, type Ctx, type Identity, type Principal } from "../../shared/actions";
import { sameGroupSetting, type GroupGraph, type GroupSettingValue } from "../../shared/group-settings";
import type { ChannelsDb } from "./db";
import type { ChannelDoc } from "./models/channel";
import type { StreamChanges } from "./stream-update";
import * as notices from "./notices";

interface Notice {
	channel_id: number;
	topic: string;
	content: string;
	mark_as_read?: number[];
	limit_unread_user_ids?: number[];
}

async function post(ctx: Ctx<any>, list: Notice[]): Promise<void> {
	for (const n of list) await call(ctx, "messages.sendNotice", n);
}

function logged(ctx: Ctx<any>, what: string, work: Promise<void>): Promise<void> {
	return work.catch((err: unknown) => ctx.service?.logger.error({ err }, `Notification Bot's ${what} not sent`));
}

/**
 * POST /users/me/subscriptions: a direct message to each user someone else subscribed to channels
 * that existed (not to bots), then, with `announce`, the new channels' announcement, then each new
 * channel's first notice. These are read for the actor, unread for everyone else.
 */
export function subscriptionNotices(
	ctx: Ctx<any>,
	db: ChannelsDb,
	graph: GroupGraph,
	actor: Identity,
	o: { announce: boolean; principals: Principal[]; created: number[]; added: Array<{ user_id: number; channel: ChannelDoc }> },
): Promise<void> {
	return logged(
		ctx,
		"subscription notices",
		(async () => {
			const bots = new Set(o.principals.filter((u) => u.is_bot).map((u) => u.user_id));
			const created = new Set(o.created);
			const byUser = new Map<number, string[]>();
			for (const { user_id, channel } of o.added) {
				if (user_id === actor.user_id || bots.has(user_id) || created.has(channel._id)) continue;
				byUser.set(user_id, [...(byUser.get(user_id) ?? []), channel.name]);
			}
			if (byUser.size) {
				const messages = [...byUser].map(([user_id, names]) => ({ user_id, content: notices.subscribedYou(actor, names) }));
				await call(ctx, "messages.notifyUsers", { messages });
			}
			if (!o.created.length) return;

			const found = new Map<number, ChannelDoc>((await db.Channel.find({ _id: { $in: o.created } }).lean()).map((c) => [c._id, c]));
			const channels = o.created.flatMap((id) => found.get(id) ?? []);
			const list: Notice[] = [];
			const readBy = [actor.user_id];
			if (o.announce && graph.newChannelAnnouncementsId >= 0) {
				const target = await db.Channel.findOne({ _id: graph.newChannelAnnouncementsId, realm_id: db.realmId, is_archived: false }).lean();
				if (target) {
					const content = notices.newChannelsAnnouncement(actor, channels.map((c) => ({ id: c._id, name: c.name })));
					list.push({ channel_id: target._id, topic: notices.NEW_CHANNELS_TOPIC, content, mark_as_read: readBy });
				}
			}
			for (const c of channels) list.push({ channel_id: c._id, topic: notices.channelEventsTopic(c), content: notices.channelCreated(actor, c), mark_as_read: readBy });
			await post(ctx, list);
		})(),
	);
}

/** Who a group setting names, for the posting permissions notice. */
async function holders(ctx: Ctx<any>, graph: GroupGraph, value: GroupSettingValue): Promise<string> {
	const groupOf = (id: number) => ({ id, name: graph.get(id)?.name ?? "" });
	if (typeof value === "number") return notices.groupMention(groupOf(value).name);
	const { users } = value.direct_members.length ? await call(ctx, "users.mentionTargets", { names: [], ids: value.direct_members }) : { users: [] };
	return notices.settingHolders(
		value.direct_subgroups.map(groupOf),
		users.map((u) => ({ user_id: u.id, full_name: u.full_name })),
	);
}

/**
 * PATCH /streams/{stream_id}: a notice in the channel for each change Zulip announces, in
 * Zulip's order. Access permissions, retention and description are announced whenever given;
 * the topics policy and who may post only when they change.
 */
export function updateNotices(ctx: Ctx<any>, graph: GroupGraph, actor: Identity, before: ChannelDoc, after: ChannelDoc, q: StreamChanges, set: Record<string, unknown>): Promise<void> {
	return logged(
		ctx,
		"channel change notices",
		(async () => {
			const list: Array<[ChannelDoc, string]> = [];
			if (q.is_private !== undefined || q.is_web_public !== undefined || q.history_public_to_subscribers !== undefined) {
				list.push([before, notices.accessChanged(actor, before, after)]);
			}
			if (q.message_retention_days !== undefined) {
				list.push([before, notices.retentionChanged(actor, before.message_retention_days, after.message_retention_days, graph.messageRetentionDays)]);
			}
			if (set.is_archived === false) list.push([before, notices.unarchived(after.name)]);
			if (q.topics_policy !== undefined && after.topics_policy !== before.topics_policy) {
				list.push([after, notices.topicsPolicyChanged(actor, before.topics_policy, after.topics_policy, graph.emptyTopicDisplayName)]);
			}
			if (q.description !== undefined) list.push([after, notices.descriptionChanged(actor, before.description, after.description)]);
			if (q.new_name !== undefined) list.push([after, notices.renamed(actor, before.name, after.name)]);
			const postingBefore = before.settings.can_send_message_group;
			const postingAfter = after.settings.can_send_message_group;
			if (q.can_send_message_group !== undefined && !sameGroupSetting(postingBefore, postingAfter)) {
				list.push([after, notices.postingPermissionsChanged(actor, await holders(ctx, graph, postingBefore), await holders(ctx, graph, postingAfter))]);
			}
			await post(
				ctx,
				list.map(([c, content]) => ({ channel_id: after._id, topic: notices.channelEventsTopic(c), content })),
			);
		})(),
	);
}

/** DELETE /streams/{stream_id}: the archived channel's last notice, read for everyone. */
export function archiveNotice(ctx: Ctx<any>, channel: ChannelDoc): Promise<void> {
	const notice = { channel_id: channel._id, topic: notices.channelEventsTopic(channel), content: notices.archived(channel.name), limit_unread_user_ids: [] };
	return logged(ctx, "archive notice", post(ctx, [notice]));
}
