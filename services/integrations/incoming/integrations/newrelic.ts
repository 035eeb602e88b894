// New Relic (zerver/webhooks/newrelic/view.py): an issue's state (created, activated, closed), in
// the issue's topic, with its policies, conditions, who acknowledged it and the custom fields a
// workflow puts under `zulipCustomFields`.
import type { Wild } from "../payload";
import { posts, type Integration, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";

const PRIORITIES: Record<string, string> = { CRITICAL: ":red_circle:", HIGH: ":orange_circle:", MEDIUM: ":yellow:", LOW: ":blue_circle:" };
const STATES = ["CREATED", "ACTIVATED", "CLOSED"] as const;

/** Unix milliseconds as Python's str() of an aware UTC datetime ("2024-04-22 07:08:28.699000+00:00"). */
function pyDatetime(w: Wild): string {
	const ms = w.int();
	const iso = new Date(ms).toISOString();
	if (Number.isNaN(Date.parse(iso))) throw new Error("time out of range");
	const micros = (((ms % 1000) + 1000) % 1000) * 1000;
	return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${micros ? `.${String(micros).padStart(6, "0")}` : ""}+00:00`;
}

const isScalar = (v: unknown) => v === null || typeof v === "string" || typeof v === "number";

/** A custom field's value, as Zulip writes it; lists of scalars joined, anything else refused by name. */
function customValue(v: unknown): string {
	if (typeof v === "boolean" || isScalar(v)) return pyStr(v);
	if (Array.isArray(v) && v.every((x) => typeof x === "boolean" || isScalar(x))) return v.map(pyStr).join(", ");
	return "*Value is not a supported data type*";
}

/** Python's str.capitalize(). */
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

function handle(req: WebhookRequest) {
	const p = req.json();
	const priority = p.at("priority").oneOf(Object.keys(PRIORITIES));
	const state = p.at("state").oneOf(STATES);
	const title = p.at("title").str();
	const names = (key: string) =>
		p
			.at(key)
			.list()
			.map((n) => `\`${n.str()}\``)
			.join(", ");
	const owner = p.get("owner").strOrNull();
	const acknowledged = owner !== null && owner !== "N/A" ? `**Acknowledged by**: ${owner}` : "";
	let custom = "";
	for (const [key, value] of p.get("zulipCustomFields", {}).entries()) custom += `- **${capitalize(key)}**: ${customValue(value.value)}\n`;
	const content =
		`${PRIORITIES[priority]} **[${title}](${p.at("issueUrl").str()})**\n\n` +
		`\`\`\`quote\n**Priority**: ${priority}\n**State**: ${state}\n**Updated at**: <time: ${pyDatetime(p.at("updatedAt"))} >\n${acknowledged}\n\`\`\`\n\n` +
		`\`\`\`spoiler :file: Incident details\n\n- **Alert policies**: ${names("alertPolicyNames")}\n- **Conditions**: ${names("alertConditionNames")}\n` +
		`- **Total incidents**: ${p.at("totalIncidents").int()}\n- **Incident created at**: <time: ${pyDatetime(p.at("createdAt"))} >\n${custom}\n\`\`\``;
	return posts({ topic: title, content, event: state });
}

export const newrelic: Integration = { name: "newrelic", displayName: "NewRelic", handle };
