// Crashlytics (zerver/webhooks/crashlytics/view.py): the setup check and issues' impact.
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const event = p.at("event").str();
	if (event === "verification") return posts({ topic: "Setup", content: "Webhook has been successfully configured." });
	if (event !== "issue_impact_change") throw new UnsupportedEvent(event);
	const issue = p.at("payload");
	return posts({
		topic: `${issue.at("display_id").int()}: ${issue.at("title").str()}`,
		content: `[Issue](${issue.at("url").str()}) impacts at least ${issue.at("impacted_devices_count").int()} device(s).`,
	});
}

export const crashlytics: Integration = { name: "crashlytics", displayName: "Crashlytics", handle };
