// Statuspage (zerver/webhooks/statuspage/view.py): incident updates and component status changes,
// topic "<incident or component>: <the page's status>".
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const pageStatus = () => p.path("page", "status_description").str();
	if (p.has("incident")) {
		const incident = p.at("incident");
		const content = `**${incident.at("name").str()}**:\n* State: **${incident.at("status").str()}**\n* Description: ${incident.at("incident_updates").item(0).at("body").str()}`;
		return posts({ topic: `${incident.at("name").str()}: ${pageStatus()}`, content, event: "incident" });
	}
	if (p.has("component")) {
		const name = p.path("component", "name").str();
		const update = p.at("component_update");
		return posts({ topic: `${name}: ${pageStatus()}`, content: `**${name}** has changed status from **${update.at("old_status").str()}** to **${update.at("new_status").str()}**.`, event: "component" });
	}
	throw new UnsupportedEvent("unknown-event");
}

export const statuspage: Integration = { name: "statuspage", displayName: "Statuspage", handle };
