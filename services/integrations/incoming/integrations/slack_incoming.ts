// Slack-compatible incoming webhooks (zerver/webhooks/slack_incoming/view.py): a tool that posts
// to Slack's incoming webhook URLs can post here. The payload is the JSON body or the `payload`
// form field; its blocks and attachments become Markdown, else its text (Slack's markup
// converted). The topic is the URL's, else the payload's channel, else "(no topic)". Slack's
// clients expect {ok: true}, and errors as {ok: false, error}.
import { apiError } from "../../../../shared/errors";
import { Wild } from "../payload";
import { parseJson, type Integration, type WebhookRequest } from "../integration";
import { renderAttachment, renderBlock, slackToMarkdown } from "../toolkit/slack-markup";

function payloadOf(req: WebhookRequest): Wild {
	if (req.contentType.split(";")[0].trim() === "application/json") return req.json();
	const raw = req.param("payload");
	if (raw === undefined) throw apiError(400, "REQUEST_VARIABLE_MISSING", "Missing 'payload' argument", { var_name: "payload" });
	return new Wild(parseJson(raw), "payload");
}

function handle(req: WebhookRequest) {
	const p = payloadOf(req);
	let topic = req.param("topic");
	if (topic === undefined && p.has("channel")) topic = p.at("channel").str().replace(/^[@#]/, "");
	topic ??= "(no topic)";
	const pieces: string[] = [];
	if (p.get("blocks").truthy) pieces.push(...p.at("blocks").list().map(renderBlock));
	if (p.get("attachments").truthy) pieces.push(...p.at("attachments").list().map(renderAttachment));
	let body = pieces
		.map((x) => x.trim())
		.filter((x) => x !== "")
		.join("\n\n");
	if (body === "" && p.get("text").truthy) {
		if (p.get("icon_emoji").truthy) body = `${p.at("icon_emoji").str()} `;
		body += p.at("text").str();
		body = slackToMarkdown(body.trim());
	}
	return { posts: body === "" ? [] : [{ topic, content: body }], data: { ok: true } };
}

export const slackIncoming: Integration = {
	name: "slack_incoming",
	displayName: "SlackIncoming",
	handle,
	errorAnswer: (status, msg) => ({ status, json: { ok: false, error: msg } }),
};
