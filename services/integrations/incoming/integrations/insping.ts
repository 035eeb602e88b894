// Insping (zerver/webhooks/insping/view.py): a website's state changing, in the topic "insping".
import { posts, type Integration, type WebhookRequest } from "../integration";

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** Python's time.ctime() in UTC: "Fri Dec 29 17:23:46 2017". */
function ctime(iso: string): string {
	const d = new Date(iso);
	if (Number.isNaN(d.getTime())) throw new Error(`not a time: ${iso}`);
	return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, " ")} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

function handle(req: WebhookRequest) {
	const data = req.json().at("webhook_event_data");
	const content = `State changed to **${data.at("check_state_name").str()}**:\n* **URL**: ${data.at("request_url").str()}\n* **Response time**: ${data.at("response_time").int()} ms\n* **Timestamp**: ${ctime(data.at("request_start_time").str())}`;
	return posts({ topic: "insping", content });
}

export const insping: Integration = { name: "insping", displayName: "Insping", handle };
