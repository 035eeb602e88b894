// What the notifications service reads about a message's recipients, in one call per message
// (Zulip's get_recipient_info reads them in one query too): each one's identity, whether active,
// some settings (defaults filled in), whether presence shows them active within
// OFFLINE_THRESHOLD_SECS (Zulip's filter_presence_idle_user_ids), and which of them muted the
// sender, and the organization's name, address and content-in-emails setting.
import type { Identity } from "../../../shared/actions";
import type { NotificationFacts } from "../../../shared/notification-facts";
import { clock } from "../../../shared/clock";
import type { UsersDb } from "../db";
import type { UserDoc } from "../models/user";
import { OFFLINE_THRESHOLD_SECS } from "../presence/presence-rules";
import { realmSetting } from "../realm/realm-settings";

export async function notificationFacts(
	db: UsersDb,
	lookup: { identity(u: UserDoc): Identity; settingsNamed(u: UserDoc, names: string[]): Record<string, unknown> },
	q: { user_ids: number[]; names: string[]; sender_id?: number },
): Promise<NotificationFacts> {
	const ids = [...new Set(q.user_ids)];
	const recent = new Date(clock.nowMs() - OFFLINE_THRESHOLD_SECS * 1000);
	const [users, present, muters] = await Promise.all([
		db.User.find({ _id: { $in: ids }, realm_id: db.realm._id }).lean(),
		db.Presence.find({ _id: { $in: ids }, last_active_time: { $gte: recent } }, { _id: 1 }).lean(),
		q.sender_id === undefined ? [] : db.MutedUser.find({ muted_user_id: q.sender_id, user_id: { $in: ids } }, { user_id: 1 }).lean(),
	]);
	const active = new Set(present.map((p) => p._id));
	return {
		users: Object.fromEntries(
			users.map((u) => [String(u._id), { identity: lookup.identity(u), is_active: u.is_active, settings: lookup.settingsNamed(u, q.names), present: active.has(u._id) }]),
		),
		muters: muters.map((m) => m.user_id),
		realm: { name: db.realm.name, url: db.realm.url, message_content_allowed_in_email_notifications: realmSetting<boolean>(db.realm, "realm_message_content_allowed_in_email_notifications") },
	};
}
