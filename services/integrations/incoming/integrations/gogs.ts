// Gogs (zerver/webhooks/gogs/view.py), and the view Gitea (a fork of Gogs) shares with it: the event
// is the X-Gogs-Event (X-Gitea-Event) header; pushes honour `branches`; a URL `topic` puts titles
// into the messages.
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import * as git from "../toolkit/git";

export type FormatPullRequest = (p: Wild, includeTitle: boolean) => string;

interface Helper {
	payload: Wild;
	repo: string;
	includeTitle: boolean;
	branches: string | undefined;
	/** Gitea's X-Gitea-Event-Type: "pull_request_comment" for a comment on a pull request. */
	eventType: string | undefined;
	formatPullRequest: FormatPullRequest;
}

const issueUrl = (repoUrl: string, n: number) => `${repoUrl}/issues/${n}`;
const commentAction = (p: Wild) => {
	const action = p.at("action").str();
	return `${action === "created" ? "[commented]" : `${action} a [comment]`}(${p.path("comment", "html_url").str()}) on`;
};

function push(h: Helper): [string, string] | null {
	const p = h.payload;
	const branch = p.at("ref").str().replaceAll("refs/heads/", "");
	if (!git.branchNotifiable(branch, h.branches)) return null;
	const commits = p.at("commits").list().map((c) => ({
		// A commit by someone without an account has no username: the first word of the name.
		name: c.path("author", "username").str() || (c.path("author", "name").str().trim().split(/\s+/)[0] ?? ""),
		sha: c.at("id").str(),
		url: c.at("url").str(),
		message: c.at("message").str(),
	}));
	const content = git.pushCommitsMessage({ user: p.path("sender", "username").str(), compareUrl: p.at("compare_url").str(), branch, commits });
	return [git.topicWithBranch(h.repo, branch), content];
}

function create(h: Helper): [string, string] {
	const p = h.payload;
	const branch = p.at("ref").str();
	return [git.topicWithBranch(h.repo, branch), git.createBranchMessage(p.path("sender", "username").str(), `${p.path("repository", "html_url").str()}/src/${branch}`, branch)];
}

function pullRequest(h: Helper): [string, string] {
	const pr = h.payload.at("pull_request");
	return [git.topicWithPrOrIssue(h.repo, "PR", pr.at("id").int(), pr.at("title").str()), h.formatPullRequest(h.payload, h.includeTitle)];
}

function issues(h: Helper): [string, string] {
	const p = h.payload;
	const issue = p.at("issue");
	const n = issue.at("number").int();
	const assignee = issue.at("assignee").truthy ? issue.path("assignee", "login").str() : null;
	const action = p.at("action").str();
	const content = git.issueMessage({
		user: p.path("sender", "login").str(),
		action,
		url: issueUrl(p.path("repository", "html_url").str(), n),
		number: n,
		message: issue.at("body").str(),
		assignee,
		title: h.includeTitle ? issue.at("title").str() : null,
		assigneeUpdated: action === "assigned" ? assignee : null,
	});
	return [git.topicWithPrOrIssue(h.repo, "issue", n, issue.at("title").str()), content];
}

function issueComment(h: Helper): [string, string] {
	const p = h.payload;
	const issue = p.at("issue");
	const n = issue.at("number").int();
	const onPr = h.eventType === "pull_request_comment";
	const content = onPr
		? git.pullRequestMessage({ user: p.path("sender", "login").str(), action: commentAction(p), url: issue.at("html_url").str(), number: n, message: p.path("comment", "body").str(), type: "PR", title: issue.at("title").str() })
		: git.issueMessage({
				user: p.path("sender", "login").str(),
				action: commentAction(p),
				url: issueUrl(p.path("repository", "html_url").str(), n),
				number: n,
				message: p.path("comment", "body").str(),
				title: h.includeTitle ? issue.at("title").str() : null,
			});
	return [git.topicWithPrOrIssue(p.path("repository", "name").str(), onPr ? "PR" : "issue", n, issue.at("title").str()), content];
}

function release(h: Helper): [string, string] {
	const p = h.payload;
	const r = p.at("release");
	const content = git.releaseMessage(r.path("author", "username").str(), p.at("action").str(), r.at("tag_name").str(), r.at("name").str(), p.path("repository", "html_url").str());
	return [git.topicWithRelease(h.repo, r.at("tag_name").str(), r.at("name").str()), content];
}

const HANDLERS: Record<string, (h: Helper) => [string, string] | null> = { push, create, pull_request: pullRequest, issues, issue_comment: issueComment, release };

/** Gogs's pull request message; Gitea has its own (gitea.ts). */
export const gogsPullRequest: FormatPullRequest = (p, includeTitle) => {
	const pr = p.at("pull_request");
	const merged = pr.at("merged").bool();
	const action = merged ? "merged" : p.at("action").str();
	const edited = action === "edited";
	return git.pullRequestMessage({
		user: merged ? pr.path("merged_by", "username").str() : pr.path("user", "username").str(),
		action,
		url: pr.at("html_url").str(),
		number: pr.at("number").int(),
		targetBranch: edited ? null : pr.at("head_branch").str(),
		baseBranch: edited ? null : pr.at("base_branch").str(),
		title: includeTitle ? pr.at("title").str() : null,
		assigneeUpdated: p.at("action").truthy && pr.at("assignee").truthy ? pr.path("assignee", "login").str() : null,
	});
};

/** The view Gogs and Gitea share (Zulip's gogs_webhook_main). */
export function gogsHandler(header: string, formatPullRequest: FormatPullRequest) {
	return (req: WebhookRequest) => {
		const p = req.json();
		const repo = p.path("repository", "name").str();
		const event = req.eventHeader(header);
		const handler = Object.hasOwn(HANDLERS, event) ? HANDLERS[event] : undefined;
		if (!handler) throw new UnsupportedEvent(event);
		const helper = { payload: p, repo, includeTitle: req.param("topic") !== undefined, branches: req.param("branches"), eventType: req.header("X-Gitea-Event-Type"), formatPullRequest };
		const result = handler(helper);
		if (!result) return nothing();
		return posts({ topic: result[0], content: result[1], event });
	};
}

export const gogs: Integration = { name: "gogs", displayName: "Gogs", handle: gogsHandler("X-Gogs-Event", gogsPullRequest) };
