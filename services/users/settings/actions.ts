// PATCH /settings (personal settings), confirming a change of email address, and, for other
// services, some personal settings of the caller or of several users. The rules live in
// settings-update.ts, user-settings.ts and email-change.ts.
import { requireUser } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { p, params } from "../../../shared/params";
import type { ExportConsentChanged, SettingsChanged } from "../../../shared/org-events";
import { humanAdminIds } from "../realm-export/export-data";
import { LANGUAGES } from "./languages";
import { SETTINGS_PARAMS, updateSettings } from "./settings-update";
import { confirmEmailChange } from "./email-change";
import { switchPresence } from "../presence/presence-store";
import { notificationFacts } from "../notifications/notification-facts";
import type { Ctx, ServiceDeps } from "../deps";

export function settingsActions({ db, settingsNamed, findUser, changed, identity }: ServiceDeps) {
	return {
		updateSettings: {
			params: params(SETTINGS_PARAMS),
			async handler(ctx: Ctx<Record<string, unknown>>) {
				const actor = requireUser(ctx);
				const user = await findUser(actor.user_id);
				const result = await updateSettings(db, actor, user, ctx.params);
				const { changes } = result;
				if (Object.keys(changes).length) {
					const language = typeof changes.default_language === "string" ? LANGUAGES.find((l) => l.code === changes.default_language) : undefined;
					await ctx.broadcast("users.settingsChanged", { user_id: actor.user_id, changes, ...(language ? { language_name: language.name } : {}) } satisfies SettingsChanged);
					await changed(ctx, [actor.user_id], changes);
				}
				// Zulip's realm_export_consent, to the administrators (feature level 312).
				if (typeof changes.allow_private_data_export === "boolean" && !actor.is_bot) {
					const consent: ExportConsentChanged = { user_ids: await humanAdminIds(db), user_id: actor.user_id, consented: changes.allow_private_data_export };
					await ctx.broadcast("users.exportConsentChanged", consent);
				}
				// Invisible mode switched: everyone sees the user online now, or offline from now on (Zulip's rule).
				if (typeof changes.presence_enabled === "boolean") {
					const change = await switchPresence(db, user, changes.presence_enabled, clock.nowMs());
					if (change) await ctx.broadcast("users.presenceChanged", change);
				}
				return result.unchanged.length ? { ignored_parameters_unsupported: result.unchanged } : {};
			},
		},

		confirmEmailChange: {
			params: params({ confirmation_key: p.string({ max: 64 }) }),
			async handler(ctx: Ctx<{ confirmation_key: string }>) {
				const { user_id, email } = await confirmEmailChange(db, ctx.params.confirmation_key);
				await changed(ctx, [user_id], { delivery_email: email });
				return { email };
			},
		},

		/** The caller's values of some personal settings (defaults filled in), for other services. */
		mySettings: {
			visibility: "public",
			params: params({ names: p.stringList() }),
			async handler(ctx: Ctx<{ names: string[] }>) {
				return { values: settingsNamed(await findUser(requireUser(ctx).user_id), ctx.params.names) };
			},
		},

		/** Some personal settings of several users (defaults filled in), by user ID, for other services. */
		settingsOf: {
			visibility: "public",
			params: params({ user_ids: p.intList(), names: p.stringList() }),
			async handler(ctx: Ctx<{ user_ids: number[]; names: string[] }>) {
				const users = await db.User.find({ _id: { $in: ctx.params.user_ids }, realm_id: db.realm._id }).lean();
				return { values: Object.fromEntries(users.map((u) => [String(u._id), settingsNamed(u, ctx.params.names)])) };
			},
		},

		/** For the notifications service, once per message: its recipients' identities, settings, presence, and who muted the sender. */
		notificationFacts: {
			visibility: "public",
			params: params({ user_ids: p.intList(), names: p.stringList(), sender_id: p.int({ optional: true }) }),
			async handler(ctx: Ctx<{ user_ids: number[]; names: string[]; sender_id?: number }>) {
				return notificationFacts(db, { identity, settingsNamed }, ctx.params);
			},
		},
	};
}
