// topic_links: the links a topic name contains, as message objects list them ({text, url}).
// Zulip also applies the organization's linkifiers here; those do not exist yet, so the links
// are the http and https URLs written in the topic. A bare word with a dot does not count: in a
// topic it is more often a file name or a version than a link.
import LinkifyIt from "linkify-it";

const linkify = new LinkifyIt({ fuzzyLink: false, fuzzyEmail: false });

export function topicLinks(topic: string): Array<{ text: string; url: string }> {
	if (!topic.includes(".")) return [];
	return (linkify.match(topic) ?? []).filter((m) => /^https?:/i.test(m.raw)).map((m) => ({ text: m.raw, url: m.url }));
}
