// The users service: the organization, users and bots, roles, authentication and API keys,
// personal settings and custom profile fields. Handlers are thin; the rules live in the modules
// beside this file.
import type { Connection } from "mongoose";
import { Errors, type Context, type ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { call, requireUser, type ApiUser, type Identity, type Meta, type RegisterStateParams } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import {
	adminRequired,
	authenticationFailed,
	badRequest,
	ownerRequired,
	realmDeactivated,
	unauthorized,
	userDeactivated,
} from "../../shared/errors";
import { renderMarkdown } from "../../shared/markdown/render";
import { p, params } from "../../shared/params";
import { API_KEY_PATTERN, verifyPassword } from "../../shared/passwords";
import { isAdmin, isOwner, Role, ROLES } from "../../shared/roles";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../../shared/version";
import { realmModel } from "./models/realm";
import { userModel, type UserDoc } from "./models/user";
import { profileFieldModel } from "./models/profile-field";
import { emailChangeModel } from "./models/email-change";
import type { UsersDb } from "./db";
import { apiEmail, canSeeDeliveryEmail, toApiUser, type ViewOptions } from "./user-view";
import { createUser } from "./accounts";
import { ensureOwner, ensureRealm } from "./bootstrap";
import { ensureSystemBots, notificationBot, SYSTEM_REALM_ID, systemBots } from "./system-bots";
import { legacyPolicies, realmHost, realmSetting } from "./realm-settings";
import { realmBotView, registerState } from "./register-state";
import { LANGUAGES } from "./languages";
import type { GroupsChanged, ProfileFieldsChanged, SettingsChanged, UsersChanged } from "../../shared/org-events";
import { groupChange, groupSnapshot } from "./group-events";
import { updateUser, applyUpdate, type UserChanges } from "./user-admin";
import { SETTINGS_PARAMS, updateSettings } from "./settings-update";
import { userSettings } from "./user-settings";
import { confirmEmailChange } from "./email-change";
import { createField, deleteField, fieldMap, listFields, reorderFields, updateField, type FieldInput } from "./profile-field-store";
import { fieldView } from "./profile-fields";
import { profileDataUpdate } from "./profile-data";
import { userGroupModel, GROUP_SETTINGS, type GroupSettingName } from "./models/user-group";
import { ensureSystemGroups, systemGroupMoves } from "./system-groups";
import {
	createGroup,
	deactivateGroup,
	findGroup,
	graphData,
	groupView,
	loadGroups,
	updateGroup,
	updateMembers,
	updateSubgroups,
} from "./user-groups";
import { GroupGraphCache, type GroupGraphData } from "../../shared/group-settings";
import { realmActions } from "./actions/realm";
import { invitationActions } from "./actions/invitations";
import { navigationViewActions } from "./actions/navigation-views";
import { playgroundActions } from "./actions/playgrounds";
import { linkifierActions } from "./actions/linkifiers";
import { linkifierModel } from "./models/linkifier";
import { navigationViewModel } from "./models/navigation-view";
import { playgroundModel } from "./models/playground";
import { listSettingsState } from "./list-settings";

type Ctx<P = Record<string, never>> = Context<P, Meta>;

const viewParams = {
	client_gravatar: p.bool({ optional: true, default: true }),
	include_custom_profile_fields: p.bool({ optional: true, default: false }),
};

type ViewParams = { client_gravatar: boolean; include_custom_profile_fields: boolean };

const userChangeParams = {
	full_name: p.string({ optional: true }),
	role: p.oneOf(ROLES, { optional: true }),
	profile_data: p.list(p.object({ id: p.int(), value: { type: "any", nullable: true } }), { optional: true }),
	new_email: p.string({ optional: true }),
};

const fieldParams = {
	name: p.string({ optional: true }),
	hint: p.string({ optional: true }),
	field_data: p.either([p.object({}, { optional: true }), p.string()], { optional: true }),
	display_in_profile_summary: p.bool({ optional: true }),
	required: p.bool({ optional: true }),
	editable_by_user: p.bool({ optional: true }),
};

const REALM_POLL_MS = 5_000;

const groupSettingParams = Object.fromEntries(GROUP_SETTINGS.map((k) => [k, p.json({ optional: true })]));

type GroupSettingsInput = Partial<Record<GroupSettingName, unknown>>;

export function usersService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	const db = {} as UsersDb;
	const graphs = new GroupGraphCache(() => graphData(db));
	let realmPoll: NodeJS.Timeout | undefined;

	/** Re-reads the organization; if it changed, tells every node. */
	async function reloadRealm(broker: { broadcast(event: string, payload: unknown): Promise<void> | void }) {
		try {
			const fresh = await db.Realm.findById(db.realm._id).lean();
			if (!fresh || JSON.stringify(fresh) === JSON.stringify(db.realm)) return;
			db.realm = fresh;
			graphs.invalidate();
			await broker.broadcast("users.groupsChanged", { realm_id: db.realm._id });
		} catch {
			/* the store is briefly unreachable: try again at the next tick */
		}
	}

	const me = (ctx: Ctx<any>): Identity => requireUser(ctx);

	const requireAdmin = (ctx: Ctx<any>): Identity => {
		const user = me(ctx);
		if (!isAdmin(user.role)) throw adminRequired();
		return user;
	};

	const host = () => realmHost(db.realm);

	async function view(p: Partial<ViewParams>): Promise<ViewOptions> {
		const include = p.include_custom_profile_fields ?? false;
		return {
			clientGravatar: p.client_gravatar ?? true,
			includeCustomProfileFields: include,
			realmHost: host(),
			fields: include ? await fieldMap(db) : undefined,
		};
	}

	const identity = (u: UserDoc): Identity => ({
		user_id: u._id,
		realm_id: u.realm_id,
		email: apiEmail(u, host()),
		delivery_email: u.delivery_email,
		full_name: u.full_name,
		role: u.role,
		is_bot: u.is_bot,
	});

	const noSuchUser = () => badRequest("No such user");

	/** Some of a user's settings, defaults filled in (unknown names are left out). */
	const settingsNamed = (u: UserDoc, names: string[]) => {
		const all = userSettings(u);
		return Object.fromEntries(names.filter((n) => Object.hasOwn(all, n)).map((n) => [n, all[n]]));
	};

	/** The messages service's answer; -1 on a node of a cluster that runs no messages service. */
	async function maxMessageId(ctx: Ctx): Promise<number> {
		try {
			return (await call(ctx, "messages.maxMessageId", {})).max_message_id;
		} catch (err) {
			if (err instanceof Errors.ServiceNotFoundError || err instanceof Errors.ServiceNotAvailableError) return -1;
			throw err;
		}
	}

	async function findUser(userId: number): Promise<UserDoc> {
		const u = await db.User.findOne({ _id: userId, realm_id: db.realm._id }).lean();
		if (!u) throw noSuchUser();
		return u;
	}

	/** GET /users/{email}: the real address where the caller may see it, else the placeholder. */
	async function userByEmail(viewer: Identity, email: string): Promise<UserDoc> {
		const key = email.trim().toLowerCase();
		const byReal = await db.User.findOne({ realm_id: db.realm._id, email_key: key }).lean();
		if (byReal && canSeeDeliveryEmail(viewer, byReal)) return byReal;
		const m = /^user(\d+)@(.+)$/.exec(key);
		if (m && m[2] === host().toLowerCase()) {
			const byId = await db.User.findOne({ _id: Number(m[1]), realm_id: db.realm._id }).lean();
			if (byId && apiEmail(byId, host()).toLowerCase() === key) return byId;
		}
		throw noSuchUser();
	}

	/**
	 * Tells every node that these users changed: gateways drop cached credentials, caches are
	 * cleaned, and event queues tell clients what changed. A change to one user (or its creation)
	 * carries who may hear of it and how the user looks now (shared/org-events.ts).
	 */
	async function changed(ctx: Ctx<any>, userIds: number[], changes?: Record<string, unknown>, created = false) {
		const payload: UsersChanged = { user_ids: userIds, changes };
		if (userIds.length === 1 && (changes || created)) Object.assign(payload, await eventData(userIds[0], created));
		await ctx.broadcast("users.changed", payload);
		if (created && userIds.length === 1) await systemGroupsChanged(ctx, userIds[0]);
	}

	/** After a user's creation (no `oldRole`) or role change: the user_group events of its system groups. */
	async function systemGroupsChanged(ctx: Ctx<any>, userId: number, oldRole?: number) {
		const user = await db.User.findOne({ _id: userId, realm_id: db.realm._id }, { _id: 1, role: 1, date_joined: 1 }).lean();
		if (!user) return;
		const events = await systemGroupMoves(db, user, oldRole);
		if (events.length) await groupEvents(ctx, events);
	}

	/** Some user_group events, to every active user (Zulip's audience for them). */
	async function groupEvents(ctx: Ctx<any>, events: GroupsChanged["events"]) {
		graphs.invalidate();
		const active = await db.User.find({ realm_id: db.realm._id, is_active: true }, { _id: 1 }).lean();
		await ctx.broadcast("users.groupsChanged", { realm_id: db.realm._id, events, user_ids: active.map((u) => u._id) } satisfies GroupsChanged);
	}

	async function eventData(userId: number, created: boolean): Promise<Partial<UsersChanged>> {
		const [target, users] = await Promise.all([
			db.User.findOne({ _id: userId, realm_id: db.realm._id }).lean(),
			db.User.find({ realm_id: db.realm._id, is_active: true }, { _id: 1, role: 1 }).lean(),
		]);
		if (!target) return {};
		const ids = (keep: (u: { _id: number; role: number }) => boolean) => users.filter(keep).map((u) => u._id);
		const out: Partial<UsersChanged> = {
			user_id: userId,
			audience: {
				active: ids(() => true),
				email_viewers: ids((u) => canSeeDeliveryEmail({ user_id: u._id, role: u.role }, target)),
				admins: ids((u) => isAdmin(u.role)),
			},
			email: apiEmail(target, host()),
			delivery_email: target.delivery_email,
			gravatar: target.avatar_source === "G",
			bot_owner_id: target.bot_owner_id,
		};
		if (created) {
			out.person = { ...toApiUser(target, { user_id: target._id, role: target.role }, await view({ client_gravatar: false, include_custom_profile_fields: true })) };
			if (target.is_bot) out.bot = realmBotView(target);
		}
		return out;
	}

	async function adminUpdate(ctx: Ctx<UserChanges>, target: UserDoc) {
		const actor = requireAdmin(ctx);
		const { full_name, role, new_email, profile_data } = ctx.params;
		// What the user could see before a role change, for the channels service to compare after it.
		const seen = role !== undefined && role !== target.role ? await visibleChannels(ctx, target) : undefined;
		const changes = await updateUser(db, actor, target, { full_name, role, new_email, profile_data });
		if (Object.keys(changes).length) await changed(ctx, [target._id], changes);
		if (changes.role !== undefined) {
			await systemGroupsChanged(ctx, target._id, target.role);
			if (seen) await tellChannels(ctx, () => call(ctx, "channels.userRoleChanged", { user_id: target._id, role: changes.role as number, channel_ids: seen }));
		}
		return {};
	}

	/**
	 * After a change is written, the channels service announces its stream and peer events. The
	 * change stands if that fails (logged): clients catch up when they register again.
	 */
	async function tellChannels(ctx: Ctx<any>, run: () => Promise<unknown>) {
		try {
			await run();
		} catch (err) {
			if (err instanceof Errors.ServiceNotFoundError || err instanceof Errors.ServiceNotAvailableError) return;
			ctx.service?.logger.error({ err }, "the channels service could not announce a user's change");
		}
	}

	/** The channels a user may know about; undefined on a node of a cluster that runs no channels service. */
	async function visibleChannels(ctx: Ctx<any>, user: UserDoc): Promise<number[] | undefined> {
		try {
			return (await call(ctx, "channels.visibleChannels", { user_id: user._id, role: user.role })).channel_ids;
		} catch (err) {
			if (err instanceof Errors.ServiceNotFoundError || err instanceof Errors.ServiceNotAvailableError) return undefined;
			throw err;
		}
	}

	/**
	 * Group membership or settings changed: every node drops its group graph. A change to one
	 * group (`before`: how it was; none for a new one) carries its `user_group` events.
	 */
	async function groupsChanged(ctx: Ctx<any>, groupId?: number, before?: Record<string, unknown>) {
		graphs.invalidate();
		const payload: GroupsChanged = { realm_id: db.realm._id };
		if (groupId !== undefined) Object.assign(payload, await groupChange(db, await graphs.get(), groupId, before));
		await ctx.broadcast("users.groupsChanged", payload);
	}

	const groupBefore = async (groupId: number) => groupSnapshot(db, await graphs.get(), groupId);

	const pickSettings = (params: Record<string, unknown>): GroupSettingsInput =>
		Object.fromEntries(GROUP_SETTINGS.filter((k) => params[k] !== undefined).map((k) => [k, params[k]]));

	async function groupsView(includeDeactivated: boolean) {
		const [groups, graph, active] = await Promise.all([
			loadGroups(db),
			graphs.get(),
			db.User.find({ realm_id: db.realm._id, is_active: true }, { _id: 1 }).lean(),
		]);
		const activeIds = new Set(active.map((u) => u._id));
		return groups.filter((g) => includeDeactivated || !g.deactivated).map((g) => groupView(g, graph, activeIds));
	}

	/** Carries the fields now, for the `custom_profile_fields` event to every active user. */
	async function fieldsChanged(ctx: Ctx<any>) {
		const [fields, active] = await Promise.all([listFields(db), db.User.find({ realm_id: db.realm._id, is_active: true }, { _id: 1 }).lean()]);
		await ctx.broadcast("users.profileFieldsChanged", { realm_id: db.realm._id, fields: fields.map(fieldView), user_ids: active.map((u) => u._id) } satisfies ProfileFieldsChanged);
	}

	return {
		name: "users",
		actions: {
			...realmActions(db, graphs),
			...navigationViewActions(db),
			...playgroundActions(db),
			...linkifierActions(db),
			...invitationActions({ db, graphs, identity, groupBefore, created: (ctx, id) => changed(ctx, [id], undefined, true), groupChanged: groupsChanged }),

			authenticate: {
				visibility: "public",
				params: params({ email: p.string(), api_key: p.string() }),
				async handler(ctx: Ctx<{ email: string; api_key: string }>): Promise<Identity> {
					const key = ctx.params.api_key.trim();
					// Every refusal is 401 UNAUTHORIZED with Zulip's reason, in Zulip's order
					// (decorator.py: access_user_by_api_key, validate_account_and_subdomain).
					if (!API_KEY_PATTERN.test(key)) throw unauthorized("Malformed API key");
					const user = await db.User.findOne({ api_key: key }).lean();
					// System bots (another realm) never authenticate.
					if (!user || user.realm_id !== db.realm._id) throw unauthorized("Invalid API key");
					const email = ctx.params.email.toLowerCase();
					if (email !== user.email_key && email !== apiEmail(user, host()).toLowerCase()) throw unauthorized("Invalid API key");
					if (db.realm.deactivated) throw unauthorized("This organization has been deactivated");
					if (!user.is_active) throw unauthorized("Account is deactivated");
					return identity(user);
				},
			},

			fetchApiKey: {
				params: params({ username: p.string(), password: p.string() }),
				async handler(ctx: Ctx<{ username: string; password: string }>) {
					const user = await db.User.findOne({ realm_id: db.realm._id, email_key: ctx.params.username.trim().toLowerCase() }).lean();
					// Unknown address and wrong password answer alike, so addresses are not revealed.
					if (!user || !(await verifyPassword(ctx.params.password, user.password_hash))) throw authenticationFailed();
					if (!user.is_active) throw userDeactivated();
					if (db.realm.deactivated) throw realmDeactivated();
					return { api_key: user.api_key, email: user.delivery_email, user_id: user._id };
				},
			},

			serverSettings: {
				params: params({}),
				handler() {
					const realm = db.realm;
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
						realm_description: renderMarkdown(realm.description),
						realm_web_public_access_enabled: false,
					};
				},
			},

			me: {
				params: params({}),
				async handler(ctx: Ctx) {
					const [profile, max_message_id] = await Promise.all([ctx.call<ApiUser>("users.myProfile"), maxMessageId(ctx)]);
					// Deprecated in Zulip, but still sent: the newest message ID the user has.
					return { ...profile, max_message_id };
				},
			},

			/** GET /users/me without max_message_id, cached per user (cleaned on users.changed). */
			myProfile: {
				params: params({}),
				cache: { keys: ["#user.user_id"] },
				async handler(ctx: Ctx) {
					const self = me(ctx);
					const user = await findUser(self.user_id);
					const opts = await view({ client_gravatar: false, include_custom_profile_fields: true });
					return toApiUser(user, self, opts);
				},
			},

			list: {
				params: params(viewParams),
				async handler(ctx: Ctx<ViewParams>) {
					const self = me(ctx);
					const [users, opts] = await Promise.all([db.User.find({ realm_id: db.realm._id }).sort({ _id: 1 }).lean(), view(ctx.params)]);
					return { members: users.map((u) => toApiUser(u, self, opts)) };
				},
			},

			getMany: {
				visibility: "public",
				params: params({ user_ids: p.intList(), ...viewParams }),
				async handler(ctx: Ctx<ViewParams & { user_ids: number[] }>): Promise<{ users: ApiUser[] }> {
					// System bots are included: they send messages too.
					const realms = [db.realm._id, SYSTEM_REALM_ID];
					const [users, opts] = await Promise.all([db.User.find({ _id: { $in: ctx.params.user_ids }, realm_id: { $in: realms } }).lean(), view(ctx.params)]);
					return { users: users.map((u) => toApiUser(u, ctx.meta.user ?? null, opts)) };
				},
			},

			get: {
				params: params({ user_id: p.int(), ...viewParams }),
				async handler(ctx: Ctx<ViewParams & { user_id: number }>) {
					const self = me(ctx);
					// System bots can be looked up by ID too (they send messages), as in Zulip.
					const user = (await db.User.findOne({ _id: ctx.params.user_id, realm_id: SYSTEM_REALM_ID }).lean()) ?? (await findUser(ctx.params.user_id));
					return { user: toApiUser(user, self, await view(ctx.params)) };
				},
			},

			getByEmail: {
				params: params({ email: p.string(), ...viewParams }),
				async handler(ctx: Ctx<ViewParams & { email: string }>) {
					const self = me(ctx);
					return { user: toApiUser(await userByEmail(self, ctx.params.email), self, await view(ctx.params)) };
				},
			},

			create: {
				params: params({ email: p.string(), password: p.string(), full_name: p.string() }),
				async handler(ctx: Ctx<{ email: string; password: string; full_name: string }>) {
					requireAdmin(ctx);
					const user = await createUser(db.User, db.nextId, { realm_id: db.realm._id, ...ctx.params, require_unique_names: realmSetting(db.realm, "realm_require_unique_names") });
					await changed(ctx, [user._id], undefined, true);
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

			updateSettings: {
				params: params(SETTINGS_PARAMS),
				async handler(ctx: Ctx<Record<string, unknown>>) {
					const actor = me(ctx);
					const result = await updateSettings(db, actor, await findUser(actor.user_id), ctx.params);
					const { changes } = result;
					if (Object.keys(changes).length) {
						const language = typeof changes.default_language === "string" ? LANGUAGES.find((l) => l.code === changes.default_language) : undefined;
						await ctx.broadcast("users.settingsChanged", { user_id: actor.user_id, changes, ...(language ? { language_name: language.name } : {}) } satisfies SettingsChanged);
						await changed(ctx, [actor.user_id], changes);
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

			updateMyProfileData: {
				params: params({ data: p.list(p.object({ id: p.int(), value: { type: "any", nullable: true } })) }),
				async handler(ctx: Ctx<{ data: Array<{ id: number; value: unknown }> }>) {
					const actor = me(ctx);
					const update = await profileDataUpdate(db, ctx.params.data, !isAdmin(actor.role));
					await applyUpdate(db, actor.user_id, update.set, update.unset);
					if (update.changed) await changed(ctx, [actor.user_id], { profile_data: ctx.params.data });
					return {};
				},
			},

			deleteMyProfileData: {
				params: params({ data: p.intList() }),
				async handler(ctx: Ctx<{ data: number[] }>) {
					const actor = me(ctx);
					const update = await profileDataUpdate(db, ctx.params.data.map((id) => ({ id, value: null })), !isAdmin(actor.role));
					await applyUpdate(db, actor.user_id, update.set, update.unset);
					if (update.changed) await changed(ctx, [actor.user_id], { profile_data: ctx.params.data.map((id) => ({ id, value: null })) });
					return {};
				},
			},

			listProfileFields: {
				params: params({}),
				async handler(ctx: Ctx) {
					me(ctx);
					return { custom_fields: (await listFields(db)).map(fieldView) };
				},
			},

			createProfileField: {
				params: params({ ...fieldParams, name: p.string(), field_type: p.int() }),
				async handler(ctx: Ctx<FieldInput & { name: string; field_type: number }>) {
					requireAdmin(ctx);
					const id = await createField(db, ctx.params);
					await fieldsChanged(ctx);
					return { id };
				},
			},

			updateProfileField: {
				params: params({ field_id: p.int(), ...fieldParams }),
				async handler(ctx: Ctx<FieldInput & { field_id: number }>) {
					requireAdmin(ctx);
					const { field_id, ...input } = ctx.params;
					await updateField(db, field_id, input);
					await fieldsChanged(ctx);
					return {};
				},
			},

			deleteProfileField: {
				params: params({ field_id: p.int() }),
				async handler(ctx: Ctx<{ field_id: number }>) {
					requireAdmin(ctx);
					await deleteField(db, ctx.params.field_id);
					await fieldsChanged(ctx);
					return {};
				},
			},

			reorderProfileFields: {
				params: params({ order: p.intList() }),
				async handler(ctx: Ctx<{ order: number[] }>) {
					requireAdmin(ctx);
					await reorderFields(db, ctx.params.order);
					await fieldsChanged(ctx);
					return {};
				},
			},

			listGroups: {
				params: params({ include_deactivated_groups: p.bool({ optional: true }) }),
				async handler(ctx: Ctx<{ include_deactivated_groups?: boolean }>) {
					me(ctx);
					return { user_groups: await groupsView(ctx.params.include_deactivated_groups ?? false) };
				},
			},

			createGroup: {
				params: params({
					name: p.string(),
					description: p.string(),
					members: p.intList(),
					subgroups: p.intList({ optional: true }),
					...groupSettingParams,
				}),
				async handler(ctx: Ctx<{ name: string; description: string; members: number[]; subgroups?: number[] } & GroupSettingsInput>) {
					const actor = me(ctx);
					const id = await createGroup(db, await graphs.get(), actor, { ...ctx.params, settings: pickSettings(ctx.params) });
					await groupsChanged(ctx, id);
					return { group_id: id };
				},
			},

			updateGroup: {
				params: params({ user_group_id: p.int(), name: p.string({ optional: true }), description: p.string({ optional: true }), ...groupSettingParams }),
				async handler(ctx: Ctx<{ user_group_id: number; name?: string; description?: string } & GroupSettingsInput>) {
					const actor = me(ctx);
					const group = await findGroup(db, ctx.params.user_group_id);
					const before = await groupBefore(group._id);
					await updateGroup(db, await graphs.get(), actor, group, { ...ctx.params, settings: pickSettings(ctx.params) });
					await groupsChanged(ctx, group._id, before);
					return {};
				},
			},

			updateGroupMembers: {
				params: params({
					user_group_id: p.int(),
					add: p.intList({ optional: true }),
					delete: p.intList({ optional: true }),
					add_subgroups: p.intList({ optional: true }),
					delete_subgroups: p.intList({ optional: true }),
				}),
				async handler(ctx: Ctx<{ user_group_id: number; add?: number[]; delete?: number[]; add_subgroups?: number[]; delete_subgroups?: number[] }>) {
					const actor = me(ctx);
					const q = ctx.params;
					const group = await findGroup(db, q.user_group_id);
					const graph = await graphs.get();
					const before = await groupBefore(group._id);
					if (q.add?.length || q.delete?.length) await updateMembers(db, graph, actor, group, q.add ?? [], q.delete ?? []);
					if (q.add_subgroups?.length || q.delete_subgroups?.length) {
						await updateSubgroups(db, graph, actor, await findGroup(db, q.user_group_id), q.add_subgroups ?? [], q.delete_subgroups ?? []);
					}
					await groupsChanged(ctx, group._id, before);
					return {};
				},
			},

			updateGroupSubgroups: {
				params: params({ user_group_id: p.int(), add: p.intList({ optional: true }), delete: p.intList({ optional: true }) }),
				async handler(ctx: Ctx<{ user_group_id: number; add?: number[]; delete?: number[] }>) {
					const actor = me(ctx);
					const group = await findGroup(db, ctx.params.user_group_id);
					const before = await groupBefore(group._id);
					await updateSubgroups(db, await graphs.get(), actor, group, ctx.params.add ?? [], ctx.params.delete ?? []);
					await groupsChanged(ctx, group._id, before);
					return {};
				},
			},

			deactivateGroup: {
				params: params({ user_group_id: p.int() }),
				async handler(ctx: Ctx<{ user_group_id: number }>) {
					const actor = me(ctx);
					const group = await findGroup(db, ctx.params.user_group_id);
					const before = await groupBefore(group._id);
					await deactivateGroup(db, await graphs.get(), actor, group);
					await groupsChanged(ctx, group._id, before);
					return {};
				},
			},

			groupMembers: {
				params: params({ user_group_id: p.int(), direct_member_only: p.bool({ optional: true }) }),
				async handler(ctx: Ctx<{ user_group_id: number; direct_member_only?: boolean }>) {
					me(ctx);
					await findGroup(db, ctx.params.user_group_id);
					const graph = await graphs.get();
					const direct = graph.get(ctx.params.user_group_id)!.members.filter((u) => graph.members(ctx.params.user_group_id).has(u));
					const members = ctx.params.direct_member_only ? direct : [...graph.members(ctx.params.user_group_id)];
					return { members: members.sort((a, b) => a - b) };
				},
			},

			groupSubgroups: {
				params: params({ user_group_id: p.int(), direct_subgroup_only: p.bool({ optional: true }) }),
				async handler(ctx: Ctx<{ user_group_id: number; direct_subgroup_only?: boolean }>) {
					me(ctx);
					await findGroup(db, ctx.params.user_group_id);
					const graph = await graphs.get();
					const id = ctx.params.user_group_id;
					const all = [...graph.descendants(id)].filter((g) => g !== id);
					return { subgroups: (ctx.params.direct_subgroup_only ? graph.get(id)!.subgroups : all).sort((a, b) => a - b) };
				},
			},

			isGroupMember: {
				params: params({ user_group_id: p.int(), user_id: p.int(), direct_member_only: p.bool({ optional: true }) }),
				async handler(ctx: Ctx<{ user_group_id: number; user_id: number; direct_member_only?: boolean }>) {
					me(ctx);
					await findGroup(db, ctx.params.user_group_id);
					await findUser(ctx.params.user_id);
					const graph = await graphs.get();
					const { user_group_id: g, user_id: u } = ctx.params;
					const member = ctx.params.direct_member_only ? graph.get(g)!.members.includes(u) && graph.members(g).has(u) : graph.members(g).has(u);
					return { is_user_group_member: member };
				},
			},

			/**
			 * Principals (user IDs or emails) as the users they name; unknown or deactivated users
			 * are an error, as the subscription endpoints require.
			 */
			resolvePrincipals: {
				visibility: "public",
				params: params({ principals: p.list({ type: "multi", rules: [{ type: "number", integer: true }, { type: "string" }] }) }),
				async handler(ctx: Ctx<{ principals: Array<number | string> }>) {
					const ids = ctx.params.principals.filter((x): x is number => typeof x === "number");
					const emails = ctx.params.principals.filter((x): x is string => typeof x === "string").map((e) => e.trim().toLowerCase());
					const found = await db.User.find({ realm_id: db.realm._id, $or: [{ _id: { $in: ids } }, { email_key: { $in: emails } }] }).lean();
					const byId = new Map(found.map((u) => [u._id, u]));
					const byEmail = new Map(found.map((u) => [u.email_key, u]));
					const users = ctx.params.principals.map((x) => (typeof x === "number" ? byId.get(x) : byEmail.get(x.trim().toLowerCase())));
					if (users.some((u) => !u || !u.is_active)) throw noSuchUser();
					const unique = new Map(users.map((u) => [u!._id, u!]));
					return {
						users: [...unique.values()].map((u) => ({ user_id: u._id, role: u.role, is_bot: u.is_bot, bot_owner_id: u.bot_owner_id })),
					};
				},
			},

			/** The caller's values of some personal settings (defaults filled in), for other services. */
			mySettings: {
				visibility: "public",
				params: params({ names: p.stringList() }),
				async handler(ctx: Ctx<{ names: string[] }>) {
					return { values: settingsNamed(await findUser(me(ctx).user_id), ctx.params.names) };
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

			/** For the messages service: Notification Bot, who announces moved and resolved topics. */
			notificationBot: {
				visibility: "public",
				cache: { ttl: 3600 },
				async handler(): Promise<Identity> {
					return identity(await notificationBot(db.User));
				},
			},

			/**
			 * For message rendering: the users a message mentions, by exact full name or by ID.
			 * A name several active users share matches none (the sender must add |ID).
			 */
			mentionTargets: {
				visibility: "public",
				params: params({ names: p.stringList(), ids: p.intList() }),
				async handler(ctx: Ctx<{ names: string[]; ids: number[] }>) {
					const { names, ids } = ctx.params;
					if (!names.length && !ids.length) return { users: [] };
					const found = await db.User.find(
						{ realm_id: db.realm._id, is_active: true, $or: [{ full_name: { $in: names } }, { _id: { $in: ids } }] },
						{ _id: 1, full_name: 1 },
					).lean();
					const byName = new Map<string, number>();
					for (const u of found) byName.set(u.full_name, (byName.get(u.full_name) ?? 0) + 1);
					return {
						users: found.map((u) => ({ id: u._id, full_name: u.full_name, unique_name: byName.get(u.full_name) === 1 })),
					};
				},
			},

			/** Other services' permission checks evaluate group settings against this snapshot. */
			groupGraph: {
				visibility: "public",
				params: params({}),
				async handler(): Promise<GroupGraphData> {
					return graphData(db);
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
				params: params({ email: p.string(), permission: p.oneOf(["can_change_user_emails"]), value: p.bool() }),
				async handler(ctx: Ctx<{ email: string; permission: "can_change_user_emails"; value: boolean }>) {
					const user = await db.User.findOne({ realm_id: db.realm._id, email_key: ctx.params.email.trim().toLowerCase() }).lean();
					if (!user) throw noSuchUser();
					await applyUpdate(db, user._id, { [ctx.params.permission]: ctx.params.value });
					await changed(ctx, [user._id]);
					return {};
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
						const owners = await db.User.countDocuments({ realm_id: db.realm._id, role: Role.OWNER, is_active: true });
						if (owners <= 1) throw badRequest("Cannot deactivate the only organization owner");
					}
					await applyUpdate(db, target._id, { is_active: false });
					await changed(ctx, [target._id], { is_active: false });
					await tellChannels(ctx, () => call(ctx, "channels.userActivityChanged", { user_id: target._id, is_active: false }));
					return {};
				},
			},

			reactivate: {
				params: params({ user_id: p.int() }),
				async handler(ctx: Ctx<{ user_id: number }>) {
					requireAdmin(ctx);
					const target = await findUser(ctx.params.user_id);
					if (target.is_active) throw badRequest("User is already active");
					await applyUpdate(db, target._id, { is_active: true });
					await changed(ctx, [target._id], { is_active: true });
					await tellChannels(ctx, () => call(ctx, "channels.userActivityChanged", { user_id: target._id, is_active: true }));
					return {};
				},
			},

			registerState: {
				visibility: "public",
				async handler(ctx: Ctx<RegisterStateParams>) {
					const self = me(ctx);
					const [user, all, bots, fields] = await Promise.all([findUser(self.user_id), db.User.find({ realm_id: db.realm._id }).sort({ _id: 1 }).lean(), systemBots(db.User), listFields(db)]);
					const state = registerState({ realm: db.realm, user, all, systemBots: bots, fields, server: config, params: ctx.params });
					// Who may invite follows the organization's can_invite_users_group.
					if ("can_invite_others_to_realm" in state) state.can_invite_others_to_realm = (await graphs.get()).realmAllows("can_invite_users_group", self.user_id);
					const wants = (t: string) => ctx.params.event_types === null || ctx.params.event_types.includes(t);
					if (wants("realm_user_groups")) state.realm_user_groups = await groupsView(false);
					Object.assign(state, await listSettingsState(db, self.user_id, wants));
					if (wants("realm")) {
						// Organization-level permissions, as group-setting values.
						const graph = await graphs.get();
						for (const [key, value] of Object.entries(graph.realm)) state[`realm_${key}`] = value;
						Object.assign(state, legacyPolicies(graph));
					}
					return state;
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
				graphs.invalidate();
				await this.broker.cacher?.clean("users.**");
			},
			"users.groupsChanged"() {
				graphs.invalidate();
			},
			async "users.realmChanged"() {
				db.realm = (await db.Realm.findById(db.realm._id).lean()) ?? db.realm;
				graphs.invalidate();
			},
			async "users.profileFieldsChanged"(this: any) {
				await this.broker.cacher?.clean("users.**");
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "users");
			Object.assign(db, {
				config,
				User: userModel(conn),
				Realm: realmModel(conn),
				ProfileField: profileFieldModel(conn),
				EmailChange: emailChangeModel(conn),
				UserGroup: userGroupModel(conn),
				NavigationView: navigationViewModel(conn),
				Playground: playgroundModel(conn),
				Linkifier: linkifierModel(conn),
				nextId: counters(conn),
			});
			await ensureIndexes(conn);
			db.realm = await ensureRealm(db.Realm, config);
			await ensureSystemGroups(db);
			await ensureOwner(db.User, db.nextId, db.realm, config, this.logger);
			await ensureSystemBots(db.User, db.nextId);
			// Settings changed by another process (the management CLI) are picked up within seconds.
			realmPoll = setInterval(() => {
				void reloadRealm(this.broker);
			}, REALM_POLL_MS);
			realmPoll.unref();
		},

		async stopped() {
			if (realmPoll) clearInterval(realmPoll);
			await conn?.close();
		},
	} as ServiceSchema;
}
