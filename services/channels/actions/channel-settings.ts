// The channel settings that both creating a channel (POST /users/me/subscriptions) and editing
// one (PATCH /streams/{stream_id}) accept.
import { p } from "../../../shared/params";
import { CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES } from "../models/channel";

const groupSettingParams = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, p.json({ optional: true })]));

export const channelSettingParams = {
	is_web_public: p.bool({ optional: true }),
	is_default_stream: p.bool({ optional: true }),
	history_public_to_subscribers: p.bool({ optional: true }),
	message_retention_days: p.either([p.string(), p.int()], { optional: true }),
	topics_policy: p.oneOf(TOPICS_POLICIES, { optional: true }),
	...groupSettingParams,
};
