// WordPress (zerver/webhooks/wordpress/view.py, with the HookPress plugin's form fields): posts and
// pages published, users registered and logged in, in the topic "WordPress notification".
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const param = (name: string, fallback: string) => req.param(name) ?? fallback;
	const hook = param("hook", "WordPress action").trimEnd();
	let content: string;
	if (hook === "publish_post" || hook === "publish_page")
		content = `New ${param("post_type", "post")} published:\n* [${param("post_title", "New WordPress post")}](${param("post_url", "WordPress post URL")})`;
	else if (hook === "user_register") content = `New blog user registered:\n* **Name**: ${param("display_name", "New user name")}\n* **Email**: ${param("user_email", "New user email")}`;
	else if (hook === "wp_login") content = `User ${param("user_login", "Logged in user")} logged in.`;
	else throw badRequest(`Unknown WordPress webhook action: ${hook}`);
	return posts({ topic: "WordPress notification", content, event: hook });
}

export const wordpress: Integration = { name: "wordpress", displayName: "WordPress", handle };
