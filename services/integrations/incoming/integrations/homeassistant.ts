// Home Assistant (zerver/webhooks/homeassistant/view.py): a notification, in its topic or "homeassistant".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	return posts({ topic: p.has("topic") ? p.at("topic").str() : "homeassistant", content: p.at("message").str() });
}

export const homeassistant: Integration = { name: "homeassistant", displayName: "HomeAssistant", handle };
