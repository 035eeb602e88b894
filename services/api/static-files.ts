// Static files outside /api/v1 that clients fetch by a URL the server announces: the emoji data
// file of `server_emoji_data_url` (shared/emoji-data.ts). Public, as Zulip's static files are,
// and cacheable for ever: its name changes with its content.
import type { IncomingMessage, ServerResponse } from "node:http";
import { EMOJI_DATA_FILE, emojiData } from "../../shared/emoji-data";

const FOREVER = "public, max-age=31536000, immutable";

/** Answers a request for `file`; false, having answered nothing, when there is no such file. */
export function sendEmojiData(file: string | undefined, req: IncomingMessage, res: ServerResponse): boolean {
	if (file !== EMOJI_DATA_FILE) return false;
	const headers = { ETag: emojiData.etag, "Cache-Control": FOREVER };
	if (req.headers["if-none-match"] === emojiData.etag) {
		res.writeHead(304, headers).end();
		return true;
	}
	res.writeHead(200, { ...headers, "Content-Type": "application/json", "Content-Length": emojiData.body.length });
	res.end(req.method === "HEAD" ? undefined : emojiData.body);
	return true;
}
