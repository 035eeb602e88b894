// Dropbox (zerver/webhooks/dropbox/view.py): Dropbox's verification (a GET answered with its
// `challenge` as text) and file changes.
import { missingArgument } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	if (req.call.method === "POST") return posts({ topic: "Dropbox", content: "File has been updated on Dropbox!" });
	const challenge = req.param("challenge");
	if (challenge === undefined) throw missingArgument("challenge");
	return { posts: [], raw: { status: 200, text: challenge } };
}

export const dropbox: Integration = { name: "dropbox", displayName: "Dropbox", handle };
