// Mention (zerver/webhooks/mention/view.py): a web mention found by an alert, in the topic "news".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	return posts({ topic: "news", content: `**[${p.at("title").str()}](${p.at("url").str()})**:\n\n\`\`\` quote\n${p.at("description").str()}\n\`\`\`` });
}

export const mention: Integration = { name: "mention", displayName: "Mention", handle };
