// Dropbox (zerver/webhooks/dropbox/view.py): Dropbox's verification (a GET answered with its
// `challenge` as text) and file changes.
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	if (req.call.method === "POST") return posts({ topic: "Dropbox", content: "File has been updated on Dropbox!" });
	return { posts: [], raw: { status: 200, text: req.requiredParam("challenge") } };
}

export const dropbox: Integration = { name: "dropbox", displayName: "Dropbox", handle };
