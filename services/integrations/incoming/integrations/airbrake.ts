// Airbrake (zerver/webhooks/airbrake/view.py): an error occurring, in its project's topic.
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const error = p.at("error");
	const content = `[${error.at("error_class").str()}](${p.at("airbrake_error_url").str()}): "${error.at("error_message").str()}" occurred.`;
	return posts({ topic: error.path("project", "name").str(), content });
}

export const airbrake: Integration = { name: "airbrake", displayName: "Airbrake", handle };
