// Papertrail (zerver/webhooks/papertrail/view.py): a saved search's matches (the first four, then
// a link to the rest), JSON in the `payload` form field, in the topic "logs".
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.jsonParam("payload");
	if (!p.has("events")) throw badRequest("Events key is missing from payload");
	const search = p.at("saved_search");
	const url = search.at("html_search_url").str();
	const events = p.at("events").list();
	const lines = [`[Search for "${search.at("name").str()}"](${url}) found **${events.length}** matches:\n`];
	for (const [i, e] of events.entries()) {
		lines.push(`${e.at("display_received_at").str()} - ${e.at("source_name").str()} - ${search.at("query").str()}:\n\`\`\` quote\n${e.at("message").str()}\n\`\`\``);
		if (i >= 3) {
			lines.push(`[See more](${url})`);
			break;
		}
	}
	return posts({ topic: "logs", content: lines.join("\n") });
}

export const papertrail: Integration = { name: "papertrail", displayName: "Papertrail", handle };
