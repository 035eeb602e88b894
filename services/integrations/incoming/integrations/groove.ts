// Groove (zerver/webhooks/groove/view.py): tickets started and assigned, replies and notes (the
// X-Groove-Event header), in the topic "notifications".
import type { Wild } from "../payload";
import { badRequest } from "../../../../shared/errors";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

const started = (p: Wild) =>
	`${p.at("customer_name").str()} submitted new ticket [#${p.at("number").int()}: ${p.at("title").str()}](${p.at("app_url").str()}):\n\n\`\`\` quote\n${p.at("summary").str()}\n\`\`\``;

function assigned(p: Wild): string | null {
	const state = p.at("state").str();
	const assignee = p.at("assignee").strOrNull();
	const group = p.at("assigned_group").strOrNull();
	if (!assignee && !group) return null;
	const who = assignee && group ? `${assignee} from ${group}` : (assignee ?? group);
	return `[#${p.at("number").int()}: ${p.at("title").str()}](${p.at("app_url").str()}) (${state === "opened" ? "open" : state}) assigned to ${who}.`;
}

/** The part of a Groove API link after its prefix ("http://api.groovehq.com/v1/agents/<email>"). */
function after(link: Wild, prefix: string): string {
	const parts = link.str().split(prefix);
	if (parts.length < 2) throw badRequest(`${link.name} is not a Groove link`);
	return parts[1];
}

const replied = (actor: string, action: string) => (p: Wild) => {
	const who = after(p.path("links", "author", "href"), `http://api.groovehq.com/v1/${actor}s/`);
	const number = after(p.path("links", "ticket", "href"), "http://api.groovehq.com/v1/tickets/");
	return `${who} ${action} [ticket #${number}](${p.at("app_ticket_url").str()}):\n\n\`\`\` quote\n${p.at("plain_text_body").str()}\n\`\`\``;
};

const HANDLERS: Record<string, (p: Wild) => string | null> = {
	ticket_started: started,
	ticket_assigned: assigned,
	agent_replied: replied("agent", "replied to"),
	customer_replied: replied("customer", "replied to"),
	note_added: replied("agent", "left a note on"),
};

function handle(req: WebhookRequest) {
	const p = req.json();
	const event = req.eventHeader("X-Groove-Event");
	if (!Object.hasOwn(HANDLERS, event)) throw new UnsupportedEvent(event);
	const content = HANDLERS[event](p);
	return content === null ? nothing() : posts({ topic: "notifications", content, event });
}

export const groove: Integration = { name: "groove", displayName: "Groove", handle };
