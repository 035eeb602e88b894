// The users service: the organization, users and bots, roles, authentication and API keys,
// personal settings, custom profile fields and user groups. This file wires the service (its
// database, the organization and its start-up records, the events it follows); the actions are
// in actions/ and the rules in the modules beside this file.
import type { Connection } from "mongoose";
import cron, { type ScheduledTask } from "node-cron";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { GroupGraphCache } from "../../shared/group-settings";
import type { UsersDb } from "./db";
import { realmModel } from "./models/realm";
import { userModel } from "./models/user";
import { profileFieldModel } from "./profile-fields/profile-field-model";
import { emailChangeModel } from "./settings/email-change-model";
import { passwordResetBudgetModel, passwordResetModel } from "./password-reset/password-reset-model";
import { userGroupModel } from "./groups/user-group-model";
import { linkifierModel } from "./catalog/linkifier-model";
import { navigationViewModel } from "./navigation-views/navigation-view-model";
import { playgroundModel } from "./catalog/playground-model";
import { presenceModel } from "./presence/presence-model";
import { ownerGuardModel } from "./accounts/owner-guard-model";
import { botStorageModel } from "./bot-storage/bot-storage-model";
import { pushDeviceModel } from "./push-devices/push-device-model";
import { userStatusModel } from "./status/user-status-model";
import { mutedUserModel } from "./muting/muted-user-model";
import { ensureOwner, ensureRealm } from "./accounts/bootstrap";
import { ensureSystemBots } from "./accounts/system-bots";
import { ensureOwnerGuard } from "./accounts/owner-guard";
import { ensureSystemGroups } from "./groups/system-groups";
import { backfillPending, promoteFullMembers } from "./groups/full-member-promotion";
import { graphData } from "./groups/user-group-rules";
import { userLookup } from "./user-lookup";
import { userChanges } from "./user-changes";
import { forgetCached } from "./accounts/profile-cache";
import type { ServiceDeps } from "./deps";
import { authActions } from "./auth/actions";
import { serverActions } from "./realm/server-actions";
import { userActions } from "./accounts/actions";
import { settingsActions } from "./settings/actions";
import { customProfileFieldActions } from "./profile-fields/actions";
import { userGroupActions } from "./groups/actions";
import { lookupActions } from "./lookups/actions";
import { managementActions } from "./management/actions";
import { registerActions } from "./register/actions";
import { realmActions } from "./realm/actions";
import { invitationActions } from "./invitations/actions";
import { navigationViewActions } from "./navigation-views/actions";
import { playgroundActions } from "./catalog/playground-actions";
import { linkifierActions } from "./catalog/linkifier-actions";
import { presenceActions } from "./presence/actions";
import { userStatusActions } from "./status/actions";
import { realmEmojiActions } from "./catalog/emoji-actions";
import { avatarActions } from "./avatars/actions";
import { realmEmojiModel } from "./catalog/realm-emoji-model";
import { fullMemberActions } from "./groups/promotion-actions";
import { botStorageActions } from "./bot-storage/actions";
import { pushDeviceActions } from "./push-devices/actions";
import { passwordResetActions } from "./password-reset/actions";
import { mutedUserActions } from "./muting/actions";
import { botActions } from "./bots/actions";
import { realmExportActions } from "./realm-export/actions";
import { cliChangeModel } from "./management/cli-change-model";
import { cliRelayModel } from "./management/cli-relay-model";
import { startRelay } from "./management/change-relay";

const REALM_POLL_MS = 5_000;

