// Jira (zerver/webhooks/jira/view.py): issues created, updated (assignments, transitions,
// changelogs, comments) and deleted, and comment events. Jira's markup in comments becomes
// Markdown; an assignee is named by their account here when their email belongs to one, and
// `[~username]` mentions by the account their name or email start guesses. Channel and topic may
// arrive URL-encoded twice.
import { Wild } from "../payload";
import { AnomalousPayload, nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";
import { endsWithPunctuation } from "../toolkit/git";
import type { IntegrationPeople } from "../../../../shared/actions";

const IGNORED_EVENTS = new Set([
	"attachment_created",
	"issuelink_created",
	"issuelink_deleted",
	"jira:version_released",
	"jira:worklog_updated",
	"sprint_closed",
	"sprint_started",
	"worklog_created",
	"worklog_updated",
]);

/** Zulip's get_in: the value down `keys`, or `fallback` where the path breaks. */
function getIn(p: Wild, keys: string[], fallback: unknown = ""): Wild {
	try {
		return p.path(...keys);
	} catch {
		return new Wild(fallback);
	}
}

/** Jira's wiki markup as Markdown, mentions left as they are (mentionsOf, withMentions). */
function convertMarkup(content: string): string {
	return content
		.replace(/\*([^*]+)\*/g, "**$1**")
		.replace(/{{([^*]+?)}}/g, "`$1`")
		.replace(/bq\. (.*)/g, "> $1")
		.replace(/{quote}([\s\S]*?){quote}/g, "~~~ quote\n$1\n~~~")
		.replace(/{noformat}([\s\S]*?){noformat}/g, "~~~\n$1\n~~~")
		.replace(/{code[^\n]*}([\s\S]*?){code}/g, "~~~\n$1\n~~~")
		.replace(/\[([^|~]+?)\]/g, "[$1]($1)")
		.replace(/\[(?:([^|~]+)\|)([^\]]*)\]/g, "[$1]($2)");
}

const mentionsOf = (content: string) => [...content.matchAll(/\[~(.*?)\]/g)].map((m) => m[1]);

function withMentions(content: string, names: IntegrationPeople["by_guess"]): string {
	for (const username of mentionsOf(content)) content = content.replaceAll(`[~${username}]`, `**${names[username]?.full_name ?? username}**`);
	return content;
}

function issueId(p: Wild): string {
	// Some old Jira versions send comment events without the issue: its internal number then.
	if (!p.has("issue")) return p.path("comment", "self").str().split("/").at(-3) ?? "";
	return getIn(p, ["issue", "key"]).str();
}

const issueTitle = (p: Wild) => (p.has("issue") ? getIn(p, ["issue", "fields", "summary"]).str() : "Upgrade Jira to get the issue title here.");

/** The issue as a link to its /browse page, guessed from its REST URL. */
function issueString(p: Wild, id: string = issueId(p), withTitle = false): string {
	const text = withTitle ? `${id}: ${issueTitle(p)}` : id;
	const base = /^(.*)\/rest\/api\/.*/s.exec(getIn(p, ["issue", "self"]).str());
	return base ? `[${text}](${base[1]}/browse/${id})` : text;
}

const author = (p: Wild) => getIn(p, ["user", "displayName"]).str();

function subEvent(p: Wild): string {
	const sub = p.get("issue_event_type_name", "").str();
	if (sub !== "") return sub;
	if (p.get("comment").truthy) return "issue_commented";
	if (p.get("transition").truthy) return "issue_transited";
	return sub;
}

function changeInfo(content: string, field: string | null, from: string | null, to: string): string {
	content += `* Changed ${pyStr(field)}`;
	if (from) content += ` from **${from}**`;
	if (to) content += ` to ${to}\n`;
	return content;
}

