// Sentry (zerver/webhooks/sentry/view.py): events (exceptions with the line that raised them,
// messages) and issues (created, resolved, assigned, ignored), from Sentry's internal integration
// or a plain webhook (whose payload is made to look like the former), and Sentry's deprecated
// payloads. The topic is the event's or issue's title.
import { Wild } from "../payload";
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";

/** Sentry's platform names as the code block languages Zulip highlights them with. */
const LANGUAGES: Record<string, string> = { go: "go", java: "java", javascript: "javascript", node: "javascript", python: "python3", ruby: "ruby" };

/** "2020-04-28T13:56:05.123Z" as "2020-04-28 13:56:05". */
const shortDatetime = (s: string) => s.split(".")[0].replace("T", " ");

function tracebackLines(lines: Wild): string {
	if (!lines.present) return "";
	return lines
		.list()
		.map((l) => (l.str() === "" ? "\n" : `     ${l.str()}\n`))
		.join("");
}

function eventMessage(event: Wild): [string, string] {
	const title = event.at("title").str();
	const platform = event.at("platform").str();
	// The deprecated Raven SDKs (Python before version 7) are not supported; Sentry's sample event still says 7.
	if (platform === "python" && Number.parseInt(event.at("version").str(), 10) < 7 && event.get("title", "").str() !== "This is an example Python exception") throw new UnsupportedEvent("Raven SDK");
	const head = (kind: string) => `**${kind}:** [${title}](${event.at("web_url").str()})\n\`\`\`quote\n**level:** ${event.at("level").str()}\n**timestamp:** ${shortDatetime(event.at("datetime").str())}\n`;
	if (event.has("exception")) {
		const filename = event.at("metadata").get("filename").value;
		const withStack = event
			.path("exception", "values")
			.list()
			.reverse()
			.find((v) => v.has("stacktrace"));
		if (withStack && filename) {
			const frame = withStack
				.path("stacktrace", "frames")
				.list()
				.reverse()
				.find((f) => f.get("filename").value === filename);
			if (frame && frame.has("context_line") && frame.at("context_line").present) {
				const traceback = `${tracebackLines(frame.get("pre_context"))}---> ${frame.at("context_line").str()}\n${tracebackLines(frame.get("post_context"))}`;
				return [title, `${head("New exception")}**filename:** ${pyStr(filename)}\n\`\`\`\n\nTraceback:\n\`\`\`${LANGUAGES[platform] ?? ""}\n${traceback}\`\`\``];
			}
		}
		return [title, `${head("New exception")}**filename:** ${pyStr(filename)}\n\`\`\``];
	}
	if (event.has("logentry")) return [title, `${head("New message event")}\`\`\``];
	throw new UnsupportedEvent("unknown-event type");
}

function issueMessage(action: string, issue: Wild, actor: Wild): [string, string] {
	const title = issue.at("title").str();
	const to = issue.at("assignedTo");
	const assignee = to.truthy ? (to.at("type").str() === "team" ? `team ${to.at("name").str()}` : to.at("name").str()) : "No one";
	if (action === "created") return [title, `**New issue created:** ${title}\n\`\`\`quote\n**level:** ${issue.at("level").str()}\n**timestamp:** ${shortDatetime(issue.at("lastSeen").str())}\n**assignee:** ${assignee}\n\`\`\``];
	if (action === "resolved") return [title, `Issue **${title}** was marked as resolved by **${actor.at("name").str()}**.`];
	if (action === "assigned") return [title, `Issue **${title}** has now been assigned to **${assignee}** by **${actor.at("name").str()}**.`];
	if (action === "ignored") return [title, `Issue **${title}** was ignored by **${actor.at("name").str()}**.`];
	throw new UnsupportedEvent("unknown-issue-action type");
}

/** A plain webhook's payload: the event's link and time made as the internal integration gives them. */
function webhookEvent(p: Wild): Wild | null {
	const event = p.get("event", {});
	if (!event.get("event_id").truthy) return null;
	const url = new URL(`events/${event.at("event_id").str()}/`, p.at("url").str()).href;
	const timestamp = event.has("timestamp") ? event.at("timestamp").num() : event.at("received").num();
	const datetime = new Date(timestamp * 1000).toISOString();
	return new Wild({ event: { ...(event.value as object), web_url: url, datetime } }, "payload");
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const data = p.get("data").present ? p.at("data") : webhookEvent(p);
	let topic: string;
	let content: string;
	if (data?.truthy) {
		if (data.has("event")) [topic, content] = eventMessage(data.at("event"));
		else if (data.has("issue")) [topic, content] = issueMessage(p.at("action").str(), data.at("issue"), p.at("actor"));
		else throw new UnsupportedEvent(`[${data.keys().map((k) => `'${k}'`).join(", ")}]`);
	} else {
		topic = pyStr(p.get("project_name").value);
		content = `New [issue](${pyStr(p.get("url").value)}) (level: ${p.at("level").str().toUpperCase()}):\n\n\`\`\` quote\n${pyStr(p.get("message").value)}\n\`\`\``;
	}
	return posts({ topic, content });
}

export const sentry: Integration = { name: "sentry", displayName: "Sentry", handle };
