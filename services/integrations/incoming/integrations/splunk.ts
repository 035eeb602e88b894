// Splunk (zerver/webhooks/splunk/view.py): a saved search's alert, in the search's topic; what
// the alert lacks is named as missing rather than refused.
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.payload();
	const search = p.get("search_name", "Missing search_name").str();
	const link = p.get("results_link", "Missing results_link").str();
	const result = p.get("result", {});
	const [host, source, raw] = (["host", "source", "_raw"] as const).map((k) => result.get(k, `Missing ${k}`).str());
	// The view cuts a long search name itself, at 60 characters already.
	const chars = [...search];
	const topic = chars.length >= 60 ? `${chars.slice(0, 57).join("")}...` : search;
	return posts({ topic, content: `Splunk alert from saved search:\n* **Search**: [${search}](${link})\n* **Host**: ${host}\n* **Source**: \`${source}\`\n* **Raw**: \`${raw}\`` });
}

export const splunk: Integration = { name: "splunk", displayName: "Splunk", handle };
