// Errbit (zerver/webhooks/errbit/view.py): a problem occurring, in the topic "<app> / <environment>".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const problem = req.json().at("problem");
	const content = `[${problem.at("error_class").str()}](${problem.at("url").str()}): "${problem.at("message").str()}" occurred.`;
	return posts({ topic: `${problem.at("app_name").str()} / ${problem.at("environment").str()}`, content });
}

export const errbit: Integration = { name: "errbit", displayName: "Errbit", handle };
