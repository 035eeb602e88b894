// Delighted (zerver/webhooks/delighted/view.py): survey responses, in the topic "Survey response".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const data = req.json().at("event_data");
	const score = data.at("score").int();
	const head = score >= 7 ? "Kudos! You have a new promoter." : "Great! You have new feedback.";
	const content = `${head} Score of ${score}/10 from ${data.path("person", "email").str()}:\n\n\`\`\` quote\n${data.at("comment").str()}\n\`\`\``;
	return posts({ topic: "Survey response", content });
}

export const delighted: Integration = { name: "delighted", displayName: "Delighted", handle };
