// Zapier (zerver/webhooks/zapier/view.py): a message whose topic and content the Zap sets; the
// Zulip app's authentication check is answered with the bot's identity.
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	if (p.get("type").value === "auth") return { posts: [], data: { full_name: req.bot.full_name, email: req.bot.email, id: req.bot.user_id } };
	const topic = p.get("topic").present ? p.at("topic") : p.get("subject");
	const content = p.get("content").present ? p.at("content") : p.get("body");
	if (!topic.present) throw badRequest("Topic can't be empty");
	if (!content.present) throw badRequest("Content can't be empty");
	return posts({ topic: topic.str(), content: content.str() });
}

export const zapier: Integration = { name: "zapier", displayName: "Zapier", handle };
