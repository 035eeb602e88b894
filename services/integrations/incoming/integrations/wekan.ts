// Wekan (zerver/webhooks/wekan/view.py): its activity text, the URL on its last line as a link,
// in the topic "Wekan Notification".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const text = req.json().at("text").str();
	const url = text.split("\n").at(-1) ?? "";
	const body = text.replaceAll(url, "").replaceAll("\n", "");
	return posts({ topic: "Wekan Notification", content: `${body}.\n\n[See in Wekan](${url})` });
}

export const wekan: Integration = { name: "wekan", displayName: "Wekan", handle };
