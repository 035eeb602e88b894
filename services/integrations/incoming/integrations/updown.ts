// Updown (zerver/webhooks/updown/view.py): checks going down and coming back up (a request may
// carry several events: one message each), in the topic of the checked URL.
import type { Wild } from "../payload";
import { posts, UnsupportedEvent, type Integration, type Post, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";

/** "4 minutes 25 seconds", "1 day 2 hours". */
function duration(total: number): string {
	const parts: Array<[number, string]> = [
		[Math.floor(total / 86400), "day"],
		[Math.floor((total % 86400) / 3600), "hour"],
		[Math.floor((total % 3600) / 60), "minute"],
		[total % 60, "second"],
	];
	return parts
		.filter(([n]) => n >= 1)
		.map(([n, unit]) => (n === 1 ? `1 ${unit}` : `${n} ${unit}s`))
		.join(" ");
}

function message(event: Wild): Post {
	const name = event.at("event").str();
	const type = /^check.(.*)$/s.exec(name)?.[1];
	if (type !== "up" && type !== "down") throw new UnsupportedEvent(name);
	const downtime = event.at("downtime");
	let content: string;
	if (type === "down") {
		const at = downtime.at("started_at").str().replaceAll("T", " ").replaceAll("Z", " UTC");
		content = `Service is \`down\`. It returned a ${pyStr(downtime.at("error").strOrNull())} error at ${at}.`;
	} else {
		content = "Service is `up`";
		if (downtime.at("started_at").strOrNull()) {
			content += " again";
			const seconds = downtime.at("duration").intOrNull();
			if (seconds && duration(seconds)) content += ` after ${duration(seconds)}`;
		}
		content += ".";
	}
	return { topic: event.path("check", "url").str(), content, event: type };
}

function handle(req: WebhookRequest) {
	return posts(...req.json().list().map(message));
}

export const updown: Integration = { name: "updown", displayName: "Updown", handle };
