// For the notifications service's weekly digest (services/notifications/digest/): the organization's
// digest settings and who may get one, as Zulip's _enqueue_emails_for_realm chooses them: active
// human users with enable_digest_emails on and no activity since the cutoff. Activity is presence:
// an "active" report (Zulip's UserActivityInterval comes from the same reports' new_user_input).
import type { DigestRecipients } from "../../../shared/digest";
import { p, params } from "../../../shared/params";
import { isGuest } from "../../../shared/roles";
import { realmSetting } from "../realm/realm-settings";
import type { Ctx, ServiceDeps } from "../deps";

export function digestActions({ db, identity }: ServiceDeps) {
	return {
		digestRecipients: {
			visibility: "public",
			params: params({ inactive_since_ms: p.int({ min: 0 }) }),
			async handler(ctx: Ctx<{ inactive_since_ms: number }>): Promise<DigestRecipients> {
				// Another replica may have changed the settings: read them from the store.
				const realm = (await db.Realm.findById(db.realm._id).lean()) ?? db.realm;
				const enabled = realmSetting<boolean>(realm, "realm_digest_emails_enabled");
				const facts = { name: realm.name, url: realm.url, digest_emails_enabled: enabled, digest_weekday: realmSetting<number>(realm, "realm_digest_weekday") };
				if (!enabled) return { realm: facts, users: [] };
				const since = new Date(ctx.params.inactive_since_ms);
				const [candidates, active] = await Promise.all([
					db.User.find({ realm_id: realm._id, is_active: true, is_bot: false, "settings.enable_digest_emails": { $ne: false } }).sort({ _id: 1 }).lean(),
					// last_active_time <= last_connected_time, so the connected index narrows it first.
					db.Presence.find({ realm_id: realm._id, last_connected_time: { $gt: since }, last_active_time: { $gt: since } }, { _id: 1 }).lean(),
				]);
				const recent = new Set(active.map((r) => r._id));
				return { realm: facts, users: candidates.filter((u) => !recent.has(u._id)).map((u) => ({ user: identity(u), guest: isGuest(u.role) })) };
			},
		},
	};
}
