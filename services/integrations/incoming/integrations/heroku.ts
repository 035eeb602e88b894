// Heroku's deploy hook (zerver/webhooks/heroku/view.py): a deploy, form-encoded, in the app's topic.
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const [head, app, user, url, gitLog] = ["head", "app", "user", "url", "git_log"].map((name) => req.requiredParam(name));
	return posts({ topic: app, content: `${user} deployed version ${head} of [${app}](${url}):\n\n\`\`\` quote\n${gitLog}\n\`\`\`` });
}

export const heroku: Integration = { name: "heroku", displayName: "Heroku", handle };
