// IFTTT (zerver/webhooks/ifttt/view.py): a message whose topic and content the applet sets.
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const topic = p.get("topic").present ? p.at("topic") : p.get("subject");
	const content = p.get("content").present ? p.at("content") : p.get("body");
	if (!topic.present) throw badRequest("Topic can't be empty");
	if (!content.present) throw badRequest("Content can't be empty");
	return posts({ topic: topic.str(), content: content.str() });
}

export const ifttt: Integration = { name: "ifttt", displayName: "IFTTT", handle };
