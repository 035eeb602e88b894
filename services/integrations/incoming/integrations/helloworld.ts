// Zulip's example integration (zerver/webhooks/helloworld/view.py).
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const content = `Hello! I am happy to be here! :smile:\nThe Wikipedia featured article for today is **[${p.at("featured_title").str()}](${p.at("featured_url").str()})**`;
	return posts({ topic: "Hello World", content });
}

export const helloworld: Integration = { name: "helloworld", displayName: "HelloWorld", handle };
