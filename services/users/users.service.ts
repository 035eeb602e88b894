// The users service: the organization, users and bots, roles, authentication and API keys.
import type { Connection, Model } from "mongoose";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import type { ApiUser, Identity, Meta, RegisterStateParams } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import {
	adminRequired,
	authenticationFailed,
	badRequest,
	invalidApiKey,
	malformedApiKey,
	ownerRequired,
	realmDeactivated,
	userDeactivated,
} from "../../shared/errors";
import { p, params } from "../../shared/params";
import { API_KEY_PATTERN, verifyPassword } from "../../shared/passwords";
import { isAdmin, isOwner, Role, ROLES } from "../../shared/roles";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../../shared/version";
import { realmModel, type RealmDoc } from "./models/realm";
import { userModel, type UserDoc } from "./models/user";
import { apiEmail, canSeeDeliveryEmail, toApiUser, type ViewOptions } from "./user-view";
import { createUser } from "./accounts";
import { ensureOwner, ensureRealm } from "./bootstrap";
import { realmHost } from "./realm-settings";
import { registerState } from "./register-state";

type Ctx<P = Record<string, never>> = Context<P, Meta>;

const viewParams = {
	client_gravatar: p.bool({ optional: true, default: true }),
	include_custom_profile_fields: p.bool({ optional: true, default: false }),
};

type ViewParams = { client_gravatar: boolean; include_custom_profile_fields: boolean };

