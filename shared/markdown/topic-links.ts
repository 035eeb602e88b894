// topic_links: the links a topic name contains, as message objects list them ({text, url}):
// the organization's linkifiers' matches (shared/markdown/linkifiers.ts, as this process last
// heard of them), then the http and https URLs written in the topic that overlap none, in order
// of position. A bare word with a dot does not count: in a topic it is more often a file name or
// a version than a link.
import LinkifyIt from "linkify-it";
import { currentLinkifiers, linkifierMatches } from "./linkifiers";

const linkify = new LinkifyIt({ fuzzyLink: false, fuzzyEmail: false });

export function topicLinks(topic: string): Array<{ text: string; url: string }> {
	const found = linkifierMatches(topic, currentLinkifiers() ?? []);
	if (topic.includes(".")) {
		for (const m of linkify.match(topic) ?? []) {
			if (!/^https?:/i.test(m.raw) || found.some((f) => m.index < f.end && f.start < m.lastIndex)) continue;
			found.push({ start: m.index, end: m.lastIndex, text: m.raw, url: m.url });
		}
	}
	return found.sort((a, b) => a.start - b.start).map((m) => ({ text: m.text, url: m.url }));
}
