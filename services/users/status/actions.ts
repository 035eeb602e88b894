// User status, as Zulip's update_user_status_backend and get_status_backend: POST
// /users/me/status (the caller's text and emoji, and the deprecated `away`, which sets
// presence_enabled) and GET /users/{user_id}/status. The rules live in status-rules.ts.
import { call, requireUser } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import type { SettingsChanged, UserStatusChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { NAME_MAX } from "../../../shared/param-bounds";
import { activeUserIds } from "../db";
import { switchPresence } from "../presence/presence-store";
import { checkStatusUpdate, saveStatus, statusOf, type StatusRequest } from "./status-rules";
import { applyUpdate } from "../accounts/user-admin";
import type { Ctx, ServiceDeps } from "../deps";

export function userStatusActions({ db, findUser, noSuchUser, changed }: ServiceDeps) {
	return {
		updateStatus: {
			params: params({
				away: p.bool({ optional: true }),
				status_text: p.string({ optional: true }),
				emoji_name: p.string({ optional: true, max: NAME_MAX }),
				emoji_code: p.string({ optional: true, max: NAME_MAX }),
				reaction_type: p.string({ optional: true, max: NAME_MAX }),
			}),
			async handler(ctx: Ctx<StatusRequest>) {
				const actor = requireUser(ctx);
				if (actor.is_bot) throw badRequest("This endpoint does not accept bot requests.");
				// The organization's custom emoji (the catalog service's), asked only when the request names an emoji.
				const change = checkStatusUpdate(ctx.params, ctx.params.emoji_name ? (await call(ctx, "catalog.realmEmoji", {})).emoji : {});
				const user = await findUser(actor.user_id);
				if (change.away !== undefined) {
					// Zulip's do_change_user_setting(presence_enabled = not away): written and announced
					// even when unchanged, with the presence update that switching it makes.
					const changes = { presence_enabled: !change.away };
					await applyUpdate(db, user._id, { "settings.presence_enabled": !change.away });
					await ctx.broadcast("users.settingsChanged", { user_id: user._id, changes } satisfies SettingsChanged);
					await changed(ctx, [user._id], changes);
					const presence = await switchPresence(db, user, !change.away, clock.nowMs());
					if (presence) await ctx.broadcast("users.presenceChanged", presence);
				}
				await saveStatus(db, user._id, change, new Date(clock.nowMs()));
				const { emoji, ...rest } = change;
				const status: UserStatusChanged["status"] = { ...rest, ...emoji };
				await ctx.broadcast("users.statusChanged", { user_id: user._id, status, user_ids: await activeUserIds(db) } satisfies UserStatusChanged);
				return {};
			},
		},

		userStatus: {
			params: params({ user_id: p.int() }),
			async handler(ctx: Ctx<{ user_id: number }>) {
				requireUser(ctx);
				// Zulip's access_user_by_id: users of the organization, not bots, not deactivated.
				const target = await findUser(ctx.params.user_id);
				if (target.is_bot) throw noSuchUser();
				if (!target.is_active) throw badRequest("User is deactivated");
				return { status: await statusOf(db, target) };
			},
		},
	};
}