/** `cli`: the node of `npm run manage`, which relays nothing (management/change-relay.ts). */
export function usersService(config: Config & { mongoUrl: string; cli?: boolean }): ServiceSchema {
	let conn: Connection;
	const db = {} as UsersDb;
	const graphs = new GroupGraphCache(() => graphData(db));
	let realmPoll: NodeJS.Timeout | undefined;
	let promotionJob: ScheduledTask | undefined;
	let promoting: Promise<unknown> | undefined;
	let relay: { stop(): Promise<void> } | undefined;

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

	const lookup = userLookup(db, graphs);
	const deps: ServiceDeps = { db, graphs, config, ...lookup, ...userChanges(db, graphs, lookup.host, lookup.view) };

	return {
		name: "users",
		actions: {
			...authActions(deps),
			...serverActions(deps),
			...userActions(deps),
			...settingsActions(deps),
			...customProfileFieldActions(deps),
			...userGroupActions(deps),
			...lookupActions(deps),
			...managementActions(deps),
			...registerActions(deps),
			...realmActions(db, graphs),
			...navigationViewActions(db),
			...playgroundActions(db),
			...linkifierActions(db),
			...presenceActions(deps),
			...userStatusActions(deps),
			...realmEmojiActions(deps),
			...avatarActions(deps),
			...fullMemberActions(db),
			...botStorageActions(db),
			...pushDeviceActions(db),
			...passwordResetActions(db),
			...mutedUserActions(deps),
			...botActions(deps),
			...realmExportActions(db),
			...invitationActions({ db, graphs, identity: deps.identity, groupBefore: deps.groupBefore, created: (ctx, id) => deps.changed(ctx, [id], undefined, true), groupChanged: deps.groupsChanged }),
		},

		events: {
			async "users.changed"(this: any, ctx: Context<{ user_ids: number[] }>) {
				graphs.invalidate();
				await forgetCached(this.broker, ctx.params.user_ids);
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
			const promotionOff = config.fullMembersCron === "off";
			if (!promotionOff && !cron.validate(config.fullMembersCron)) throw new Error(`FULL_MEMBERS_CRON is not a cron expression: "${config.fullMembersCron}"`);
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
				Presence: presenceModel(conn),
				OwnerGuard: ownerGuardModel(conn),
				BotStorage: botStorageModel(conn),
				PushDevice: pushDeviceModel(conn),
				PasswordReset: passwordResetModel(conn),
				PasswordResetBudget: passwordResetBudgetModel(conn),
				UserStatus: userStatusModel(conn),
				MutedUser: mutedUserModel(conn),
				CliChange: cliChangeModel(conn),
				RealmEmoji: realmEmojiModel(conn),
				CliRelay: cliRelayModel(conn),
				nextId: counters(conn),
			});
			await ensureIndexes(conn);
			db.realm = await ensureRealm(db.Realm, config);
			await ensureSystemGroups(db);
			await ensureOwner(db.User, db.nextId, db.realm, config, this.logger);
			await ensureOwnerGuard(db);
			await ensureSystemBots(db.User, db.nextId);
			await backfillPending(db);
			// The management CLI's changes, broadcast here as the API path broadcasts its own (management/change-relay.ts).
			if (!config.cli) relay = await startRelay(db, this.broker, this.logger);
			// A backstop for an organization change whose broadcast this replica missed (cut off from
			// the bus meanwhile): picked up within seconds.
			realmPoll = setInterval(() => {
				void reloadRealm(this.broker);
			}, REALM_POLL_MS);
			realmPoll.unref();
			// Members past the waiting period join role:fullmembers (Zulip's daily promote_new_full_members).
			const log = this.logger;
			const promote = () => {
				if (promoting) return;
				promoting = promoteFullMembers(db, (event, payload) => this.broker.broadcast(event, payload))
					.catch((err: unknown) => log.error({ err }, "promotion to full members failed"))
					.finally(() => (promoting = undefined));
			};
			if (!promotionOff) {
				promotionJob = cron.schedule(config.fullMembersCron, promote, {
					name: `full members ${this.broker.nodeID}`,
					unref: true,
					suppressMissedWarning: true,
					logger: { info: (m) => log.debug(m), debug: (m) => log.debug(m), warn: (m) => log.warn(m), error: (m, err) => log.error({ err }, String(m)) },
				});
			}
		},

		async stopped() {
			if (realmPoll) clearInterval(realmPoll);
			await relay?.stop();
			await promotionJob?.destroy();
			await promoting;
			await conn?.close();
		},
	} as ServiceSchema;
}
