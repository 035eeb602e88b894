// The users service's database handles, shared by its modules.
import type { Model } from "mongoose";
import type { Config } from "../../shared/config";
import type { EmailRequest } from "../../shared/email";
import type { RealmDoc } from "./models/realm";
import type { UserDoc } from "./models/user";
import type { ProfileFieldDoc } from "./models/profile-field";
import type { EmailChangeDoc } from "./models/email-change";
import type { UserGroupDoc } from "./models/user-group";
import type { NavigationViewDoc } from "./models/navigation-view";
import type { PlaygroundDoc } from "./models/playground";
import type { LinkifierDoc } from "./models/linkifier";
import type { PresenceDoc } from "./models/presence";
import type { OwnerGuardDoc } from "./models/owner-guard";
import type { BotStorageDoc } from "./models/bot-storage";
import type { PushDeviceDoc } from "./models/push-device";
import type { PasswordResetBudgetDoc, PasswordResetDoc } from "./models/password-reset";
import type { UserStatusDoc } from "./models/user-status";
import type { MutedUserDoc } from "./models/muted-user";
import type { CliChangeDoc } from "./models/cli-change";
import type { RealmEmojiDoc } from "./models/realm-emoji";
import type { CliRelayDoc } from "./models/cli-relay";

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
