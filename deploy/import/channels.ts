// Recipients (what a message is addressed to), channels with their settings and default-channel
// marks, subscriptions (colour, pins, muting, notification settings), group-DM memberships, and
// user topics (muted, unmuted, followed topics).
import { CHANNEL_GROUP_SETTINGS, type ChannelDoc } from "../../services/channels/models/channel";
import { subscriptionKey, type SubscriptionDoc } from "../../services/channels/models/subscription";
import { userTopicKey, type UserTopicDoc } from "../../services/channels/models/user-topic";
import { SUBSCRIPTION_NOTIFICATION_SETTINGS, type SubscriptionNotifications } from "../../shared/export-rows";
import type { GroupSettingValue } from "../../shared/group-settings";
import { DEFAULT_SUBSCRIPTION_COLOR } from "../../shared/zulip-format/channel-tables";
import { RecipientType } from "../../shared/zulip-format/tables";
import { insertAll, memberOrSkip, seconds, table, type ImportContext } from "./context";
import type { GroupValues } from "./groups";

export async function importChannels(ctx: ImportContext, groups: GroupValues): Promise<void> {
	const { ids } = ctx;
	const streams = table(ctx, "zerver_stream");
	for (const r of streams) ids.channels.set(r.int("id"), r.int("id"));
	for (const r of table(ctx, "zerver_recipient")) {
		const type = r.int("type");
		const of = r.int("type_id");
		if (type === RecipientType.STREAM) ids.recipients.set(r.int("id"), { kind: "channel", channel_id: ids.channels.get(of, r, "type_id") });
		else if (type === RecipientType.PERSONAL) ids.recipients.set(r.int("id"), { kind: "user", user_id: ids.users.get(of, r, "type_id") });
		else if (type === RecipientType.DIRECT_MESSAGE_GROUP) ids.recipients.set(r.int("id"), { kind: "huddle", huddle_id: of });
		else r.fail(`"type" ${type} is not a recipient type (1, 2 or 3)`);
	}
	table(ctx, "zerver_huddle");

	const defaultChannels = new Set(table(ctx, "zerver_defaultstream").map((r) => ids.channels.get(r.int("stream"), r, "stream")));
	ctx.progress.start("channels", streams.length);
	const docs: ChannelDoc[] = streams.map((r) => {
		const settings = {} as ChannelDoc["settings"];
		// The settings Zulip added after the export's feature level take its defaults for an existing
		// channel (as channel-rules.ts defaultSettings gives a new one).
		const creator = ids.users.opt(r.optInt("creator"), r, "creator");
		const defaults: Record<(typeof CHANNEL_GROUP_SETTINGS)[number], GroupSettingValue> = {
			can_add_subscribers_group: groups.system("role:nobody"),
			can_remove_subscribers_group: groups.system("role:administrators"),
			can_administer_channel_group: { direct_members: creator === null ? [] : [creator], direct_subgroups: [] },
			can_delete_any_message_group: groups.system("role:nobody"),
			can_delete_own_message_group: groups.system("role:everyone"),
			can_move_messages_out_of_channel_group: groups.system("role:nobody"),
			can_move_messages_within_channel_group: groups.system("role:nobody"),
			can_send_message_group: groups.system("role:everyone"),
		};
		for (const s of CHANNEL_GROUP_SETTINGS) settings[s] = r.raw[s] != null ? groups.value(r.int(s), r, s) : defaults[s];
		const name = r.str("name");
		return {
			_id: r.int("id"),
			realm_id: ctx.realmId,
			name,
			name_key: name.toLowerCase(),
			description: r.optStr("description") ?? "",
			rendered_description: r.optStr("rendered_description") ?? "",
			invite_only: r.bool("invite_only"),
			is_web_public: r.optBool("is_web_public") ?? false,
			history_public_to_subscribers: r.bool("history_public_to_subscribers"),
			is_archived: r.optBool("deactivated") ?? false,
			is_default: defaultChannels.has(r.int("id")),
			date_created: seconds(r.num("date_created")),
			creator_id: creator,
			message_retention_days: r.optInt("message_retention_days"),
			topics_policy: (r.optStr("topics_policy") as ChannelDoc["topics_policy"] | null) ?? "inherit",
			// Set from the messages as they are imported (messages.ts).
			first_message_id: null,
			last_message_at: null,
			has_named_topics: false,
			folder_id: null,
			settings,
		};
	});
	await insertAll(ctx.target.m.Channel, docs, ctx.progress);
	await ctx.target.raiseCounter("channels", "channel", ids.channels.max());
	ctx.progress.finish();

	const subs = table(ctx, "zerver_subscription");
	ctx.progress.start("subscriptions", subs.length);
	const rows: SubscriptionDoc[] = [];
	for (const r of subs) {
		const to = ids.recipient(r.int("recipient"), r, "recipient");
		const user = memberOrSkip(ctx, r, "user_profile");
		if (user === undefined) continue;
		if (to.kind === "huddle") {
			// A group DM's members are its subscribers.
			if (r.bool("active")) (ids.huddleMembers.get(to.huddle_id) ?? ids.huddleMembers.set(to.huddle_id, []).get(to.huddle_id)!).push(user);
			continue;
		}
		// A user's subscription to their own DMs: implied here.
		if (to.kind === "user") continue;
		rows.push({
			_id: subscriptionKey(user, to.channel_id),
			user_id: user,
			channel_id: to.channel_id,
			active: r.bool("active"),
			color: r.optStr("color") ?? DEFAULT_SUBSCRIPTION_COLOR,
			is_muted: r.optBool("is_muted") ?? false,
			pin_to_top: r.optBool("pin_to_top") ?? false,
			...(Object.fromEntries(SUBSCRIPTION_NOTIFICATION_SETTINGS.map((name) => [name, r.optBool(name)])) as SubscriptionNotifications),
		});
	}
	await insertAll(ctx.target.m.Subscription, rows, ctx.progress);
	ctx.progress.add(subs.length - rows.length);
	ctx.progress.finish();

	// Keyed without regard to case here (userTopicKey): of rows differing only in case, the newest.
	const topics = new Map<string, UserTopicDoc>();
	for (const r of table(ctx, "zerver_usertopic")) {
		const user = memberOrSkip(ctx, r, "user_profile");
		if (user === undefined) continue;
		const channel = ids.channels.get(r.int("stream"), r, "stream");
		const topic = r.str("topic_name");
		const doc = { _id: userTopicKey(user, channel, topic), user_id: user, channel_id: channel, topic, visibility_policy: r.int("visibility_policy"), last_updated: seconds(r.num("last_updated")) };
		const before = topics.get(doc._id);
		if (before) ctx.notKept.add("zerver_usertopic", "older rows for the same topic in another case");
		if (!before || before.last_updated <= doc.last_updated) topics.set(doc._id, doc);
	}
	await insertAll(ctx.target.m.UserTopic, [...topics.values()]);
}
