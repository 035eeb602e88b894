// PATCH /realm (administrators; some settings owners only), the management CLI's
// `realm-setting`, both through realm-update.ts (one write, one announcement), and the settings
// an archived channel no longer fills.
import { call, requireUser, type Ctx } from "../../../shared/actions";
import { adminRequired, badRequest } from "../../../shared/errors";
import { INT32_MAX, p, params } from "../../../shared/params";
import { isAdmin } from "../../../shared/roles";
import type { ServiceDeps } from "../deps";
import { REALM_SETTING_DEFAULTS } from "./realm-settings";
import {
	ANNOUNCEMENT_CHANNEL_SETTINGS,
	applyRealmChanges,
	clearChannelSettings,
	DIGEST_WEEKDAYS,
	EDIT_HISTORY_POLICIES,
	MAX_REALM_DESCRIPTION_LENGTH,
	MAX_REALM_NAME_LENGTH,
	planRealmUpdate,
	REALM_GROUP_SETTINGS,
	REALM_TOPICS_POLICIES,
	TIME_LIMIT_SETTINGS,
	type RealmPatch,
} from "./realm-update";

const timeLimit = () => p.either([p.int(), p.string()], { optional: true });

const patchParams = {
	name: p.string({ optional: true, max: MAX_REALM_NAME_LENGTH }),
	description: p.string({ optional: true, max: MAX_REALM_DESCRIPTION_LENGTH }),
	...Object.fromEntries(TIME_LIMIT_SETTINGS.map((k) => [k, timeLimit()])),
	allow_message_editing: p.bool({ optional: true }),
	message_edit_history_visibility_policy: p.oneOf(EDIT_HISTORY_POLICIES, { optional: true }),
	topics_policy: p.oneOf(REALM_TOPICS_POLICIES, { optional: true }),
	enable_spectator_access: p.bool({ optional: true }),
	enable_read_receipts: p.bool({ optional: true }),
	avatar_changes_disabled: p.bool({ optional: true }),
	digest_emails_enabled: p.bool({ optional: true }),
	digest_weekday: p.oneOf(DIGEST_WEEKDAYS, { optional: true }),
	waiting_period_threshold: p.int({ optional: true, min: 0, max: INT32_MAX }),
	moderation_request_channel_id: p.int({ optional: true }),
	...Object.fromEntries(ANNOUNCEMENT_CHANNEL_SETTINGS.map((k) => [k, p.int({ optional: true })])),
	...Object.fromEntries(REALM_GROUP_SETTINGS.map((k) => [k, p.json({ optional: true })])),
};

export function realmActions({ db, graphs }: ServiceDeps) {
	/** Another replica (or the CLI) may have changed the organization: decide on the stored one. */
	async function freshRealm() {
		const fresh = await db.Realm.findById(db.realm._id).lean();
		if (fresh && JSON.stringify(fresh) !== JSON.stringify(db.realm)) {
			db.realm = fresh;
			graphs.invalidate();
		}
	}

	return {
		updateRealm: {
			params: params(patchParams),
			async handler(ctx: Ctx<RealmPatch>) {
				const actor = requireUser(ctx);
				if (!isAdmin(actor.role)) throw adminRequired();
				await freshRealm();
				const channelFacts = async (channelId: number) => {
					const c = await call(ctx, "channels.notificationTarget", { channel_id: channelId }).catch(() => null);
					return c && { invite_only: !!c.invite_only, is_archived: !!c.is_archived };
				};
				const plan = await planRealmUpdate(db, await graphs.get(), actor, ctx.params, channelFacts);
				await applyRealmChanges(db, ctx, plan, () => graphs.invalidate());
				// As Zulip answers: each changed setting, text settings as "updated".
				return Object.fromEntries(Object.entries(plan.changes).map(([k, v]) => [k, k === "name" || k === "description" ? "updated" : v]));
			},
		},

		/** For the channels service: a channel was archived, and the settings naming it are cleared. */
		clearChannelSettings: {
			visibility: "public",
			params: params({ channel_id: p.int() }),
			async handler(ctx: Ctx<{ channel_id: number }>) {
				return { cleared: await clearChannelSettings(db, ctx, ctx.params.channel_id, () => graphs.invalidate()) };
			},
		},

		/**
		 * For the management CLI (and tests): change an organization setting, e.g.
		 * realm_enable_spectator_access. The value must have the type of the setting's default.
		 */
		setRealmSetting: {
			visibility: "public",
			params: params({ name: p.oneOf(Object.keys(REALM_SETTING_DEFAULTS)), value: { type: "any", nullable: true } }),
			async handler(ctx: Ctx<{ name: string; value: unknown }>) {
				const { name, value } = ctx.params;
				const fallback = REALM_SETTING_DEFAULTS[name];
				if (fallback !== null && typeof value !== typeof fallback) throw badRequest(`Invalid value for ${name}`);
				await freshRealm();
				// The description lives on the realm document itself, as PATCH /realm writes it.
				const field = name === "realm_description" ? "description" : `settings.${name}`;
				const plan = { fields: { [field]: value }, changes: { [name.replace(/^realm_/, "")]: value }, expect: {} };
				await applyRealmChanges(db, ctx, plan, () => graphs.invalidate());
				return {};
			},
		},
	};
}
