// Thinkst Canarytokens (zerver/webhooks/canarytoken/view.py): a token triggered, in the topic
// "canarytoken alert".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const content = `**:alert: Canarytoken has been triggered on ${p.at("time").str()}!**\n\n${p.at("memo").str()} \n\n[Manage this canarytoken](${p.at("manage_url").str()})`;
	return posts({ topic: "canarytoken alert", content });
}

export const canarytoken: Integration = { name: "canarytoken", displayName: "Canarytoken", handle };
