// Opsgenie (zerver/webhooks/opsgenie/view.py): every alert action as one message in the topic of
// the Opsgenie integration that sent it, with what the action changed.
import type { Integration, WebhookRequest } from "../integration";
import { posts } from "../integration";

/** Optional facts, in Zulip's order: [where, key, label]. */
const DETAILS: Array<["alert" | "payload", string, string]> = [
	["alert", "note", "Note"],
	["alert", "recipient", "Recipient"],
	["alert", "addedTags", "Tags added"],
	["alert", "team", "Team added"],
	["alert", "owner", "Assigned owner"],
	["payload", "escalationName", "Escalation"],
	["alert", "removedTags", "Tags removed"],
	["alert", "message", "Message"],
];

function handle(req: WebhookRequest) {
	const p = req.payload();
	const alert = p.at("alert");
	const type = p.at("action").str();
	const id = alert.at("alertId").str();
	const integration = p.at("integrationName").str();
	const tags = alert
		.get("tags", [])
		.list()
		.map((t) => `\`${t.str()}\``)
		.join(", ");
	let info = "";
	for (const [where, key, label] of DETAILS) {
		const source = where === "alert" ? alert : p;
		if (source.has(key)) info += `* **${label}**: ${source.at(key).str()}\n`;
	}
	if (tags) info += `* **Tags**: ${tags}\n`;
	const content = `[Opsgenie alert for ${integration}](https://app.opsgenie.com/alert/V2#/show/${id}):\n* **Type**: ${type}\n${info}`.trim();
	return posts({ topic: integration, content, event: type });
}

export const opsgenie: Integration = { name: "opsgenie", displayName: "Opsgenie", handle };
