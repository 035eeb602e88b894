// The channels service's database handles and per-node state, shared by its modules.
import type { Model } from "mongoose";
import type { GroupGraphCache } from "../../shared/group-settings";
import type { ChannelDoc } from "./models/channel";
import type { SubscriptionDoc } from "./models/subscription";
import type { ChannelFolderDoc } from "./models/channel-folder";
import type { UserTopicDoc } from "./models/user-topic";
import type { ChannelReadCache } from "./read-cache";

export interface ChannelsDb {
	Channel: Model<ChannelDoc>;
	Subscription: Model<SubscriptionDoc>;
	ChannelFolder: Model<ChannelFolderDoc>;
	UserTopic: Model<UserTopicDoc>;
	nextId: (entity: string) => Promise<number>;
	/** The organization's group graph, from the users service, cleaned by its events. */
	graphs: GroupGraphCache;
	/** Channels and users' subscribed channels for the read-only lookups, cleaned by the service's broadcasts. */
	reads: ChannelReadCache;
	realmId: number;
	/** Server setting WEB_PUBLIC_STREAMS_ENABLED. */
	webPublicStreams: boolean;
}
