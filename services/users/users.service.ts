// The users service: the organization, users and bots, roles, authentication and API keys,
// personal settings, custom profile fields, user groups, presence and status, navigation views
// (the organization's linkifiers, playgrounds and custom emoji are the catalog service's). This
// file wires the service (its database, the organization and its start-up records, the events it
// follows, the action groups); each feature's actions, rules and models are in its folder.
import type { Connection } from "mongoose";
import cron, { type ScheduledTask } from "node-cron";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { spreadActionGroups } from "../../shared/action-groups";
import { call } from "../../shared/actions";
import type { EmailRequest } from "../../shared/email";
import { GroupGraphCache } from "../../shared/group-settings";
import { usersModels, type UsersDb } from "./db";
import { serviceDeps, type ActionGroup } from "./deps";
import { ensureOwner, ensureRealm } from "./accounts/bootstrap";
import { ensureSystemBots } from "./accounts/system-bots";
import { ensureOwnerGuard } from "./accounts/owner-guard";
import { forgetCached } from "./accounts/profile-cache";
import { ensureSystemGroups } from "./groups/system-groups";
import { backfillPending, promoteFullMembers } from "./groups/full-member-promotion";
import { graphData } from "./groups/user-group-rules";
import { startRelay } from "./management/change-relay";
import { userActions } from "./accounts/actions";
import { authActions } from "./auth/actions";
import { lookupActions } from "./lookups/actions";
import { invitationActions } from "./invitations/actions";
import { managementActions } from "./management/actions";
import { avatarActions } from "./avatars/actions";
import { settingsActions } from "./settings/actions";
import { customProfileFieldActions } from "./profile-fields/actions";
import { userGroupActions } from "./groups/actions";
import { fullMemberActions } from "./groups/promotion-actions";
import { botActions } from "./bots/actions";
import { botStorageActions } from "./bot-storage/actions";
import { presenceActions } from "./presence/actions";
import { userStatusActions } from "./status/actions";
import { mutedUserActions } from "./muting/actions";
import { pushDeviceActions } from "./push-devices/actions";
import { navigationViewActions } from "./navigation-views/actions";
import { realmActions } from "./realm/actions";
import { realmImageActions } from "./realm/realm-image-actions";
import { serverActions } from "./realm/server-actions";
import { realmExportActions } from "./realm-export/actions";
import { registerActions } from "./register/actions";
import { passwordResetActions } from "./password-reset/actions";
import { digestActions } from "./digests/actions";
import { nodeCacheEvents } from "../../shared/node-cache";
import { transportUp } from "../../shared/transport-recovery";

/** Every action group of the service, each made from the same deps. */
const ACTION_GROUPS: ActionGroup[] = [
	userActions,
	authActions,
	lookupActions,
	invitationActions,
	managementActions,
	avatarActions,
	settingsActions,
	customProfileFieldActions,
	userGroupActions,
	fullMemberActions,
	botActions,
	botStorageActions,
	presenceActions,
	userStatusActions,
	mutedUserActions,
	pushDeviceActions,
	navigationViewActions,
	realmActions,
	realmImageActions,
	serverActions,
	realmExportActions,
	registerActions,
	passwordResetActions,
	digestActions,
];

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

	const deps = serviceDeps(db, graphs, config);
	const actions = spreadActionGroups("users", ACTION_GROUPS, deps);

	return {
		name: "users",
		actions,

		events: {
			...nodeCacheEvents(() => [deps.shown]),
			async "users.changed"(this: any, ctx: Context<{ user_ids: number[] }>) {
				graphs.invalidate();
				deps.shown.forget(ctx.params.user_ids);
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
			deps.shown.live = () => transportUp(this.broker);
			const promotionOff = config.fullMembersCron === "off";
			if (!promotionOff && !cron.validate(config.fullMembersCron)) throw new Error(`FULL_MEMBERS_CRON is not a cron expression: "${config.fullMembersCron}"`);
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "users");
			Object.assign(db, {
				config,
				...usersModels(conn),
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
