// System bots: accounts the server itself speaks through, as Zulip's cross-realm bots (Notification
// Bot announces moved and resolved topics and accepted invitations, Welcome Bot greets new users).
// They belong to realm 0, no organization, so every query scoped to the organization leaves them
// out: they are not among its users, cannot authenticate and cannot be managed. They appear as
// message senders (users.getMany) and in `cross_realm_bots`.
import type { Model } from "mongoose";
import { isDuplicateKey } from "../../../shared/db";
import type { UserDoc } from "../models/user";
import { createUser } from "./accounts";

export const SYSTEM_REALM_ID = 0;
/** Zulip's address for its Notification Bot, which clients recognize. */
export const NOTIFICATION_BOT_EMAIL = "notification-bot@zulip.com";

/** Zulip's address for Welcome Bot, who greets new users. */
export const WELCOME_BOT_EMAIL = "welcome-bot@zulip.com";

/** The system bots, in creation order (Zulip's names; both generic bots). */
const SYSTEM_BOTS = [
	{ email: NOTIFICATION_BOT_EMAIL, full_name: "Notification Bot" },
	{ email: WELCOME_BOT_EMAIL, full_name: "Welcome Bot" },
];

/** Creates the system bots that do not exist yet (safe from several replicas at once). */
export async function ensureSystemBots(User: Model<UserDoc>, nextId: (entity: string) => Promise<number>): Promise<void> {
	for (const bot of SYSTEM_BOTS) {
		const exists = () => User.exists({ realm_id: SYSTEM_REALM_ID, email_key: bot.email });
		if (await exists()) continue;
		try {
			await createUser(User, nextId, { realm_id: SYSTEM_REALM_ID, email: bot.email, full_name: bot.full_name, password: null, is_bot: true, bot_type: 1 });
		} catch (err) {
			// Another replica created it a moment ago.
			if (!isDuplicateKey(err) && !(await exists())) throw err;
		}
	}
}

export const systemBots = (User: Model<UserDoc>) => User.find({ realm_id: SYSTEM_REALM_ID }).sort({ _id: 1 }).lean();

export async function systemBot(User: Model<UserDoc>, email: string): Promise<UserDoc> {
	const bot = await User.findOne({ realm_id: SYSTEM_REALM_ID, email_key: email }).lean();
	if (!bot) throw new Error(`System bot ${email} is missing (created at startup)`);
	return bot;
}

export const notificationBot = (User: Model<UserDoc>) => systemBot(User, NOTIFICATION_BOT_EMAIL);
