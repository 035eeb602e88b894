// GoSquared (zerver/webhooks/gosquared/view.py): live chat messages from visitors, in the topic
// of the chat session's page. (Zulip also posts traffic spikes; not here yet: unsupported.)
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const latest = p.get("person", {}).get("chat", {}).get("latest", {});
	if (!latest.has("message")) throw new UnsupportedEvent(p.has("concurrents") ? "site traffic" : "unknown");
	const message = latest.at("message");
	const name = p.path("person", "_anon", "name").str();
	return posts({ topic: `Live chat session - ${message.path("session", "title").str()}`, content: `The visitor **${name}** messaged:\n\n\`\`\` quote\n${message.at("content").str()}\n\`\`\`` });
}

export const gosquared: Integration = { name: "gosquared", displayName: "GoSquared", handle };
