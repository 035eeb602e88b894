// Zulip's choice of a digest's hot conversations (zerver/lib/digest.py, get_hot_topics): among the
// topics of the reader's channels, the two with the most human senders, then the longest (most
// human messages) until there are four. Ties go to the topic that started first in the period
// (Zulip's heapq.nlargest keeps its input order, which is its query's).
import type { DigestTopicStats } from "../../../shared/digest";

/** Zulip's MAX_HOT_TOPICS_TO_BE_INCLUDED_IN_DIGEST. */
export const MAX_HOT_TOPICS = 4;
/** Zulip's DIGEST_CUTOFF: a digest covers, and is for readers inactive for, this many days. */
export const DIGEST_CUTOFF_DAYS = 5;

export interface Sender {
	full_name: string;
	is_bot: boolean;
}

/** A topic of the period as a digest weighs it (Zulip's DigestTopic). */
export interface DigestTopic {
	stats: DigestTopicStats;
	/** Human senders' names, sorted (Zulip's participants). */
	participants: string[];
	/** Messages by humans (Zulip's length()). */
	length: number;
}

/** Counts each topic's human messages and senders; bots' messages count for nothing (Zulip's sent_by_human). */
export function weighTopics(topics: DigestTopicStats[], senders: Map<number, Sender>): DigestTopic[] {
	return topics.map((stats) => {
		const humans = stats.senders.filter(([id]) => senders.get(id)?.is_bot === false);
		const names = new Set(humans.map(([id]) => senders.get(id)!.full_name));
		return { stats, participants: [...names].sort(), length: humans.reduce((n, [, count]) => n + count, 0) };
	});
}

/** The `n` largest by `key`, ties in input order (Python's heapq.nlargest). */
const largest = <T>(items: T[], n: number, key: (t: T) => number) =>
	items
		.map((item, i) => ({ item, i }))
		.sort((a, b) => key(b.item) - key(a.item) || a.i - b.i)
		.slice(0, n)
		.map((x) => x.item);

/** The reader's hot conversations among `topics` (already in the order they started). */
export function hotTopics(topics: DigestTopic[], channelIds: Set<number>): DigestTopic[] {
	const mine = topics.filter((t) => channelIds.has(t.stats.channel_id));
	const hot = largest(mine, 2, (t) => t.participants.length);
	for (const t of largest(mine, MAX_HOT_TOPICS, (t) => t.length)) {
		if (!hot.includes(t)) hot.push(t);
		if (hot.length === MAX_HOT_TOPICS) break;
	}
	return hot;
}
