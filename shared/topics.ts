// The empty topic: "(no topic)" and the organization's display name for it both mean "", and
// clients that do not handle the empty topic see the display name in its place.

/** A topic as a client sent it, as stored: trimmed, with the empty topic's names read as "". */
export function topicFromClient(raw: string, emptyTopicName: string): string {
	const t = raw.trim();
	return t === "(no topic)" || t === emptyTopicName ? "" : t;
}

/** A stored topic as a client sees it. */
export function topicForClient(topic: string, allowEmpty: boolean, emptyTopicName: string): string {
	return topic === "" && !allowEmpty ? emptyTopicName : topic;
}
