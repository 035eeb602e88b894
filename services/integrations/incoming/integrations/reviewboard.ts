// Review Board (zerver/webhooks/reviewboard/view.py): review requests opened, reopened and closed,
// reviews and replies (the X-ReviewBoard-Event header), in the repository's topic.
import type { Wild } from "../payload";
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

function targetPeople(rr: Wild): string {
	const people = rr.at("target_people").list();
	const title = (w: Wild) => `**${w.at("title").str()}**`;
	if (people.length === 1) return title(people[0]);
	const last = rr.at("target_people").item(people.length - 1);
	return `${people
		.slice(0, -1)
		.map((w) => `${title(w)}, `)
		.join("")}and ${title(last)}`;
}

/** A review request's head line and its details in a quote. */
function requestMessage(p: Wild, verb: string, user: string, extra: string): string {
	const rr = p.at("review_request");
	const branch = rr.get("branch").strOrNull();
	const info = branch ? (extra ? `${extra}\n**Branch**: ${branch}` : `**Branch**: ${branch}`) : extra;
	return (
		`**${user}** ${verb} [#${rr.at("id").int()}: ${rr.at("summary").str()}](${rr.at("absolute_url").str()}):\n\n` +
		`\`\`\` quote\n**Description**: ${rr.at("description").str()}\n**Status**: ${rr.at("status").str()}\n**Target people**: ${targetPeople(rr)}\n${info}\n\`\`\``
	).trim();
}

const BODIES: Record<string, (p: Wild) => string> = {
	review_request_published: (p) => requestMessage(p, "opened", p.path("review_request", "links", "submitter", "title").str(), ""),
	review_request_reopened: (p) => requestMessage(p, "reopened", p.path("reopened_by", "username").str(), ""),
	review_request_closed: (p) => requestMessage(p, "closed", p.path("closed_by", "username").str(), `**Close type**: ${p.at("close_type").str()}`),
	review_published: (p) => {
		const rr = p.at("review_request");
		const review = p.at("review");
		return `**${review.path("links", "user", "title").str()}** [reviewed](${review.at("absolute_url").str()}) [#${rr.at("id").int()}: ${rr.at("summary").str()}](${rr.at("absolute_url").str()}):\n\n**Review**:\n\`\`\` quote\n${review.at("body_top").str()}\n\`\`\``;
	},
	reply_published: (p) => {
		const rr = p.at("review_request");
		const reply = p.at("reply");
		return `**${reply.path("links", "user", "title").str()}** [replied](${reply.path("links", "self", "href").str()}) to [#${rr.at("id").int()}: ${rr.at("summary").str()}](${rr.path("links", "self", "href").str()}):\n\n**Reply**:\n\`\`\` quote\n${reply.at("body_top").str()}\n\`\`\``;
	},
};

function handle(req: WebhookRequest) {
	const p = req.payload();
	const event = req.eventHeader("X-ReviewBoard-Event");
	if (!Object.hasOwn(BODIES, event)) throw new UnsupportedEvent(event);
	const content = BODIES[event](p);
	return posts({ topic: p.path("review_request", "links", "repository", "title").str(), content, event });
}

export const reviewboard: Integration = { name: "reviewboard", displayName: "ReviewBoard", handle };
