// GET /users, GET /users/{user_id}, GET /users/{email}, GET /users/me, POST /users, PATCH
// /users/{user_id} and /users/{email}, deactivating and reactivating users (administrators), and
// DELETE /users/me (a user deactivating their own account).
// Each change is announced as users.changed; a role change or a (de)activation also asks the
// channels service for its stream and peer events. The rules live in user-admin.ts and
// accounts.ts.
import { call, requireUser, type ApiUser } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { ROLES } from "../../../shared/roles";
import type { UserDoc } from "../models/user";
import { createUser } from "./accounts";
import { SYSTEM_REALM_ID } from "./system-bots";
import { realmSetting } from "../realm/realm-settings";
import { applyUpdate, checkDeactivation, checkOwnDeactivation, updateUser, type UserChanges } from "./user-admin";
import { PROFILE_KEYS } from "./profile-cache";
import { withOwnerGuard } from "./owner-guard";
import { shownUsers } from "./shown-users";
import type { ViewParams } from "../user-lookup";
import { toApiUser } from "../user-view";
import { accessBot, channelNames, checkBotReactivation, defaultChannelIds, realmBotView } from "../bots/bot-rules";
import { requireAdmin, type Ctx, type ServiceDeps } from "../deps";
import { serviceMissing, tellChannels, visibleChannels } from "./channel-calls";

const viewParams = {
	client_gravatar: p.bool({ optional: true, default: true }),
	include_custom_profile_fields: p.bool({ optional: true, default: false }),
};

const userChangeParams = {
	full_name: p.string({ optional: true }),
	role: p.oneOf(ROLES, { optional: true }),
	profile_data: p.list(p.object({ id: p.int(), value: { type: "any", nullable: true } }), { optional: true }),
	new_email: p.string({ optional: true }),
};

