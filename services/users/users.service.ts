// The users service: the organization, users and bots, roles, authentication and API keys,
// personal settings, custom profile fields and user groups. This file wires the service (its
// database, the organization and its start-up records, the events it follows); the actions are
// in actions/ and the rules in the modules beside this file.
import type { Connection } from "mongoose";
import cron, { type ScheduledTask } from "node-cron";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { call } from "../../shared/actions";
import type { EmailRequest } from "../../shared/email";
import { GroupGraphCache } from "../../shared/group-settings";
import type { UsersDb } from "./db";
import { realmModel } from "./models/realm";
import { userModel } from "./models/user";
import { profileFieldModel } from "./models/profile-field";
import { emailChangeModel } from "./models/email-change";
import { passwordResetBudgetModel, passwordResetModel } from "./models/password-reset";
import { userGroupModel } from "./models/user-group";
import { linkifierModel } from "./models/linkifier";
import { navigationViewModel } from "./models/navigation-view";
import { playgroundModel } from "./models/playground";
import { presenceModel } from "./models/presence";
import { ownerGuardModel } from "./models/owner-guard";
import { botStorageModel } from "./models/bot-storage";
import { pushDeviceModel } from "./models/push-device";
import { userStatusModel } from "./models/user-status";
import { mutedUserModel } from "./models/muted-user";
import { ensureOwner, ensureRealm } from "./bootstrap";
import { ensureSystemBots } from "./system-bots";
import { ensureOwnerGuard } from "./owner-guard";
import { ensureSystemGroups } from "./system-groups";
import { backfillPending, promoteFullMembers } from "./full-member-promotion";
import { graphData } from "./user-group-rules";
import { userLookup } from "./user-lookup";
import { userChanges } from "./user-changes";
import { forgetCached } from "./profile-cache";
import type { ServiceDeps } from "./actions/deps";
import { authActions } from "./actions/auth";
import { serverActions } from "./actions/server";
import { userActions } from "./actions/users";
import { settingsActions } from "./actions/settings";
import { customProfileFieldActions } from "./actions/custom-profile-fields";
import { userGroupActions } from "./actions/user-groups";
import { lookupActions } from "./actions/lookups";
import { managementActions } from "./actions/management";
import { registerActions } from "./actions/register";
import { realmActions } from "./actions/realm";
import { invitationActions } from "./actions/invitations";
import { navigationViewActions } from "./actions/navigation-views";
import { playgroundActions } from "./actions/playgrounds";
import { linkifierActions } from "./actions/linkifiers";
import { presenceActions } from "./actions/presence";
import { userStatusActions } from "./actions/user-status";
import { realmEmojiActions } from "./actions/realm-emoji";
import { avatarActions } from "./actions/avatars";
import { realmEmojiModel } from "./models/realm-emoji";
import { fullMemberActions } from "./actions/full-members";
import { botStorageActions } from "./actions/bot-storage";
import { pushDeviceActions } from "./actions/push-devices";
import { passwordResetActions } from "./actions/password-reset";
import { mutedUserActions } from "./actions/muted-users";
import { botActions } from "./actions/bots";
import { realmExportActions } from "./actions/realm-export";
import { cliChangeModel } from "./models/cli-change";
import { cliRelayModel } from "./models/cli-relay";
import { startRelay } from "./change-relay";

const REALM_POLL_MS = 5_000;

/** `cli`: the node of `npm run manage`, which relays nothing (change-relay.ts). */
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
				sendEmail: (email: EmailRequest) => call(this.broker, "notifications.sendEmail", email),
			});
			await ensureIndexes(conn);
			db.realm = await ensureRealm(db.Realm, config);
			await ensureSystemGroups(db);
			await ensureOwner(db.User, db.nextId, db.realm, config, this.logger);
			await ensureOwnerGuard(db);
			await ensureSystemBots(db.User, db.nextId);
			await backfillPending(db);
			// The management CLI's changes, broadcast here as the API path broadcasts its own (change-relay.ts).
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
