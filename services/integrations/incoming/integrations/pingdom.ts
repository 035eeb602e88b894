// Pingdom (zerver/webhooks/pingdom/view.py): a check changing state, in the check's topic, with
// Pingdom's description when a service goes down.
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

const CHECK_TYPES = new Set(["HTTP", "HTTP_CUSTOM", "HTTPS", "SMTP", "POP3", "IMAP", "PING", "DNS", "UDP", "PORT_TCP"]);

function handle(req: WebhookRequest) {
	const p = req.payload();
	const type = p.at("check_type").str();
	if (!CHECK_TYPES.has(type)) throw new UnsupportedEvent(type);
	const current = p.at("current_state").str();
	const previous = p.at("previous_state").str();
	const head = `Service ${p.path("check_params", "hostname").str()} changed its ${type} status from ${previous} to ${current}`;
	const content = current === "DOWN" && previous === "UP" ? `${head}:\n\n\`\`\` quote\n${p.at("long_description").str()}\n\`\`\`` : `${head}.`;
	return posts({ topic: `${p.at("check_name").str()} status.`, content, event: type });
}

export const pingdom: Integration = { name: "pingdom", displayName: "Pingdom", handle };
