// The users service's database handles, shared by its modules.
import type { Model } from "mongoose";
import type { Config } from "../../shared/config";
import type { RealmDoc } from "./models/realm";
import type { UserDoc } from "./models/user";
import type { ProfileFieldDoc } from "./profile-fields/profile-field-model";
import type { EmailChangeDoc } from "./settings/email-change-model";
import type { UserGroupDoc } from "./groups/user-group-model";
import type { NavigationViewDoc } from "./navigation-views/navigation-view-model";
import type { PlaygroundDoc } from "./catalog/playground-model";
import type { LinkifierDoc } from "./catalog/linkifier-model";
import type { PresenceDoc } from "./presence/presence-model";
import type { OwnerGuardDoc } from "./accounts/owner-guard-model";
import type { BotStorageDoc } from "./bot-storage/bot-storage-model";
import type { PushDeviceDoc } from "./push-devices/push-device-model";
import type { PasswordResetBudgetDoc, PasswordResetDoc } from "./password-reset/password-reset-model";
import type { UserStatusDoc } from "./status/user-status-model";
import type { MutedUserDoc } from "./muting/muted-user-model";
import type { CliChangeDoc } from "./management/cli-change-model";
import type { RealmEmojiDoc } from "./catalog/realm-emoji-model";
import type { CliRelayDoc } from "./management/cli-relay-model";

export interface UsersDb {
	config: Config;
	User: Model<UserDoc>;
	Realm: Model<RealmDoc>;
	ProfileField: Model<ProfileFieldDoc>;
	EmailChange: Model<EmailChangeDoc>;
	UserGroup: Model<UserGroupDoc>;
	NavigationView: Model<NavigationViewDoc>;
	Playground: Model<PlaygroundDoc>;
	Linkifier: Model<LinkifierDoc>;
	Presence: Model<PresenceDoc>;
	OwnerGuard: Model<OwnerGuardDoc>;
	BotStorage: Model<BotStorageDoc>;
	PushDevice: Model<PushDeviceDoc>;
	PasswordReset: Model<PasswordResetDoc>;
	PasswordResetBudget: Model<PasswordResetBudgetDoc>;
	UserStatus: Model<UserStatusDoc>;
	MutedUser: Model<MutedUserDoc>;
	CliChange: Model<CliChangeDoc>;
	RealmEmoji: Model<RealmEmojiDoc>;
	CliRelay: Model<CliRelayDoc>;
	nextId: (entity: string) => Promise<number>;
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