async function issueUpdated(p: Wild, req: WebhookRequest): Promise<string> {
	const id = getIn(p, ["issue", "key"]).str();
	const issue = issueString(p, id, true);
	const email = getIn(p, ["issue", "fields", "assignee", "emailAddress"], "").str();
	const sub = subEvent(p);
	const rawComment = sub.includes("comment") ? getIn(p, ["comment", "body"]).str() : "";
	const converted = rawComment ? convertMarkup(rawComment) : "";
	const people = email || mentionsOf(converted).length ? await req.lookups.people(email ? [email] : [], mentionsOf(converted)) : { by_email: {}, by_guess: {} };
	const assignee = email ? `**${people.by_email[email]?.full_name ?? email}**` : "";
	const blurb = assignee ? ` (assigned to ${assignee})` : "";

	if (sub.includes("comment")) {
		const verb = sub === "issue_commented" ? "commented on" : sub === "issue_comment_edited" ? "edited a comment on" : "deleted a comment from";
		const who = p.get("webhookEvent").value === "comment_created" ? p.path("comment", "author", "displayName").str() : author(p);
		const content = `${who} ${verb} ${issue}${blurb}`;
		return rawComment ? `${content}:\n\n\`\`\` quote\n${withMentions(converted, people.by_guess)}\n\`\`\`` : `${content}.`;
	}
	let content = `${author(p)} updated ${issue}${blurb}:\n\n`;
	const changelog = p.get("changelog");
	if (changelog.truthy) {
		for (const item of changelog.get("items").list()) {
			const field = item.get("field").strOrNull();
			const to = field === "assignee" && assignee ? assignee : `**${pyStr(item.get("toString").strOrNull())}**`;
			content = changeInfo(content, field, item.get("fromString").strOrNull(), to);
		}
	} else if (sub === "issue_transited") {
		content = changeInfo(content, "status", getIn(p, ["transition", "from_status"]).str(), `**${getIn(p, ["transition", "to_status"]).str()}**`);
	}
	return content;
}

function issueCreated(p: Wild): string {
	const priority = getIn(p, ["issue", "fields", "priority", "name"]).str();
	const assignee = getIn(p, ["issue", "fields", "assignee", "displayName"], "no one").str();
	return `${author(p)} created ${issueString(p, undefined, true)}:\n\n* **Priority**: ${priority}\n* **Assignee**: ${assignee}`;
}

function issueDeleted(p: Wild): string {
	return `${author(p)} deleted ${issueString(p, undefined, true)}${endsWithPunctuation(issueTitle(p)) ? "" : "."}`;
}

/** Jira escapes `!` twice in comment bodies. */
const normalizeComment = (comment: string) => comment.replaceAll("\\!", "!");

const commentEvent = (verb: string, strike: boolean) => (p: Wild) => {
	const comment = normalizeComment(p.path("comment", "body").str());
	return `${p.path("comment", "author", "displayName").str()} ${verb} ${issueString(p, undefined, true)}\n\`\`\` quote\n${strike ? `~~${comment}~~` : comment}\n\`\`\``;
};

const HANDLERS: Record<string, (p: Wild, req: WebhookRequest) => string | Promise<string>> = {
	"jira:issue_created": issueCreated,
	"jira:issue_deleted": issueDeleted,
	"jira:issue_updated": issueUpdated,
	comment_created: commentEvent("commented on", false),
	comment_updated: commentEvent("updated their comment on", false),
	comment_deleted: commentEvent("deleted their comment on", true),
};

async function handle(req: WebhookRequest) {
	const p = req.json();
	let event = p.get("webhookEvent").strOrNull();
	if (event === null && p.get("transition").truthy) event = "jira:issue_updated";
	if (event !== null && IGNORED_EVENTS.has(event)) return nothing();
	if (event === null) throw new AnomalousPayload();
	if (!Object.hasOwn(HANDLERS, event)) throw new UnsupportedEvent(event);
	const topic = `${issueId(p)}: ${issueTitle(p)}`;
	return posts({ topic, content: await HANDLERS[event](p, req), event });
}

export const jira: Integration = { name: "jira", displayName: "Jira", unquoteUrlParameters: true, handle };
