// The Unicode emoji this server accepts, as the JSON file `server_emoji_data_url` (POST /register)
// points clients to: `{ "code_to_names": { "<emoji code>": ["<canonical name>", ...aliases] } }`,
// Zulip's emoji_api.json. The official mobile app downloads it for its emoji picker.
//
// Decision: as Zulip does (a hash baked into a static file's name), the URL names the content's
// hash, so the file can be cached for ever: a server whose emoji change announces a new URL.
import { createHash } from "node:crypto";
import { allEmojiCodes, emojiNames } from "./emoji";

/** Where the gateway serves it (outside /api/v1, as Zulip's static files). */
export const EMOJI_DATA_DIR = "/static/generated/emoji";

const body = Buffer.from(JSON.stringify({ code_to_names: Object.fromEntries(allEmojiCodes().map((code) => [code, emojiNames(code)!])) }));
const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);

export const EMOJI_DATA_FILE = `emoji_api.${hash}.json`;

/** The file's bytes and an ETag for conditional requests. */
export const emojiData = { body, etag: `"${hash}"` };

/** The absolute URL of the file on a server reached at `baseUrl` (the realm's URL). */
export function emojiDataUrl(baseUrl: string): string {
	return new URL(`${EMOJI_DATA_DIR}/${EMOJI_DATA_FILE}`, baseUrl).toString();
}
