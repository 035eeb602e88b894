// Open Collective (zerver/webhooks/opencollective/view.py): donations, in the topic "New Member".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const name = p.path("data", "member", "memberCollective", "name").str();
	const amount = p.path("data", "order", "formattedAmount").str();
	const content = name === "Incognito" ? `An **Incognito** member donated **${amount}**! :tada:` : `@_**${name}** donated **${amount}**! :tada:`;
	return posts({ topic: "New Member", content });
}

export const opencollective: Integration = { name: "opencollective", displayName: "OpenCollective", handle };
