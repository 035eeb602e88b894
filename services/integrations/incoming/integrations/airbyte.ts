// Airbyte (zerver/webhooks/airbyte/view.py): sync jobs succeeding or failing, in the topic
// "<workspace> - <connection>"; Airbyte's test notifications (text only) in "Airbyte notification".
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const payload = req.json();
	if (!payload.has("data")) return posts({ topic: "Airbyte notification", content: payload.at("text").str() });
	const data = payload.at("data");
	const named = (key: string) => data.path(key, "name").str();
	const success = data.at("success").bool();
	let content =
		`${success ? ":green_circle:" : ":red_circle:"} Airbyte sync **${success ? "succeeded" : "failed"}** for [${named("connection")}](${data.path("connection", "url").str()}).\n\n\n` +
		`* **Source:** [${named("source")}](${data.path("source", "url").str()})\n` +
		`* **Destination:** [${named("destination")}](${data.path("destination", "url").str()})\n` +
		`* **Records:** ${data.at("recordsEmitted").int()} emitted, ${data.at("recordsCommitted").int()} committed\n` +
		`* **Bytes:** ${data.at("bytesEmittedFormatted").str()} emitted, ${data.at("bytesCommittedFormatted").str()} committed\n` +
		`* **Duration:** ${data.at("durationFormatted").str()}\n`;
	if (!success) content += `\n**Error message:** ${data.at("errorMessage").str()}`;
	return posts({ topic: `${named("workspace")} - ${named("connection")}`, content: content.trimEnd() });
}

export const airbyte: Integration = { name: "airbyte", displayName: "Airbyte", handle };
