// The users service's database handles, shared by its modules: each feature's collections (their
// models live in the feature's folder), the organization, and the ID counters.
import type { Connection } from "mongoose";
import type { Config } from "../../shared/config";
import type { EmailRequest } from "../../shared/email";
import { realmModel, type RealmDoc } from "./models/realm";
import { userModel } from "./models/user";
import { profileFieldModel } from "./profile-fields/profile-field-model";
import { emailChangeModel } from "./settings/email-change-model";
import { passwordResetBudgetModel, passwordResetModel } from "./password-reset/password-reset-model";
import { userGroupModel } from "./groups/user-group-model";
import { navigationViewModel } from "./navigation-views/navigation-view-model";
import { presenceModel } from "./presence/presence-model";
import { ownerGuardModel } from "./accounts/owner-guard-model";
import { botStorageModel } from "./bot-storage/bot-storage-model";
import { pushDeviceModel } from "./push-devices/push-device-model";
import { userStatusModel } from "./status/user-status-model";
import { mutedUserModel } from "./muting/muted-user-model";
import { cliChangeModel } from "./management/cli-change-model";
import { cliRelayModel } from "./management/cli-relay-model";

/** Every collection of the users service, on this connection. */
export function usersModels(conn: Connection) {
	return {
		User: userModel(conn),
		Realm: realmModel(conn),
		ProfileField: profileFieldModel(conn),
		EmailChange: emailChangeModel(conn),
		UserGroup: userGroupModel(conn),
		NavigationView: navigationViewModel(conn),
		Presence: presenceModel(conn),
		OwnerGuard: ownerGuardModel(conn),
		BotStorage: botStorageModel(conn),
		PushDevice: pushDeviceModel(conn),
		PasswordReset: passwordResetModel(conn),
		PasswordResetBudget: passwordResetBudgetModel(conn),
		UserStatus: userStatusModel(conn),
		MutedUser: mutedUserModel(conn),
		CliChange: cliChangeModel(conn),
		CliRelay: cliRelayModel(conn),
	};
}

export interface UsersDb extends ReturnType<typeof usersModels> {
	config: Config;
	nextId: (entity: string) => Promise<number>;
	/** Sends one of Zulip's emails through the notifications service's outbox. */
	sendEmail(email: EmailRequest): Promise<unknown>;
	/** The organization (one per server), loaded at start. */
	realm: RealmDoc;
}

/**
 * What reading the organization's users, groups and profile fields needs: the users service's own
 * handles, or the management CLI's direct reads of its database (deploy/export/).
 */
export type UsersReads = Pick<UsersDb, "User" | "UserGroup" | "ProfileField" | "realm">;

/** The organization's active users' IDs: who hears of an organization-wide change. */
export async function activeUserIds(db: Pick<UsersDb, "User" | "realm">): Promise<number[]> {
	return (await db.User.find({ realm_id: db.realm._id, is_active: true }, { _id: 1 }).lean()).map((u) => u._id);
}
