// Flock (zerver/webhooks/flock/view.py): a message's text, or its notification where the text is
// empty, in the topic "Flock notifications".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const payload = req.json();
	const text = payload.at("text").str();
	return posts({ topic: "Flock notifications", content: text.length ? text : payload.at("notification").str() });
}

export const flock: Integration = { name: "flock", displayName: "Flock", handle };