export function usersService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	let User: Model<UserDoc>;
	let Realm: Model<RealmDoc>;
	let nextId: (entity: string) => Promise<number>;
	let realm: RealmDoc;

	const me = (ctx: Ctx<any>): Identity => {
		const user = ctx.meta.user;
		if (!user) throw badRequest("Not logged in");
		return user;
	};

	const requireAdmin = (ctx: Ctx<any>): Identity => {
		const user = me(ctx);
		if (!isAdmin(user.role)) throw adminRequired();
		return user;
	};

	const view = (p: Partial<ViewParams>): ViewOptions => ({
		clientGravatar: p.client_gravatar ?? true,
		includeCustomProfileFields: p.include_custom_profile_fields ?? false,
		realmHost: realmHost(realm),
	});

	const identity = (u: UserDoc): Identity => ({
		user_id: u._id,
		realm_id: u.realm_id,
		email: apiEmail(u, realmHost(realm)),
		delivery_email: u.delivery_email,
		full_name: u.full_name,
		role: u.role,
		is_bot: u.is_bot,
	});

	const noSuchUser = () => badRequest("No such user");

	async function findUser(userId: number): Promise<UserDoc> {
		const u = await User.findOne({ _id: userId, realm_id: realm._id }).lean();
		if (!u) throw noSuchUser();
		return u;
	}

	/** Tells every node that these users changed: gateways drop cached credentials, caches clean. */
	function changed(ctx: Ctx<any>, userIds: number[]) {
		return ctx.broadcast("users.changed", { user_ids: userIds });
	}

	return {
		name: "users",
		actions: {
			authenticate: {
				visibility: "public",
				params: params({ email: p.string(), api_key: p.string() }),
				async handler(ctx: Ctx<{ email: string; api_key: string }>): Promise<Identity> {
					const key = ctx.params.api_key.trim();
					if (!API_KEY_PATTERN.test(key)) throw malformedApiKey();
					const user = await User.findOne({ api_key: key }).lean();
					if (!user) throw invalidApiKey();
					const email = ctx.params.email.toLowerCase();
					if (email !== user.email_key && email !== apiEmail(user, realmHost(realm)).toLowerCase()) throw invalidApiKey();
					if (!user.is_active) throw userDeactivated();
					if (realm.deactivated) throw realmDeactivated();
					return identity(user);
				},
			},

			fetchApiKey: {
				params: params({ username: p.string(), password: p.string() }),
				async handler(ctx: Ctx<{ username: string; password: string }>) {
					const user = await User.findOne({ realm_id: realm._id, email_key: ctx.params.username.trim().toLowerCase() }).lean();
					// Verify even for unknown users? No: but answer the same error, so addresses are not revealed.
					if (!user || !(await verifyPassword(ctx.params.password, user.password_hash))) throw authenticationFailed();
					if (!user.is_active) throw userDeactivated();
					if (realm.deactivated) throw realmDeactivated();
					return { api_key: user.api_key, email: user.delivery_email, user_id: user._id };
				},
			},

			serverSettings: {
				params: params({}),
				handler() {
					return {
						authentication_methods: {
							password: true,
							dev: false,
							email: true,
							ldap: false,
							remoteuser: false,
							github: false,
							azuread: false,
							gitlab: false,
							apple: false,
							google: false,
							saml: false,
							"openid connect": false,
						},
						external_authentication_methods: [],
						zulip_feature_level: ZULIP_FEATURE_LEVEL,
						zulip_version: ZULIP_VERSION,
						zulip_merge_base: ZULIP_MERGE_BASE,
						push_notifications_enabled: false,
						is_incompatible: false,
						email_auth_enabled: true,
						require_email_format_usernames: true,
						realm_uri: realm.url,
						realm_url: realm.url,
						realm_name: realm.name,
						realm_icon: `${realm.url}/static/images/logo/org_avatar.png`,
						realm_description: realm.description ? `<p>${escapeHtml(realm.description)}</p>` : "",
						realm_web_public_access_enabled: false,
					};
				},
			},

			me: {
				params: params({}),
				cache: { keys: ["#user.user_id"] },
				async handler(ctx: Ctx) {
					const self = me(ctx);
					const user = await findUser(self.user_id);
					return {
						...toApiUser(user, self, { ...view({ client_gravatar: false }), includeCustomProfileFields: true }),
						// Deprecated; the messages service will answer this once it exists.
						max_message_id: -1,
					};
				},
			},

			list: {
				params: params(viewParams),
				async handler(ctx: Ctx<ViewParams>) {
					const self = me(ctx);
					const users = await User.find({ realm_id: realm._id }).sort({ _id: 1 }).lean();
					return { members: users.map((u) => toApiUser(u, self, view(ctx.params))) };
				},
			},

			getMany: {
				visibility: "public",
				params: params({ user_ids: p.intList(), ...viewParams }),
				async handler(ctx: Ctx<ViewParams & { user_ids: number[] }>): Promise<{ users: ApiUser[] }> {
					const users = await User.find({ _id: { $in: ctx.params.user_ids }, realm_id: realm._id }).lean();
					return { users: users.map((u) => toApiUser(u, ctx.meta.user ?? null, view(ctx.params))) };
				},
			},

			get: {
				params: params({ user_id: p.int(), ...viewParams }),
				async handler(ctx: Ctx<ViewParams & { user_id: number }>) {
					const self = me(ctx);
					return { user: toApiUser(await findUser(ctx.params.user_id), self, view(ctx.params)) };
				},
			},

			getByEmail: {
				params: params({ email: p.string(), ...viewParams }),
				async handler(ctx: Ctx<ViewParams & { email: string }>) {
					const self = me(ctx);
					const target = await userByEmail(self, ctx.params.email);
					return { user: toApiUser(target, self, view(ctx.params)) };
				},
			},

			create: {
				params: params({ email: p.string(), password: p.string(), full_name: p.string() }),
				async handler(ctx: Ctx<{ email: string; password: string; full_name: string }>) {
					requireAdmin(ctx);
					const user = await createUser(User, nextId, { realm_id: realm._id, ...ctx.params });
					await changed(ctx, [user._id]);
					return { user_id: user._id };
				},
			},

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
					const user = await createUser(User, nextId, { realm_id: realm._id, ...ctx.params, password: ctx.params.password ?? null });
					await changed(ctx, [user._id]);
					return { user_id: user._id, email: user.delivery_email, api_key: user.api_key, site: realm.url };
				},
			},

			/** For the management CLI: an existing user's credentials, to print their zuliprc. */
			credentials: {
				visibility: "public",
				params: params({ email: p.string() }),
				async handler(ctx: Ctx<{ email: string }>) {
					const user = await User.findOne({ realm_id: realm._id, email_key: ctx.params.email.trim().toLowerCase() }).lean();
					if (!user) throw noSuchUser();
					return { user_id: user._id, email: user.delivery_email, api_key: user.api_key, site: realm.url };
				},
			},

			deactivate: {
				params: params({ user_id: p.int(), deactivation_notification_comment: p.string({ optional: true, max: 2000 }) }),
				async handler(ctx: Ctx<{ user_id: number }>) {
					const actor = requireAdmin(ctx);
					const target = await findUser(ctx.params.user_id);
					if (!target.is_active || target.is_bot) throw noSuchUser();
					if (isOwner(target.role)) {
						if (!isOwner(actor.role)) throw ownerRequired();
						const owners = await User.countDocuments({ realm_id: realm._id, role: Role.OWNER, is_active: true });
						if (owners <= 1) throw badRequest("Cannot deactivate the only organization owner");
					}
					await User.updateOne({ _id: target._id }, { $set: { is_active: false } });
					await changed(ctx, [target._id]);
					return {};
				},
			},

			reactivate: {
				params: params({ user_id: p.int() }),
				async handler(ctx: Ctx<{ user_id: number }>) {
					requireAdmin(ctx);
					const target = await findUser(ctx.params.user_id);
					if (target.is_active) throw badRequest("User is already active");
					await User.updateOne({ _id: target._id }, { $set: { is_active: true } });
					await changed(ctx, [target._id]);
					return {};
				},
			},

			registerState: {
				visibility: "public",
				async handler(ctx: Ctx<RegisterStateParams>) {
					const self = me(ctx);
					const [user, all] = await Promise.all([findUser(self.user_id), User.find({ realm_id: realm._id }).sort({ _id: 1 }).lean()]);
					return registerState({ realm, user, all, params: ctx.params });
				},
			},

			/** The do-nothing action `npm run bench` measures as its baseline. */
			noop: {
				params: params({}),
				handler() {
					return {};
				},
			},
		},

		events: {
			async "users.changed"(this: any) {
				await this.broker.cacher?.clean("users.**");
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "users");
			User = userModel(conn);
			Realm = realmModel(conn);
			nextId = counters(conn);
			await ensureIndexes(conn);
			realm = await ensureRealm(Realm, config);
			await ensureOwner(User, nextId, realm, config, this.logger);
		},

		async stopped() {
			await conn?.close();
		},
	} as ServiceSchema;

	/** GET /users/{email}: the real address where the caller may see it, else the placeholder. */
	async function userByEmail(viewer: Identity, email: string): Promise<UserDoc> {
		const key = email.trim().toLowerCase();
		const byReal = await User.findOne({ realm_id: realm._id, email_key: key }).lean();
		if (byReal && canSeeDeliveryEmail(viewer, byReal)) return byReal;
		const m = /^user(\d+)@(.+)$/.exec(key);
		if (m && m[2] === realmHost(realm).toLowerCase()) {
			const byId = await User.findOne({ _id: Number(m[1]), realm_id: realm._id }).lean();
			if (byId && apiEmail(byId, realmHost(realm)).toLowerCase() === key) return byId;
		}
		throw noSuchUser();
	}
}

function escapeHtml(s: string): string {
	return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}
