// Bitbucket Server (zerver/webhooks/bitbucket3/view.py): the event is the payload's eventKey (or
// the X-Event-Key header); a push of several refs posts one message per branch or tag, `branches`
// matched as a substring, as Zulip does.
import type { Wild } from "../payload";
import { UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import * as git from "../toolkit/git";

type Message = { topic: string; content: string };
/** `title`: the URL's topic, whose presence puts titles into messages. */
type Handler = (p: Wild, branches: string | undefined, title: string | undefined) => Message[];

const selfLink = (w: Wild) => w.path("links", "self").item(0).at("href").str();
const userName = (p: Wild) => `[${p.path("actor", "name").str()}](${selfLink(p.at("actor"))})`;
const dot = (title: string) => (git.endsWithPunctuation(title) ? "" : ".");

const ping: Handler = (_p, _b, title) => [{ topic: title || "Bitbucket Server Ping", content: "Congratulations! The Bitbucket Server webhook was configured successfully!" }];

const repoComment =
	(action: string): Handler =>
	(p) => {
		const sha = p.at("commit").str();
		const commitUrl = `${selfLink(p.at("repository")).slice(0, -"browse".length)}commits/${sha}`;
		let message = p.path("comment", "text").str();
		if (action === "deleted their comment") message = `~~${message}~~`;
		return [{ topic: p.path("repository", "name").str(), content: git.commitCommentMessage(userName(p), action, commitUrl, sha, message) }];
	};

const repoForked: Handler = (p) => {
	const repo = p.at("repository");
	const content = `User ${p.path("actor", "displayName").str()}(login: ${userName(p)}) forked the repository into [${repo.at("name").str()}](${selfLink(repo)}).`;
	return [{ topic: repo.path("origin", "name").str(), content }];
};

const repoModified: Handler = (p) => {
	const newName = p.path("new", "name").str();
	const oldName = p.path("old", "name").str();
	return [{ topic: newName, content: `${userName(p)} changed the name of the **${oldName}** repo from **${oldName}** to **${newName}**${dot(newName)}` }];
};

function branchChange(p: Wild, change: Wild): Message {
	const type = change.at("type").str();
	const branch = change.path("ref", "displayId").str();
	const user = userName(p);
	let content: string;
	if (type === "ADD") content = git.createBranchMessage(user, null, branch);
	else if (type === "UPDATE") content = `${user} pushed to branch ${branch}. Head is now ${change.at("toHash").str()}.`;
	else if (type === "DELETE") content = git.removeBranchMessage(user, branch);
	else throw new UnsupportedEvent(`${p.at("eventKey").str()}.${type}`);
	return { topic: git.topicWithBranch(p.path("repository", "name").str(), branch), content };
}

function tagChange(p: Wild, change: Wild): Message {
	const type = change.at("type").str();
	if (type !== "ADD" && type !== "DELETE") throw new UnsupportedEvent(`${p.at("eventKey").str()}.${type}`);
	return { topic: p.path("repository", "name").str(), content: git.pushTagMessage(userName(p), change.path("ref", "displayId").str(), null, type === "ADD" ? "pushed" : "removed") };
}

const repoPush: Handler = (p, branches) => {
	const out: Message[] = [];
	for (const change of p.at("changes").list()) {
		const target = change.path("ref", "type").str();
		if (target === "BRANCH") {
			if (branches && !branches.includes(change.path("ref", "displayId").str())) continue;
			out.push(branchChange(p, change));
		} else if (target === "TAG") out.push(tagChange(p, change));
		else throw new UnsupportedEvent(`${p.at("eventKey").str()}.${target}`);
	}
	return out;
};

function reviewers(pr: Wild): string | null {
	const list = pr.at("reviewers").list().map((r) => `[${r.path("user", "name").str()}](${selfLink(r.at("user"))})`);
	if (!list.length) return null;
	return list.length === 1 ? list[0] : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}

function prBody(p: Wild, action: string, title: string | undefined): string {
	const pr = p.at("pullRequest");
	const user = userName(p);
	const url = selfLink(pr);
	const n = pr.at("id").int();
	const prTitle = title ? pr.at("title").str() : null;
	if (action === "opened" || action === "modified") {
		const opened = action === "opened";
		return git.pullRequestMessage({
			user,
			action,
			url,
			number: n,
			targetBranch: opened ? pr.path("fromRef", "displayId").str() : null,
			baseBranch: opened ? pr.path("toRef", "displayId").str() : null,
			message: pr.get("description").strOrNull(),
			reviewer: reviewers(pr),
			title: prTitle,
		});
	}
	if (action === "merged") return git.pullRequestMessage({ user, action, url, number: n, targetBranch: pr.path("fromRef", "displayId").str(), baseBranch: pr.path("toRef", "displayId").str(), title: prTitle });
	const link = prTitle === null ? `[PR #${n}](${url})` : `[PR #${n} ${prTitle}](${url})`;
	if (action === "needs_work") return `${user} marked ${link} as "needs work".`;
	if (action === "reviewers_updated") {
		const who = reviewers(pr);
		if (who) return `${user} reassigned ${link} to ${who}.`;
		return prTitle === null ? `${user} removed all reviewers from ${link}.` : `${user} removed all reviewers from ${link}${dot(prTitle)}`;
	}
	return git.pullRequestMessage({ user, action, url, number: n, title: prTitle });
}

const prTopic = (pr: Wild) => git.topicWithPrOrIssue(pr.path("toRef", "repository", "name").str(), "PR", pr.at("id").int(), pr.at("title").str());

const prHandler =
	(action: string): Handler =>
	(p, _b, title) => [{ topic: prTopic(p.at("pullRequest")), content: prBody(p, action, title) }];

const prComment =
	(action: string): Handler =>
	(p, _b, title) => {
		const pr = p.at("pullRequest");
		let message = p.path("comment", "text").str();
		if (action === "deleted their comment on") message = `~~${message}~~`;
		const content = git.pullRequestMessage({ user: userName(p), action, url: selfLink(pr), number: pr.at("id").int(), message, title: title ? pr.at("title").str() : null });
		return [{ topic: prTopic(pr), content }];
	};

const HANDLERS: Record<string, Handler> = {
	"diagnostics:ping": ping,
	"repo:comment:added": repoComment("commented"),
	"repo:comment:edited": repoComment("edited their comment"),
	"repo:comment:deleted": repoComment("deleted their comment"),
	"repo:forked": repoForked,
	"repo:modified": repoModified,
	"repo:refs_changed": repoPush,
	"pr:comment:added": prComment("commented on"),
	"pr:comment:edited": prComment("edited their comment on"),
	"pr:comment:deleted": prComment("deleted their comment on"),
	"pr:declined": prHandler("declined"),
	"pr:deleted": prHandler("deleted"),
	"pr:merged": prHandler("merged"),
	"pr:modified": prHandler("modified"),
	"pr:opened": prHandler("opened"),
	"pr:reviewer:approved": prHandler("approved"),
	"pr:reviewer:needs_work": prHandler("needs_work"),
	"pr:reviewer:updated": prHandler("reviewers_updated"),
	"pr:reviewer:unapproved": prHandler("unapproved"),
};

function handle(req: WebhookRequest) {
	const p = req.json();
	const key = p.has("eventKey") ? p.at("eventKey").str() : req.eventHeader("X-Event-Key");
	if (!Object.hasOwn(HANDLERS, key)) throw new UnsupportedEvent(key);
	return { posts: HANDLERS[key](p, req.param("branches"), req.param("topic")).map((m) => ({ ...m, event: key })) };
}

export const bitbucket3: Integration = { name: "bitbucket3", displayName: "Bitbucket3", unquoteUrlParameters: true, handle };
