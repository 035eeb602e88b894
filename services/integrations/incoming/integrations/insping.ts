// Insping (zerver/webhooks/insping/view.py): a website's state changing, in the topic "insping".
import { posts, type Integration, type WebhookRequest } from "../integration";
import { ctime } from "../toolkit/common";

function handle(req: WebhookRequest) {
	const data = req.json().at("webhook_event_data");
	const content = `State changed to **${data.at("check_state_name").str()}**:\n* **URL**: ${data.at("request_url").str()}\n* **Response time**: ${data.at("response_time").int()} ms\n* **Timestamp**: ${ctime(new Date(data.at("request_start_time").str()))}`;
	return posts({ topic: "insping", content });
}

export const insping: Integration = { name: "insping", displayName: "Insping", handle };
