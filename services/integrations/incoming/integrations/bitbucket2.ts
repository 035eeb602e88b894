// Bitbucket Cloud (zerver/webhooks/bitbucket2/view.py): the event is read from the payload's keys,
// and from the X-Event-Key header for pull requests and repository updates. A push may carry
// several changes (branches and tags): one message each. `branches` is matched as a substring, as
// Zulip does, against the last change's branch.
import type { Wild } from "../payload";
import { nothing, UnsupportedEvent, type Integration, type Post, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";
import * as git from "../toolkit/git";

type Body = (p: Wild, includeTitle: boolean) => string;

const PULL_REQUEST_ACTIONS = new Set(["approved", "unapproved", "created", "updated", "rejected", "fulfilled", "comment_created", "comment_updated", "comment_deleted"]);

/** Since GDPR Bitbucket names people by display name or nickname. */
function userInfo(u: Wild): string {
	if (u.has("display_name")) return u.at("display_name").str();
	if (u.has("nickname")) return u.at("nickname").str();
	return "Unknown user";
}

const actor = (p: Wild) => userInfo(p.at("actor"));
const href = (w: Wild) => w.path("links", "html", "href").str();
const repoName = (p: Wild) => p.path("repository", "name").str();
/** `change["new"] or change["old"]`. */
const newOrOld = (change: Wild) => (change.at("new").truthy ? change.at("new") : change.at("old"));

function typeOf(req: WebhookRequest, p: Wild): string {
	if (p.has("push")) return "push";
	if (p.has("fork")) return "fork";
	if (p.has("comment") && p.has("commit")) return "commit_comment";
	if (p.has("commit_status")) return "change_commit_status";
	if (p.has("issue")) return p.has("changes") ? "issue_updated" : p.has("comment") ? "issue_commented" : "issue_created";
	const key = req.eventHeader("X-Event-Key");
	if (p.has("pullrequest")) {
		const m = /^pullrequest:(.*)$/s.exec(key);
		if (m && PULL_REQUEST_ACTIONS.has(m[1])) return `pull_request_${m[1]}`;
	} else if (key === "repo:updated") return key;
	throw new UnsupportedEvent(key);
}

function pushBody(p: Wild, change: Wild): string {
	if (newOrOld(change).at("type").str() === "tag") {
		const [tag, action] = change.get("new").truthy ? [change.at("new"), "pushed"] : [change.at("old"), "removed"];
		return git.pushTagMessage(actor(p), tag.at("name").str(), href(tag), action);
	}
	if (!change.at("new").present) return git.removeBranchMessage(actor(p), change.path("old", "name").str());
	if (change.at("forced").bool()) return git.forcePushMessage(actor(p), href(change), change.path("new", "name").str(), change.path("new", "target", "hash").str());
	const commits = change.at("commits").list().map((c) => ({
		name: c.at("author").has("user") ? userInfo(c.path("author", "user")) : (c.path("author", "raw").str().trim().split(/\s+/)[0] ?? ""),
		sha: c.at("hash").str(),
		url: href(c),
		message: c.at("message").str(),
	}));
	return git.pushCommitsMessage({ user: actor(p), compareUrl: href(change), branch: change.path("new", "name").str(), commits, truncated: change.at("truncated").bool() });
}

function pushTopic(p: Wild, change: Wild): string {
	const target = newOrOld(change);
	return target.at("type").str() === "tag" ? repoName(p) : git.topicWithBranch(repoName(p), target.at("name").str());
}

function issueAction(action: string): Body {
	return (p, includeTitle) => {
		const issue = p.at("issue");
		const created = action === "created";
		return git.issueMessage({
			user: actor(p),
			action,
			url: href(issue),
			number: issue.at("id").int(),
			message: created ? issue.path("content", "raw").str() : null,
			assignee: created && issue.at("assignee").truthy ? userInfo(issue.at("assignee")) : null,
			title: includeTitle ? issue.at("title").str() : null,
		});
	};
}

function prAction(action: string): Body {
	return (p, includeTitle) => {
		const pr = p.at("pullrequest");
		const merged = action === "merged";
		return git.pullRequestMessage({
			user: actor(p),
			action,
			url: href(pr),
			number: pr.at("id").int(),
			targetBranch: merged ? pr.path("source", "branch", "name").str() : null,
			baseBranch: merged ? pr.path("destination", "branch", "name").str() : null,
			title: includeTitle ? pr.at("title").str() : null,
		});
	};
}

function prCreatedOrUpdated(action: string): Body {
	return (p, includeTitle) => {
		const pr = p.at("pullrequest");
		const created = action === "created";
		const reviewers = pr.at("reviewers");
		return git.pullRequestMessage({
			user: actor(p),
			action,
			url: href(pr),
			number: pr.at("id").int(),
			targetBranch: created ? pr.path("source", "branch", "name").str() : null,
			baseBranch: created ? pr.path("destination", "branch", "name").str() : null,
			message: pr.at("description").str(),
			assignee: reviewers.truthy ? userInfo(reviewers.list()[0]) : null,
			title: includeTitle ? pr.at("title").str() : null,
		});
	};
}

function prComment(verb: string | null): Body {
	return (p, includeTitle) => {
		const link = href(p.at("comment"));
		const pr = p.at("pullrequest");
		return git.pullRequestMessage({
			user: actor(p),
			action: `${verb === null ? `[commented](${link})` : `${verb} a [comment](${link})`} on`,
			url: href(pr),
			number: pr.at("id").int(),
			message: p.path("comment", "content", "raw").str(),
			title: includeTitle ? pr.at("title").str() : null,
		});
	};
}

const REPO_CHANGES = ["website", "name", "links", "language", "full_name", "description"];

const repoUpdated: Body = (p) => {
	const name = repoName(p);
	let body = "";
	for (const change of REPO_CHANGES) {
		const c = p.path("changes", change);
		const [next, prev] = [c.at("new"), c.at("old")];
		const label = change === "full_name" ? "full name" : change;
		const shown = pyStr(next.value);
		const ending = git.endsWithPunctuation(shown) ? "" : ".";
		if (next.truthy && prev.truthy) body += `${actor(p)} changed the ${label} of the **${name}** repo from **${pyStr(prev.value)}** to **${shown}**${ending}\n`;
		else if (next.truthy) body += `${actor(p)} changed the ${label} of the **${name}** repo to **${shown}**${ending}\n`;
	}
	return body;
};

const BODIES: Record<string, Body> = {
	fork: (p) => `${actor(p)} forked the repository into [${p.path("fork", "full_name").str()}](${href(p.at("fork"))}).`,
	commit_comment: (p) => {
		const c = p.at("comment");
		return git.commitCommentMessage(actor(p), `[commented](${href(c)})`, href(c.at("commit")), c.path("commit", "hash").str(), c.path("content", "raw").str());
	},
	change_commit_status: (p) => {
		const status = p.at("commit_status");
		const commitId = status.path("links", "commit", "href").str().split("/").pop() ?? "";
		const info = `[${git.shortSha(commitId)}](${href(p.at("repository"))}/commits/${commitId})`;
		return `[System ${status.at("key").str()}](${status.at("url").str()}) changed status of ${info} to ${status.at("state").str()}.`;
	},
	issue_updated: issueAction("updated"),
	issue_created: issueAction("created"),
	// An issue comment's action is its link.
	issue_commented: (p, includeTitle) => issueAction(`[commented](${href(p.at("comment"))}) on`)(p, includeTitle),
	pull_request_created: prCreatedOrUpdated("created"),
	pull_request_updated: prCreatedOrUpdated("updated"),
	pull_request_approved: prAction("approved"),
	pull_request_unapproved: prAction("unapproved"),
	pull_request_fulfilled: prAction("merged"),
	pull_request_rejected: prAction("rejected"),
	pull_request_comment_created: prComment(null),
	pull_request_comment_updated: prComment("updated"),
	pull_request_comment_deleted: prComment("deleted"),
	"repo:updated": repoUpdated,
};

function topicOf(p: Wild, type: string): string {
	if (type.startsWith("pull_request")) return git.topicWithPrOrIssue(repoName(p), "PR", p.path("pullrequest", "id").int(), p.path("pullrequest", "title").str());
	if (type.startsWith("issue")) return git.topicWithPrOrIssue(repoName(p), "issue", p.path("issue", "id").int(), p.path("issue", "title").str());
	return repoName(p);
}

function handle(req: WebhookRequest) {
	const p = req.json();
	const type = typeOf(req, p);
	if (type !== "push") return { posts: [{ topic: topicOf(p, type), content: BODIES[type](p, req.param("topic") !== undefined), event: type }] };
	const changes = p.path("push", "changes").list();
	if (!changes.length) return nothing();
	const last = newOrOld(changes[changes.length - 1]);
	const branch = last.at("type").str() === "tag" ? null : last.at("name").str();
	const branches = req.param("branches");
	if (branch && branches && !branches.includes(branch)) return nothing();
	const list: Post[] = changes.map((change) => ({ topic: pushTopic(p, change), content: pushBody(p, change), event: type }));
	return { posts: list };
}

export const bitbucket2: Integration = { name: "bitbucket2", displayName: "Bitbucket2", unquoteUrlParameters: true, handle };
