// For the management CLI (and tests): creating an account of any kind, an existing user's
// credentials, granting or revoking a special permission, and handing what the CLI broadcast to
// the running server (change-relay.ts). No permission check: only a process on the bus can call these.
import { p, params } from "../../../shared/params";
import { ROLES } from "../../../shared/roles";
import { createUser } from "../accounts/accounts";
import { realmSetting } from "../realm/realm-settings";
import { applyUpdate } from "../accounts/user-admin";
import { relayThroughServer, type RelayedEvent } from "./change-relay";
import type { Ctx, ServiceDeps } from "../deps";

/** The permissions an operator grants from the command line (Zulip's change_user_role). */
export const SPECIAL_PERMISSIONS = ["can_change_user_emails", "can_create_users"] as const;
type SpecialPermission = (typeof SPECIAL_PERMISSIONS)[number];

export function managementActions({ db, noSuchUser, changed }: ServiceDeps) {
	return {
		/** For the management CLI and tests: any role, bots, email visibility; no permission check. */
		createAccount: {
			visibility: "public",
			params: params({
				email: p.string(),
				full_name: p.string(),
				password: p.string({ optional: true }),
				role: p.oneOf(ROLES, { optional: true }),
				is_bot: p.bool({ optional: true }),
				bot_owner_id: p.int({ optional: true }),
				email_address_visibility: p.oneOf([1, 2, 3, 4, 5], { optional: true }),
			}),
			async handler(ctx: Ctx<any>) {
				const user = await createUser(db.User, db.nextId, { realm_id: db.realm._id, ...ctx.params, password: ctx.params.password ?? null, require_unique_names: realmSetting(db.realm, "realm_require_unique_names") });
				await changed(ctx, [user._id], undefined, true);
				return { user_id: user._id, email: user.delivery_email, api_key: user.api_key, site: db.realm.url };
			},
		},

		/** For the management CLI: an existing user's credentials, to print their zuliprc. */
		credentials: {
			visibility: "public",
			params: params({ email: p.string() }),
			async handler(ctx: Ctx<{ email: string }>) {
				const user = await db.User.findOne({ realm_id: db.realm._id, email_key: ctx.params.email.trim().toLowerCase() }).lean();
				if (!user) throw noSuchUser();
				return { user_id: user._id, email: user.delivery_email, api_key: user.api_key, site: db.realm.url };
			},
		},

		/** For the management CLI: grant or revoke a special permission. */
		setPermission: {
			visibility: "public",
			params: params({ email: p.string(), permission: p.oneOf([...SPECIAL_PERMISSIONS]), value: p.bool() }),
			async handler(ctx: Ctx<{ email: string; permission: SpecialPermission; value: boolean }>) {
				const user = await db.User.findOne({ realm_id: db.realm._id, email_key: ctx.params.email.trim().toLowerCase() }).lean();
				if (!user) throw noSuchUser();
				await applyUpdate(db, user._id, { [ctx.params.permission]: ctx.params.value });
				await changed(ctx, [user._id]);
				return {};
			},
		},

		/**
		 * For the management CLI: what its command broadcast in its own process, for a running users
		 * replica to broadcast on the server's bus. Answers once relayed, at once when no server runs,
		 * or once it concluded that none took it.
		 */
		relayChanges: {
			visibility: "public",
			params: params({ events: p.list(p.object({ event: p.string(), payload: { type: "any", optional: true } })) }),
			async handler(ctx: Ctx<{ events: RelayedEvent[] }>) {
				return { outcome: await relayThroughServer(db, ctx.params.events) };
			},
		},
	};
}
