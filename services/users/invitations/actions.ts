// What the invites service asks of the users service: the accounts and seats behind addresses it
// is asked to invite, whether the inviter may add people to the groups named, the account an
// accepted invitation creates (with its groups), and Welcome Bot.
import { requireUser, type Ctx, type InviteContext, type InvitedUser } from "../../../shared/actions";
import { badRequest, insufficientPermission } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { ROLES } from "../../../shared/roles";
import { createUser } from "../accounts/accounts";
import { realmSetting } from "../realm/realm-settings";
import { canManage, groupSettings } from "../groups/user-group-rules";
import { systemBot, WELCOME_BOT_EMAIL } from "../accounts/system-bots";
import type { ServiceDeps } from "../deps";

/** Zulip's refusal at sign-up when every seat is taken. */
const noSeats = () =>
	badRequest("New members cannot join this organization because all licenses are in use. Please contact the person who invited you and ask them to increase the number of licenses, then try again.");

export function invitationActions({ db, graphs, identity, changed, groupsChanged, groupBefore }: ServiceDeps) {
	const activeHumans = () => db.User.countDocuments({ realm_id: db.realm._id, is_active: true, is_bot: false });

	return {
		inviteContext: {
			visibility: "public",
			params: params({ emails: p.stringList() }),
			async handler(ctx: Ctx<{ emails: string[] }>): Promise<InviteContext> {
				const keys = [...new Set(ctx.params.emails.map((e) => e.toLowerCase()))];
				const [found, active_humans] = await Promise.all([
					keys.length ? db.User.find({ realm_id: db.realm._id, email_key: { $in: keys } }, { email_key: 1, is_active: 1 }).lean() : [],
					activeHumans(),
				]);
				return {
					accounts: found.map((u) => ({ email: u.email_key, is_active: u.is_active })),
					active_humans,
					realm: { name: db.realm.name, url: db.realm.url, welcome_message_custom_text: realmSetting<string>(db.realm, "realm_welcome_message_custom_text") },
				};
			},
		},

		/** Zulip's access_user_group_for_update with can_add_members_group, for each group, as the caller. */
		checkInviteGroups: {
			visibility: "public",
			params: params({ group_ids: p.intList() }),
			async handler(ctx: Ctx<{ group_ids: number[] }>) {
				const actor = requireUser(ctx);
				if (!ctx.params.group_ids.length) return {};
				const graph = await graphs.get();
				const groups = new Map((await db.UserGroup.find({ _id: { $in: ctx.params.group_ids }, realm_id: db.realm._id }).lean()).map((g) => [g._id, g]));
				for (const id of ctx.params.group_ids) {
					const g = groups.get(id);
					if (!g) throw badRequest("Invalid user group");
					if (g.is_system_group || g.deactivated) throw insufficientPermission();
					if (!canManage(graph, g, actor) && !graph.allows(groupSettings(g, graph).can_add_members_group, actor.user_id)) throw insufficientPermission();
				}
				return {};
			},
		},

		/**
		 * The account an accepted invitation creates: Zulip's rules for its name, password and
		 * address, the seat limit, then the invitation's groups (those still active; the inviter's
		 * permission was checked when inviting, as in Zulip).
		 */
		createInvitedUser: {
			visibility: "public",
			params: params({
				email: p.string(),
				full_name: p.string(),
				password: p.string(),
				role: p.oneOf(ROLES),
				group_ids: p.intList(),
				seat_limit: p.int({ min: 0 }),
			}),
			async handler(ctx: Ctx<InvitedUser>) {
				const q = ctx.params;
				if (q.seat_limit > 0 && (await activeHumans()) >= q.seat_limit) throw noSeats();
				const user = await createUser(db.User, db.nextId, {
					realm_id: db.realm._id,
					email: q.email,
					full_name: q.full_name,
					password: q.password,
					role: q.role,
					require_unique_names: realmSetting(db.realm, "realm_require_unique_names"),
				});
				await changed(ctx, [user._id], undefined, true);
				const groups = q.group_ids.length
					? await db.UserGroup.find({ _id: { $in: q.group_ids }, realm_id: db.realm._id, is_system_group: false, deactivated: false }, { _id: 1 }).lean()
					: [];
				for (const g of groups) {
					const before = await groupBefore(g._id);
					// One atomic update per group: concurrent membership changes are kept.
					await db.UserGroup.updateOne({ _id: g._id }, { $addToSet: { members: user._id } });
					await groupsChanged(ctx, g._id, before);
				}
				return { user_id: user._id, email: user.delivery_email, full_name: user.full_name };
			},
		},

		welcomeBot: {
			visibility: "public",
			cache: { ttl: 3600 },
			async handler() {
				return identity(await systemBot(db.User, WELCOME_BOT_EMAIL));
			},
		},
	};
}
