// From what a message mentions to each recipient's flags: `mentioned` for users mentioned by
// name or through a group, `stream_wildcard_mentioned` for everyone on @**all** and its synonyms,
// `topic_wildcard_mentioned` for the topic's participants on @**topic**. The sender's own
// mentions never flag the sender.
import type { GroupGraph } from "../../shared/group-settings";
import type { Mentions } from "../../shared/markdown/mentions";

export function mentionFlags(m: Mentions, graph: GroupGraph, recipients: number[], senderId: number, topicParticipants: Set<number>): (userId: number) => string[] {
	const mentioned = new Set(m.userIds);
	for (const g of m.groupIds) for (const u of graph.members(g)) mentioned.add(u);
	const inRecipients = new Set(recipients);
	return (userId) => {
		if (userId === senderId || !inRecipients.has(userId)) return [];
		const flags: string[] = [];
		if (mentioned.has(userId)) flags.push("mentioned");
		if (m.channelWildcard) flags.push("stream_wildcard_mentioned");
		if (m.topicWildcard && topicParticipants.has(userId)) flags.push("topic_wildcard_mentioned");
		return flags;
	};
}

/**
 * Zulip's get_user_group_mentions_data: each user mentioned through a group and not by name, with
 * the smallest mentioned group holding them (missed-message emails name it).
 */
export function groupMentions(m: Mentions, graph: GroupGraph): Record<string, { id: number; name: string; size: number }> {
	const out: Record<string, { id: number; name: string; size: number }> = {};
	for (const g of m.groupIds) {
		const members = graph.members(g);
		const name = graph.get(g)?.name ?? "";
		for (const u of members) {
			if (m.userIds.has(u)) continue;
			const seen = out[String(u)];
			if (!seen || seen.size > members.size) out[String(u)] = { id: g, name, size: members.size };
		}
	}
	return out;
}
