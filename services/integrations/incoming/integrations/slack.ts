// Slack (zerver/webhooks/slack/view.py): Slack's legacy outgoing webhooks (a form with user_name,
// text and channel_name), and the Events API's URL verification. Events API messages name their
// sender and channel by Slack IDs that only Slack's API resolves (users.info, conversations.info,
// with the URL's slack_app_token); this server makes no calls to Slack, so they are answered as an
// unsupported event (Zulip's recording answered them with a 500, Slack being out of its reach).
import { badRequest } from "../../../../shared/errors";
import { posts, UnsupportedEvent, type Integration, type Outcome, type WebhookRequest } from "../integration";
import { setupMessage } from "../toolkit/common";
import { slackToMarkdown } from "../toolkit/slack-markup";

const INVALID_TOKEN = (error: string) => `
Hi there! It looks like you're trying to set up a Slack webhook
integration. There seems to be an issue with the Slack app token
you've included in the URL (if any). Please check the error message
below to see if you're missing anything:

Error: ${error}

Feel free to reach out to the [Zulip development community](https://chat.zulip.org/#narrow/channel/127-integrations)
if you need further help!
`;

/** Where Slack's channel goes: none (the URL's topic), "1" its name as topic, "0" the channel of that name. */
function routed(content: string, channel: string, mapping: string | undefined): Outcome {
	if (mapping === undefined) return posts({ topic: "Message from Slack", content });
	if (mapping === "1") return posts({ topic: `channel: ${channel}`, content });
	if (mapping === "0") return { posts: [{ topic: "Message from Slack", content }], channel };
	throw badRequest("Error: channels_map_to_topics parameter other than 0 or 1");
}

function handle(req: WebhookRequest): Outcome {
	const mapping = req.param("channels_map_to_topics");
	if (!req.contentType.startsWith("application/json")) {
		const [userName, text, channel] = ["user_name", "text", "channel_name"].map((name) => req.requiredParam(name));
		return routed(`**${userName}**: ${slackToMarkdown(text)}`, channel, mapping);
	}
	const payload = req.json();
	if (payload.get("type").strOrNull() === "url_verification") {
		const challenge = payload.get("challenge").str();
		// Zulip also checks the token's scopes with Slack; this server only checks there is one.
		if ((req.param("slack_app_token") ?? "") === "") return { posts: [], ownerNotice: () => INVALID_TOKEN("slack_app_token is missing.") };
		return { posts: [{ topic: "Integration events", content: setupMessage("Slack") }], data: { challenge } };
	}
	if (req.header("X-Slack-Retry-Num") !== undefined) return { posts: [] };
	const event = payload.get("event", {});
	const appId = payload.get("api_app_id").strOrNull();
	const botAppId = event.get("bot_profile", {}).get("app_id").strOrNull();
	if (botAppId !== null && appId === botAppId) return { posts: [] };
	const type = event.get("type").str();
	if (type !== "message") throw new UnsupportedEvent(type);
	if (event.get("user").strOrNull() === null) throw new UnsupportedEvent(event.get("subtype").strOrNull() === "bot_message" ? "integration bot message" : "unknown Slack event");
	throw new UnsupportedEvent("message");
}

export const slack: Integration = { name: "slack", displayName: "Slack", handle };
