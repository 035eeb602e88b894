// The lookups in other services that the message rules need, provided by the service so the
// rule modules stay free of the bus.
import type { TopicPolicies } from "../../shared/actions";

export interface Resolvers {
	channelIds(names: string[]): Promise<Map<string, number>>;
	/** Narrow operands (IDs or emails) as user IDs: system bots and deactivated users too, as in Zulip. */
	userIds(refs: Array<number | string>): Promise<number[]>;
	/** Channels the caller may read, with whether their whole history is open to subscribers. */
	readable(channelIds: number[]): Promise<Array<{ channel_id: number; name: string; history_public_to_subscribers: boolean; subscribed: boolean }>>;
	emptyTopicName(): Promise<string>;
	/** Public channels whose history the caller may read (channels:public). */
	publicChannelIds(): Promise<number[]>;
	/** The caller's muted channels and per-topic visibility policies (1 muted, 2 unmuted, 3 followed). */
	topicPolicies(): Promise<TopicPolicies>;
}
