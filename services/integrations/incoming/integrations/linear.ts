// Linear (zerver/webhooks/linear/view.py): issues, sub-issues and comments, one topic per issue
// ("Issue: <title>", "Sub-Issue: <title>"); labels, projects, cycles and reactions are ignored.
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

const IGNORED_EVENTS = new Set(["IssueLabel", "Project", "ProjectUpdate", "Cycle", "Reaction"]);
const quote = (message: string) => `\n~~~ quote\n${message}\n~~~\n`;

function issueMessage(p: Wild, kind: string): string {
	const data = p.at("data");
	const action = p.at("action").str();
	if (action === "remove") return `This issue has been removed from team ${data.path("team", "name").str()}.`;
	let message = `[${kind}](${p.at("url").str()}) was ${action === "create" ? "created" : "updated"} in team ${data.path("team", "name").str()}`;
	message += data.has("description") ? `:${quote(data.at("description").str())}` : ".";
	const details: string[] = [];
	const priority = data.at("priorityLabel").str();
	if (priority !== "No priority") details.push(`Priority: ${priority}`);
	if (data.has("assignee")) details.push(`Assignee: ${data.path("assignee", "name").str()}`);
	details.push(`Status: ${data.path("state", "name").str()}`);
	return `${message}\n${details.join(", ")}.`;
}

function commentMessage(p: Wild): string {
	const data = p.at("data");
	const user = data.path("user", "name").str();
	const action = p.at("action").str();
	if (action === "remove") return `${user} has removed a comment.`;
	const verb = action === "create" ? "commented" : "updated comment";
	return `${user} [${verb}](${p.at("url").str()}) on issue **${data.path("issue", "title").str()}**:${quote(data.at("body").str())}`;
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const type = p.at("type").str();
	if (IGNORED_EVENTS.has(type)) return nothing();
	if (type === "Issue") {
		const kind = p.at("data").has("parentId") ? "Sub-Issue" : "Issue";
		return posts({ topic: `${kind}: ${p.path("data", "title").str()}`, content: issueMessage(p, kind), event: kind === "Issue" ? "issue" : "sub_issue" });
	}
	if (type === "Comment") return posts({ topic: `Issue: ${p.path("data", "issue", "title").str()}`, content: commentMessage(p), event: "comment" });
	throw new UnsupportedEvent(`${type}:${p.get("action", "???").str()}`);
}

export const linear: Integration = { name: "linear", displayName: "Linear", notifyOnInvalidJson: true, handle };
