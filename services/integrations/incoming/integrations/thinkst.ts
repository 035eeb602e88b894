// Thinkst Canary (zerver/webhooks/thinkst/view.py): canaries and canarytokens triggered, with what
// the alert tells of the incident, in the topic "<canary|canarytoken> alert - <name>".
import type { Wild } from "../payload";
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

const FIELDS: Array<[string, (v: string) => string]> = [
	["IncidentHash", (v) => `**Incident ID:** \`${v}\``],
	["Token", (v) => `**Token:** \`${v}\``],
	["Description", (v) => `**Kind:** ${v}`],
	["Timestamp", (v) => `**Timestamp:** ${v}`],
	["CanaryIP", (v) => `**Canary IP:** \`${v}\``],
	["CanaryLocation", (v) => `**Canary location:** ${v}`],
];

function body(m: Wild, kind: string, name: string): string {
	let out = `**:alert: ${kind === "canary" ? "Canary" : "Canarytoken"} *${name}* has been triggered!**\n\n${m.at("Intro").str()}\n\n`;
	for (const [key, line] of FIELDS) if (m.has(key)) out += `${line(m.at(key).str())}\n`;
	if (m.has("Triggered")) {
		const n = m.at("Triggered").int();
		out += `**Triggered:** ${n} ${n > 1 ? "times" : "time"}\n`;
	}
	if (m.has("SourceIP") && m.at("SourceIP").str()) out += `**Source IP:** \`${m.at("SourceIP").str()}\`\n`;
	if (m.has("ReverseDNS") && m.at("ReverseDNS").str() !== "") out += `**Reverse DNS:** \`${m.at("ReverseDNS").str()}\`\n`;
	if (m.has("AdditionalDetails")) {
		for (const detail of m.at("AdditionalDetails").list()) {
			const key = detail.item(0).str();
			const value = detail.item(1);
			if (typeof value.value !== "string" && !Number.isInteger(value.value)) throw badRequest(`${value.name} is not a string or an integer`);
			// Thinkst writes passwords as stars, which would be read as emphasis.
			out += typeof value.value === "string" && value.value.includes("*") ? `**${key}:** \`${value.value}\`\n` : `**${key}:** ${String(value.value)}\n`;
		}
	}
	return out;
}

function handle(req: WebhookRequest) {
	const m = req.payload();
	const token = m.at("AlertType").str() === "CanarytokenIncident";
	const kind = token ? "canarytoken" : "canary";
	const name = token ? m.at("Reminder").str() : m.at("CanaryName").str();
	const content = body(m, kind, name);
	return posts({ topic: req.param("topic") || `${kind} alert - ${name}`, content });
}

export const thinkst: Integration = { name: "thinkst", displayName: "Thinkst", handle };
