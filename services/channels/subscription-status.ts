// GET /users/{user_id}/subscriptions/{stream_id}: whether a user is subscribed to a channel, as
// Zulip's get_subscription_backend answers it. The user is looked up as access_user_by_id does
// for reading (for_admin=False): unknown users and bots are "No such user", deactivated ones "User
// is deactivated"; then the channel as access_stream_by_id with require_content_access=False
// reads it: metadata access (organization administrators included), and not archived
// (require_active_channel), else "Invalid channel ID".
import { call, type Ctx } from "../../shared/actions";
import { badRequest } from "../../shared/errors";
import type { ChannelsDb } from "./db";
import { invalidChannel, visibleChannel } from "./channel-lookup";
import { subscriptionKey } from "./models/subscription";

export async function subscriptionStatus(db: ChannelsDb, ctx: Ctx<any>, userId: number, channelId: number): Promise<boolean> {
	const [target] = (await call(ctx, "users.getMany", { user_ids: [userId] })).users;
	if (!target || target.is_bot) throw badRequest("No such user");
	if (!target.is_active) throw badRequest("User is deactivated");
	const { channel } = await visibleChannel(db, ctx, channelId);
	if (channel.is_archived) throw invalidChannel();
	return !!(await db.Subscription.exists({ _id: subscriptionKey(userId, channelId), active: true }));
}
