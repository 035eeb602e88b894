// The two outgoing webhook interfaces (Zulip's GenericOutgoingWebhookService and
// SlackOutgoingWebhookService): what is sent to the bot's server, and what of its answer is the
// bot's reply.
import type { OutgoingBot } from "../../../shared/actions";
import type { OutgoingJobDoc } from "./models/outgoing-job";

export const GENERIC_INTERFACE = 1;
export const SLACK_INTERFACE = 2;

export interface OutgoingRequest {
	contentType: string;
	data: string;
}

/** Zulip's generic payload: the message with its Markdown source (and rendered_content), as JSON. */
function genericRequest(bot: OutgoingBot, job: OutgoingJobDoc): OutgoingRequest {
	const body = { data: job.message.content, message: job.message, bot_email: bot.email, bot_full_name: bot.full_name, token: bot.token, trigger: job.trigger };
	return { contentType: "application/json", data: JSON.stringify(body) };
}

/** Slack's legacy outgoing webhook form fields, as Zulip fills them; channels only. */
function slackRequest(bot: OutgoingBot, job: OutgoingJobDoc, realmHost: string): OutgoingRequest {
	const m = job.message;
	const fields: Array<[string, unknown]> = [
		["token", bot.token],
		["team_id", `T${bot.realm_id}`],
		["team_domain", realmHost],
		["channel_id", `C${m.stream_id}`],
		["channel_name", m.display_recipient],
		["thread_ts", m.timestamp],
		["timestamp", m.timestamp],
		["user_id", `U${m.sender_id}`],
		["user_name", m.sender_full_name],
		["text", m.content],
		["trigger_word", job.trigger],
		["service_id", bot.user_id],
	];
	return { contentType: "application/x-www-form-urlencoded", data: new URLSearchParams(fields.map(([k, v]): [string, string] => [k, String(v)])).toString() };
}

/** The request for this bot, or Zulip's failure text when its interface cannot carry the message. */
export function buildRequest(bot: OutgoingBot, job: OutgoingJobDoc, realmHost: string): OutgoingRequest | { unsupported: string } {
	if (bot.interface !== SLACK_INTERFACE) return genericRequest(bot, job);
	if (job.message.type === "private") return { unsupported: "Slack outgoing webhooks don't support direct messages." };
	return slackRequest(bot, job, realmHost);
}

/** A reply the server's answer asks for was refused, or the answer is not what Zulip reads (Zulip's JsonableError). */
export class BadAnswer extends Error {}

/** Zulip's process_success_response: the reply's content, or null when none is to be posted. */
export function replyOf(bot: OutgoingBot, text: string): string | null {
	let answer: unknown;
	try {
		answer = JSON.parse(text);
	} catch {
		throw new BadAnswer("Invalid JSON in response");
	}
	// zulip_botserver before 2021-05 answered json.dumps("") for "no response required".
	if (answer === "") return null;
	if (!answer || typeof answer !== "object" || Array.isArray(answer)) throw new BadAnswer("Invalid response format");
	const a = answer as Record<string, unknown>;
	let content: unknown = null;
	if (bot.interface === SLACK_INTERFACE) {
		if ("text" in a) content = a.text;
	} else if (a.response_not_required) return null;
	else if ("response_string" in a) content = pyStr(a.response_string);
	else if ("content" in a) content = pyStr(a.content);
	if (content === null || content === undefined) return null;
	if (typeof content !== "string") throw new BadAnswer("Invalid response format");
	return content.trim() === "" ? null : content;
}

/** Python's str() of a JSON value, as Zulip applies it to `content`. */
function pyStr(v: unknown): string {
	if (typeof v === "string") return v;
	if (v === null) return "None";
	if (typeof v === "boolean") return v ? "True" : "False";
	return typeof v === "number" ? String(v) : JSON.stringify(v);
}
