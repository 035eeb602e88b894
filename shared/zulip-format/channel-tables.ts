// zerver_stream, zerver_subscription, zerver_recipient and zerver_defaultstream: the channels an
// export holds (public ones: private channels never reach it), who is subscribed to them, and
// each user's subscription to their own personal recipient, as Zulip's export has.
import { subscriptionSettings, type ExportChannel, type ExportSubscription } from "../export-rows";
import type { GroupSettingValue } from "../group-settings";
import type { Recipients } from "./recipients";
import type { Row, Tables } from "./tables";

/** Zulip's colour of a subscription that has none of its own. */
export const DEFAULT_SUBSCRIPTION_COLOR = "#c2c2c2";

/** A subscription that records membership only: a user's to their own personal recipient, a group DM member's to it. */
const membership = (id: number, user: number, recipient: number, isUserActive: boolean): Row => ({
	id,
	user_profile: user,
	recipient,
	active: true,
	is_user_active: isUserActive,
	is_muted: false,
	color: DEFAULT_SUBSCRIPTION_COLOR,
	pin_to_top: false,
});

/**
 * `settingGroup`: a group setting's value as the group ID Zulip's row holds (group-tables.ts).
 */
export function channelTables(
	realmId: number,
	channels: ExportChannel[],
	defaultChannelIds: number[],
	subscriptions: ExportSubscription[],
	users: Array<{ id: number; is_active: boolean }>,
	recipients: Recipients,
	settingGroup: (value: GroupSettingValue) => number,
): Tables {
	const active = new Map(users.map((u) => [u.id, u.is_active]));
	const zerver_stream = channels.map((c) => ({
		...Object.fromEntries(Object.entries(c.settings).map(([key, value]) => [key, settingGroup(value)])),
		id: c.id,
		name: c.name,
		realm: realmId,
		date_created: c.date_created,
		creator: c.creator_id,
		deactivated: c.is_archived,
		description: c.description,
		rendered_description: c.rendered_description,
		recipient: recipients.channel(c.id) ?? null,
		invite_only: c.invite_only,
		history_public_to_subscribers: c.history_public_to_subscribers,
		is_web_public: c.is_web_public,
		is_in_zephyr_realm: false,
		message_retention_days: c.message_retention_days,
		first_message_id: c.first_message_id,
	}));
	const zerver_subscription: Row[] = [];
	for (const s of subscriptions) {
		const recipient = recipients.channel(s.channel_id);
		if (recipient === undefined) continue;
		zerver_subscription.push({
			id: zerver_subscription.length + 1,
			user_profile: s.user_id,
			recipient,
			active: s.active,
			is_user_active: active.get(s.user_id) ?? false,
			...subscriptionSettings(s),
		});
	}
	// Zulip subscribes every user to their own personal recipient.
	for (const u of users) {
		const recipient = recipients.user(u.id);
		if (recipient === undefined) continue;
		zerver_subscription.push(membership(zerver_subscription.length + 1, u.id, recipient, u.is_active));
	}
	const zerver_defaultstream = defaultChannelIds.map((stream, i) => ({ id: i + 1, realm: realmId, stream }));
	return { zerver_stream, zerver_subscription, zerver_recipient: recipients.rows, zerver_defaultstream };
}

/**
 * zerver_huddle, and each group DM's members' subscriptions to it (how Zulip records its members),
 * after the channel tables' (their recipients are complete once the messages are written).
 */
export function withGroupDms(tables: Tables, recipients: Recipients, users: Array<{ id: number; is_active: boolean }>): Tables {
	const active = new Map(users.map((u) => [u.id, u.is_active]));
	const zerver_subscription: Row[] = [...tables.zerver_subscription];
	for (const { row, members } of recipients.groupDms) {
		// A system bot among them is subscribed too (Zulip's import maps it onto its own bot): its
		// group DM's hash, made from the subscribers, then differs from the group DM without it.
		for (const user of members) zerver_subscription.push(membership(zerver_subscription.length + 1, user, row.recipient as number, active.get(user) ?? true));
	}
	return { ...tables, zerver_subscription, zerver_huddle: recipients.groupDms.map((g) => g.row) };
}
