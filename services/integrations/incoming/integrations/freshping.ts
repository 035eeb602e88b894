// Freshping (zerver/webhooks/freshping/view.py): a check becoming unreachable or available again,
// in the check's topic.
import { posts, type Integration, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";

function handle(req: WebhookRequest) {
	const data = req.json().at("webhook_event_data");
	const url = data.at("request_url").str();
	const content =
		data.at("check_state_name").str() === "Available" ? `${url} is back up and no longer unreachable.` : `${url} has just become unreachable.\nError code: ${pyStr(data.at("http_status_code").value)}.`;
	return posts({ topic: data.at("check_name").str(), content });
}

export const freshping: Integration = { name: "freshping", displayName: "Freshping", handle };
