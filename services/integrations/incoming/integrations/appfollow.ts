// AppFollow (zerver/webhooks/appfollow/view.py): its Slack-style text, converted to Markdown, in
// a topic named by the text's first line (the app's name).
import { posts, type Integration, type WebhookRequest } from "../integration";

/** Slack's *bold*, _italics_ and ~strike~ as Markdown, as Zulip converts AppFollow's text. */
function convertMarkdown(text: string): string {
	return text
		.replace(/(?<=\s|^)\*(.+?\S)\*(?=\s|$)/g, "**$1**")
		.replace(/\b_(\s*)(.+?)(\s*)_\b/g, "$1*$2*$3")
		.replace(/(?<=\s|^)~(.+?\S)~(?=\s|$)/g, "~~$1~~");
}

function handle(req: WebhookRequest) {
	const message = req.json().at("text").str();
	const topic = /^.+/.exec(message)?.[0];
	if (topic === undefined) throw new Error("AppFollow text without a first line");
	return posts({ topic, content: convertMarkdown(message) });
}

export const appfollow: Integration = { name: "appfollow", displayName: "AppFollow", handle };
