// Grafana (zerver/webhooks/grafana/view.py): Grafana 8+ alerting (one message per alert, topic
// "[<alert name>]") and Grafana 7's legacy alerts (topic: the alert's title).
import type { Wild } from "../payload";
import { badRequest } from "../../../../shared/errors";
import type { Integration, Post, WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";

const status = (icon: string, state: string) => `${icon} **${state.toUpperCase()}**\n\n`;
const list = (entries: Array<[string, string]>) => entries.map(([k, v]) => `- ${k}: ${v}\n`).join("");

function alertMessage(alert: Wild): Post {
	const state = alert.at("status").oneOf(["firing", "resolved"] as const);
	let body = status(state === "firing" ? ":alert:" : ":checkbox:", state);
	const labels = alert.at("labels");
	let topic: string;
	if (labels.has("alertname") && labels.at("alertname").truthy) {
		const name = labels.at("alertname").str();
		topic = `[${name}]`;
		body += `**${name}**\n\n`;
	} else topic = `[${alert.at("fingerprint").str()}]`;
	body += `This alert was fired at <time:${alert.at("startsAt").str()}>.`;
	const end = alert.at("endsAt").str();
	if (end !== "0001-01-01T00:00:00Z") body += `\n\nThis alert was resolved at <time:${end}>.`;
	if (labels.truthy) body += `\n\nLabels:\n${list(labels.entries().map(([k, v]) => [k, v.str()]))}\n`;
	if (alert.get("values").truthy) body += `Values:\n${list(alert.at("values").entries().map(([k, v]) => [k, pyStr(v.value)]))}\n`;
	else if (alert.get("valueString").truthy) body += `Values:\n${alert.at("valueString").str()}\n\n`;
	if (alert.at("annotations").truthy) body += `Annotations:\n${list(alert.at("annotations").entries().map(([k, v]) => [k, v.str()]))}`;
	if (alert.at("generatorURL").truthy) body += `\n[Generator](${alert.at("generatorURL").str()})`;
	if (alert.at("silenceURL").truthy) body += `\n[Silence](${alert.at("silenceURL").str()})`;
	if (alert.get("imageURL").truthy) body += `\n[Image](${alert.at("imageURL").str()})`;
	return { topic, content: `${body}\n`, event: state };
}

const LEGACY_STATES = ["no_data", "paused", "alerting", "ok", "pending", "unknown"] as const;

function legacyMessage(p: Wild): Post {
	let evalMatches = "";
	if (p.has("evalMatches") && p.at("evalMatches").present) {
		for (const m of p.at("evalMatches").list()) {
			const value = m.at("value");
			if (value.present && typeof value.value !== "number") throw badRequest(`${value.name} is not an integer or float`);
			evalMatches += `**${m.at("metric").str()}:** ${pyStr(value.value)}\n`;
		}
	}
	const message = p.has("message") ? `${p.at("message").str()}\n\n` : "";
	const state = p.at("state").oneOf(LEGACY_STATES);
	const icon = state === "alerting" ? ":alert:" : state === "ok" ? ":squared_ok:" : ":info:";
	let body = `${status(icon, state)}[${p.at("ruleName").str()}](${p.at("ruleUrl").str()})\n\n${message}${evalMatches}`;
	if (p.has("imageUrl")) body += `\n[Click to view visualization](${p.at("imageUrl").str()})`;
	return { topic: p.at("title").str(), content: body.trim(), event: state };
}

function handle(req: WebhookRequest) {
	const p = req.json();
	return { posts: p.has("alerts") ? p.at("alerts").list().map(alertMessage) : [legacyMessage(p)] };
}

export const grafana: Integration = { name: "grafana", displayName: "Grafana", handle };
