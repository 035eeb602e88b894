// Greenhouse (zerver/webhooks/greenhouse/view.py): candidates and applications, in the topic
// "<action> - <candidate ID>"; the setup ping is ignored.
import type { Wild } from "../payload";
import { nothing, posts, type Integration, type WebhookRequest } from "../integration";
import { pyTitle } from "../toolkit/common";

/** "a@b.c (Personal), [Resume](url)". */
function listed(items: Wild): string {
	const parts: string[] = [];
	for (const item of items.list()) {
		const type = pyTitle(item.get("type", "").str());
		const value = item.get("value").strOrNull();
		const url = item.get("url").strOrNull();
		if (type && value) parts.push(`${value} (${type})`);
		else if (type && url) parts.push(`[${type}](${url})`);
	}
	return parts.join(", ");
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const raw = p.at("action").str();
	if (raw === "ping") return nothing();
	const application = p.path("payload", "application");
	const candidate = raw === "update_candidate" ? p.path("payload", "candidate") : application.at("candidate");
	const action = pyTitle(raw.replaceAll("_", " "));
	const id = candidate.at("id").int();
	const content =
		`${action} ${candidate.at("first_name").str()} ${candidate.at("last_name").str()} (ID: ${id}), applying for:\n` +
		`* **Role**: ${application.at("jobs").item(0).at("name").str()}\n` +
		`* **Emails**: ${listed(application.path("candidate", "email_addresses"))}\n` +
		`* **Attachments**: ${listed(application.path("candidate", "attachments"))}`;
	return posts({ topic: `${action} - ${id}`, content });
}

export const greenhouse: Integration = { name: "greenhouse", displayName: "Greenhouse", handle };
