// Front (zerver/webhooks/front/view.py): messages, comments, mentions, assignments, archiving,
// tags, in the conversation's ID as topic. An unknown event type is Zulip's "Unknown webhook request".
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type Outcome, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";

/** Who acted: a teammate's name, a rule's, or the kind of source in parentheses ("(gmail)"). */
function sourceName(payload: Wild): string {
	const type = payload.path("source", "_meta", "type").str();
	const data = () => payload.path("source", "data");
	if (type === "teammate") return `${data().at("first_name").str()} ${data().at("last_name").str()}`;
	if (type === "rule") return `'${data().at("name").str()}' rule`;
	return `(${type})`;
}

const targetName = (payload: Wild) => `${payload.path("target", "data", "first_name").str()} ${payload.path("target", "data", "last_name").str()}`;

function messageData(payload: Wild) {
	return {
		link: `https://app.frontapp.com/open/${payload.path("target", "data", "id").str()}`,
		outbox: payload.path("conversation", "recipient", "handle").str(),
		inbox: payload.path("source", "data").item(0).at("address").str(),
		subject: payload.path("conversation", "subject").str(),
	};
}

function comment(payload: Wild): string {
	return `**${sourceName(payload)}** left a comment:\n\`\`\`quote\n${payload.path("target", "data", "body").str()}\n\`\`\``;
}

const by = (verb: string) => (payload: Wild) => `${verb} by **${sourceName(payload)}**.`;

const EVENTS: Record<string, (payload: Wild) => string> = {
	inbound: (payload) => {
		const m = messageData(payload);
		return `[Inbound message](${m.link}) from **${m.outbox}** to **${m.inbox}**:\n\`\`\`quote\n*Subject*: ${m.subject}\n\`\`\``;
	},
	outbound: (payload) => {
		const m = messageData(payload);
		return `[Outbound message](${m.link}) from **${m.inbox}** to **${m.outbox}**:\n\`\`\`quote\n*Subject*: ${m.subject}\n\`\`\``;
	},
	out_reply: (payload) => {
		const m = messageData(payload);
		return `[Outbound reply](${m.link}) from **${m.inbox}** to **${m.outbox}**.`;
	},
	comment,
	mention: comment,
	assign: (payload) => {
		const source = sourceName(payload);
		const target = targetName(payload);
		return source === target ? `**${source}** assigned themselves.` : `**${source}** assigned **${target}**.`;
	},
	unassign: by("Unassigned"),
	archive: by("Archived"),
	reopen: by("Reopened"),
	trash: by("Deleted"),
	restore: by("Restored"),
	tag: (payload) => `**${sourceName(payload)}** added tag **${payload.path("target", "data", "name").str()}**.`,
	untag: (payload) => `**${sourceName(payload)}** removed tag **${payload.path("target", "data", "name").str()}**.`,
};

function handle(req: WebhookRequest): Outcome {
	const payload = req.payload();
	const event = payload.at("type").str();
	if (!Object.hasOwn(EVENTS, event)) throw badRequest("Unknown webhook request");
	const topic = payload.path("conversation", "id").str();
	return posts({ topic, content: EVENTS[event](payload), event });
}

export const front: Integration = { name: "front", displayName: "Front", handle };