export function userActions({ db, graphs, view, findUser, userByEmail, changed, systemGroupsChanged, shown }: ServiceDeps) {
	/** The messages service's answer; -1 on a node of a cluster that runs no messages service. */
	async function maxMessageId(ctx: Ctx): Promise<number> {
		// A node of a cluster without the messages service: -1 at once, with no error built and logged per request.
		if (!ctx.broker.registry.actions.isAvailable("messages.maxMessageId")) return -1;
		try {
			return (await call(ctx, "messages.maxMessageId", {})).max_message_id;
		} catch (err) {
			if (serviceMissing(err)) return -1;
			throw err;
		}
	}

	async function adminUpdate(ctx: Ctx<UserChanges>, target: UserDoc) {
		const actor = requireAdmin(ctx);
		const { full_name, role, new_email, profile_data } = ctx.params;
		// What the user could see before a role change, for the channels service to compare after it.
		const roleChange = role !== undefined && role !== target.role;
		const seen = roleChange ? await visibleChannels(ctx, target) : undefined;
		// A role change may remove an owner: checked and written holding the owner guard, on the user as they are then.
		const write = async () => {
			const now = roleChange ? await findUser(target._id) : target;
			return { oldRole: now.role, changes: await updateUser(db, actor, now, { full_name, role, new_email, profile_data }) };
		};
		const { oldRole, changes } = roleChange ? await withOwnerGuard(db, write) : await write();
		if (Object.keys(changes).length) await changed(ctx, [target._id], changes);
		if (changes.role !== undefined) {
			await systemGroupsChanged(ctx, target._id, oldRole);
			if (seen) await tellChannels(ctx, () => call(ctx, "channels.userRoleChanged", { user_id: target._id, role: changes.role as number, channel_ids: seen }));
		}
		return {};
	}

	/**
	 * Deactivates a user and their active bots, as Zulip's do_deactivate_user: `check` runs on the
	 * user as they are while the owner guard is held, then the bots are written first (a failure
	 * midway never leaves the user deactivated with active bots), then the user. Each is announced
	 * (their event queues go with it); reactivating the user later leaves the bots deactivated.
	 */
	async function deactivate(ctx: Ctx<any>, userId: number, check: (user: UserDoc) => Promise<void>) {
		const { user, botIds } = await withOwnerGuard(db, async () => {
			const user = await findUser(userId);
			await check(user);
			const bots = await db.User.find({ realm_id: db.realm._id, bot_owner_id: user._id, is_bot: true, is_active: true }, { _id: 1 }).lean();
			const botIds = bots.map((b) => b._id);
			if (botIds.length) await db.User.updateMany({ _id: { $in: botIds }, is_active: true }, { $set: { is_active: false } });
			await applyUpdate(db, user._id, { is_active: false });
			return { user, botIds };
		});
		for (const id of [...botIds, user._id]) {
			await changed(ctx, [id], { is_active: false });
			await tellChannels(ctx, () => call(ctx, "channels.userActivityChanged", { user_id: id, is_active: false }));
		}
		return {};
	}

	return {
		me: {
			params: params({}),
			async handler(ctx: Ctx) {
				const [profile, max_message_id] = await Promise.all([call(ctx, "users.myProfile", {}), maxMessageId(ctx)]);
				// Deprecated in Zulip, but still sent: the newest message ID the user has.
				return { ...profile, max_message_id };
			},
		},

		/** GET /users/me without max_message_id, cached per user (cleaned on users.changed). */
		myProfile: {
			params: params({}),
			cache: { keys: PROFILE_KEYS },
			async handler(ctx: Ctx) {
				const self = requireUser(ctx);
				const user = await findUser(self.user_id);
				const opts = await view({ client_gravatar: false, include_custom_profile_fields: true });
				return toApiUser(user, self, opts);
			},
		},

		list: {
			params: params(viewParams),
			async handler(ctx: Ctx<ViewParams>) {
				const self = requireUser(ctx);
				const [users, opts] = await Promise.all([db.User.find({ realm_id: db.realm._id }).sort({ _id: 1 }).lean(), view(ctx.params)]);
				return { members: users.map((u) => toApiUser(u, self, opts)) };
			},
		},

		getMany: {
			visibility: "public",
			params: params({ user_ids: p.intList(), ...viewParams }),
			async handler(ctx: Ctx<ViewParams & { user_ids: number[] }>): Promise<{ users: ApiUser[] }> {
				const [users, opts] = await Promise.all([shownUsers(db, shown, ctx.params.user_ids, ctx.params.include_custom_profile_fields ?? false), view(ctx.params)]);
				return { users: users.map((u) => toApiUser(u, ctx.meta.user ?? null, opts)) };
			},
		},

		get: {
			params: params({ user_id: p.int(), ...viewParams }),
			async handler(ctx: Ctx<ViewParams & { user_id: number }>) {
				const self = requireUser(ctx);
				// System bots can be looked up by ID too (they send messages), as in Zulip.
				const user = (await db.User.findOne({ _id: ctx.params.user_id, realm_id: SYSTEM_REALM_ID }).lean()) ?? (await findUser(ctx.params.user_id));
				return { user: toApiUser(user, self, await view(ctx.params)) };
			},
		},

		getByEmail: {
			params: params({ email: p.string(), ...viewParams }),
			async handler(ctx: Ctx<ViewParams & { email: string }>) {
				const self = requireUser(ctx);
				return { user: toApiUser(await userByEmail(self, ctx.params.email), self, await view(ctx.params)) };
			},
		},

		create: {
			params: params({ email: p.string(), password: p.string(), full_name: p.string() }),
			async handler(ctx: Ctx<{ email: string; password: string; full_name: string }>) {
				const actor = requireAdmin(ctx);
				// As Zulip: an administrator with the special permission an operator grants.
				if (!(await db.User.exists({ _id: actor.user_id, can_create_users: true }))) throw badRequest("User not authorized to create users");
				const user = await createUser(db.User, db.nextId, { realm_id: db.realm._id, ...ctx.params, require_unique_names: realmSetting(db.realm, "realm_require_unique_names") });
				await changed(ctx, [user._id], undefined, true);
				// As Zulip's do_create_user: the organization's default channels. The account exists by
				// now: a channels service out of reach must not turn that into an error the client would
				// retry ("Email already in use"), so the failure is logged, for an administrator to mend.
				await call(ctx, "channels.subscribeNewUser", { user_id: user._id, channel_ids: [], include_defaults: true }).catch((err: unknown) => {
					ctx.service?.logger.error({ err, user_id: user._id }, "the new user was not subscribed to the default channels");
				});
				return { user_id: user._id };
			},
		},

		update: {
			params: params({ user_id: p.int(), ...userChangeParams }),
			async handler(ctx: Ctx<UserChanges & { user_id: number }>) {
				requireAdmin(ctx);
				return adminUpdate(ctx, await findUser(ctx.params.user_id));
			},
		},

		updateByEmail: {
			params: params({ email: p.string(), ...userChangeParams }),
			async handler(ctx: Ctx<UserChanges & { email: string }>) {
				const actor = requireAdmin(ctx);
				return adminUpdate(ctx, await userByEmail(actor, ctx.params.email));
			},
		},

		deactivate: {
			params: params({ user_id: p.int(), deactivation_notification_comment: p.string({ optional: true, max: 2000 }) }),
			async handler(ctx: Ctx<{ user_id: number }>) {
				const actor = requireAdmin(ctx);
				return deactivate(ctx, ctx.params.user_id, (target) => checkDeactivation(db, actor, target));
			},
		},

		/** DELETE /bots/{bot_id}: the bot's owner or an administrator (Zulip's deactivate_bot_backend). */
		deactivateBot: {
			params: params({ bot_id: p.int() }),
			async handler(ctx: Ctx<{ bot_id: number }>) {
				const bot = await accessBot(db, requireUser(ctx), ctx.params.bot_id);
				// Already deactivated: nothing changes (Zulip's do_deactivate_user returns at once).
				if (!bot.is_active) return {};
				return deactivate(ctx, bot._id, async (b) => {
					if (!b.is_active) throw badRequest("No such bot");
				});
			},
		},

		deactivateMe: {
			params: params({}),
			async handler(ctx: Ctx) {
				return deactivate(ctx, requireUser(ctx).user_id, (self) => checkOwnDeactivation(db, self));
			},
		},

		reactivate: {
			params: params({ user_id: p.int() }),
			async handler(ctx: Ctx<{ user_id: number }>) {
				const actor = requireAdmin(ctx);
				const target = await findUser(ctx.params.user_id);
				if (target.is_active) throw badRequest("User is already active");
				const { set, extra } = target.is_bot ? await checkBotReactivation(db, await graphs.get(), actor, target) : { set: { is_active: true }, extra: {} };
				await applyUpdate(db, target._id, set);
				if (extra.bot_owner_change) extra.bot_owner_change.bot = realmBotView({ ...target, ...set } as UserDoc, await channelNames(ctx, defaultChannelIds([target])));
				await changed(ctx, [target._id], { is_active: true }, false, extra);
				await tellChannels(ctx, () => call(ctx, "channels.userActivityChanged", { user_id: target._id, is_active: true }));
				return {};
			},
		},
	};
}
