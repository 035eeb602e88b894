// System bots: accounts the server itself speaks through, as Zulip's cross-realm bots (Notification
// Bot announces moved and resolved topics). They belong to realm 0, no organization, so every query
// scoped to the organization leaves them out: they are not among its users, cannot authenticate
// and cannot be managed. They appear as message senders (users.getMany) and in `cross_realm_bots`.
import type { Model } from "mongoose";
import { isDuplicateKey } from "../../shared/db";
import type { UserDoc } from "./models/user";
import { createUser } from "./accounts";

export const SYSTEM_REALM_ID = 0;
/** Zulip's address for its Notification Bot, which clients recognize. */
export const NOTIFICATION_BOT_EMAIL = "notification-bot@zulip.com";

/** Creates the system bots that do not exist yet (safe from several replicas at once). */
export async function ensureSystemBots(User: Model<UserDoc>, nextId: (entity: string) => Promise<number>): Promise<void> {
	if (await User.exists({ realm_id: SYSTEM_REALM_ID, email_key: NOTIFICATION_BOT_EMAIL })) return;
	try {
		await createUser(User, nextId, { realm_id: SYSTEM_REALM_ID, email: NOTIFICATION_BOT_EMAIL, full_name: "Notification Bot", password: null, is_bot: true, bot_type: 1 });
	} catch (err) {
		// Another replica created it a moment ago.
		if (!isDuplicateKey(err) && !(await User.exists({ realm_id: SYSTEM_REALM_ID, email_key: NOTIFICATION_BOT_EMAIL }))) throw err;
	}
}

export const systemBots = (User: Model<UserDoc>) => User.find({ realm_id: SYSTEM_REALM_ID }).sort({ _id: 1 }).lean();

export async function notificationBot(User: Model<UserDoc>): Promise<UserDoc> {
	const bot = await User.findOne({ realm_id: SYSTEM_REALM_ID, email_key: NOTIFICATION_BOT_EMAIL }).lean();
	if (!bot) throw new Error("Notification Bot is missing (created at startup)");
	return bot;
}
