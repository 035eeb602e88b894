// HTML some tools put in their payloads, as text: what Python's HTMLParser hands to handle_data
// (Zulip's strip_tags): tags and comments dropped, character references decoded.
import { decodeHTML } from "entities";

export function stripTags(html: string): string {
	return decodeHTML(html.replace(/<!--[\s\S]*?(-->|$)/g, "").replace(/<[a-zA-Z/!?][^>]*>/g, ""));
}
