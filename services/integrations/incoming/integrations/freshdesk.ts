// Freshdesk (zerver/webhooks/freshdesk/view.py): tickets created, notes, status and priority
// changes, in the topic "#<id>: <subject>". Freshdesk authenticates with HTTP basic auth.
import { badRequest } from "../../../../shared/errors";
import { nothing, posts, type Integration, type Outcome, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";
import { htmlToMarkdown } from "../toolkit/html";

const REQUIRED = ["triggered_event", "ticket_id", "ticket_url", "ticket_type", "ticket_subject", "ticket_description", "ticket_status", "ticket_priority", "requester_name", "requester_email"] as const;

/** Freshdesk's API gives statuses and priorities as numbers; these are Zulip's (FlightCar's) names. */
const NAMES: Record<string, string[]> = {
	status: ["", "", "Open", "Pending", "Resolved", "Closed", "Waiting on Customer", "Job Application", "Monthly"],
	priority: ["", "Low", "Medium", "High", "Urgent"],
};

const nameOf = (property: string, index: number) => NAMES[property]?.[index] ?? String(index);

/**
 * "{ticket_action:created}" or "{status:{from:4,to:6}}": not JSON, read as Zulip reads it. A
 * property change's states are named for status and priority only.
 */
function parseEvent(event: string): string[] {
	const data = event.replace(/[{}]/g, "").replace(/,/g, ":").split(":");
	if (data.length === 2) return data;
	if (data.length !== 5 || !/^\d+$/.test(data[2]) || !/^\d+$/.test(data[4])) throw badRequest("Malformed payload");
	const [property, , from, , to] = data;
	if (property !== "status" && property !== "priority") return [property, from, to];
	return [property, nameOf(property, Number(from)), nameOf(property, Number(to))];
}

function handle(req: WebhookRequest): Outcome {
	const data = req.json().at("freshdesk_webhook");
	const ticket: Record<string, string> = {};
	for (const key of REQUIRED) {
		const v = data.get(key);
		if (!v.present) throw badRequest(`Missing key ${key} in JSON`);
		ticket[key] = pyStr(v.value);
	}
	const who = `${ticket.requester_name} <${ticket.requester_email}>`;
	const link = `[ticket #${ticket.ticket_id}](${ticket.ticket_url})`;
	const event = parseEvent(ticket.triggered_event);
	let content: string;
	if (event[1] === "created") {
		content = `${who} created ${link}:\n\n\`\`\` quote\n${htmlToMarkdown(ticket.ticket_description)}\n\`\`\`\n\n* **Type**: ${ticket.ticket_type}\n* **Priority**: ${ticket.ticket_priority}\n* **Status**: ${ticket.ticket_status}`;
	} else if (event[0] === "note_type") {
		content = `${who} added a ${event[1]} note to ${link}.`;
	} else if (event[0] === "status" || event[0] === "priority") {
		content = `${who} updated ${link}:\n\n* **${event[0].charAt(0).toUpperCase()}${event[0].slice(1)}**: ${event[1]} -> ${event[2]}`;
	} else return nothing();
	return posts({ topic: `#${ticket.ticket_id}: ${ticket.ticket_subject}`, content });
}

export const freshdesk: Integration = { name: "freshdesk", displayName: "Freshdesk", handle };
