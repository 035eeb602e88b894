// Zendesk (zerver/webhooks/zendesk/view.py): a trigger's message (form fields `ticket_title`,
// `ticket_id`, `message`), in the topic "#<ticket id>: <title>" cut at 60 characters; the bot
// authenticates with HTTP basic authentication.
import { posts, type Integration, type WebhookRequest } from "../integration";

const cut = (s: string) => ([...s].length > 60 ? `${[...s].slice(0, 57).join("")}...` : s);

function handle(req: WebhookRequest) {
	const [title, id, message] = ["ticket_title", "ticket_id", "message"].map((name) => req.requiredParam(name));
	return posts({ topic: cut(`#${id}: ${title}`), content: message });
}

export const zendesk: Integration = { name: "zendesk", displayName: "Zendesk", handle };
