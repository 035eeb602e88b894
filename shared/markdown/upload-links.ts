// The uploads a rendered message links, as Zulip's Markdown processor collects them
// (potential_attachment_path_ids): every <a href> whose URL is on this server (relative, or
// absolute with the server's own host) and whose path starts with /user_uploads/. The path ID
// is the rest of the path, without query or fragment. These are what a message claims
// (services/messages/attachment-claims.ts).
//
// Decision: the path ID is percent-decoded, so a link to a file with a non-ASCII name (which the
// renderer writes percent-encoded) names the file as it is stored; Zulip compares the raw path.

const HREF = /<a\b[^>]*?\shref="([^"]*)"/g;
const PREFIX = "/user_uploads/";
/** Far more than any message holds; bounds the claim a message makes. */
export const MAX_LINKED_UPLOADS = 1000;

const unescapeAttribute = (v: string) =>
	v.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);

/** The path IDs (`<realm>/<xx>/<random>/<name>`) of the uploads `html` links, each once, in order. */
export function uploadPathIds(html: string, externalUrl: string): string[] {
	const base = new URL(externalUrl.endsWith("/") ? externalUrl : `${externalUrl}/`);
	const found = new Set<string>();
	for (const m of html.matchAll(HREF)) {
		let url: URL;
		try {
			url = new URL(unescapeAttribute(m[1]), base);
		} catch {
			continue;
		}
		// As Zulip, the host decides (with its port), whatever the scheme.
		if (url.host !== base.host || !url.pathname.startsWith(PREFIX)) continue;
		const raw = url.pathname.slice(PREFIX.length);
		let pathId = raw;
		try {
			pathId = decodeURIComponent(raw);
		} catch {
			// Not valid percent-encoding: kept as written.
		}
		if (pathId) found.add(pathId);
		if (found.size >= MAX_LINKED_UPLOADS) break;
	}
	return [...found];
}
